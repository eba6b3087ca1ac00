#!/usr/bin/env bash
# compare_metrics.sh ACTUAL.csv EXPECTED.csv
# Compares `rankscope analyze --csv` output with the demo run's expected metrics: the contract's
# columns, found by name (the CSV may gain columns), one row per step/layer/type, with the same
# tolerances as tests/core/tst_DemoRun.cpp. Needs only awk, so it also runs on a bare install.
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: compare_metrics.sh ACTUAL.csv EXPECTED.csv" >&2
    exit 1
fi
awk -F, -v actual_name="$1" '
function abs(x) { return x < 0 ? -x : x }
function relative(a, b) { return b == 0 ? abs(a) : abs(a - b) / abs(b) }
function fail(message) { print "compare_metrics: " message > "/dev/stderr"; failed = 1; exit 1 }
function need(columns, header_of, what,   i, n, names) {
    n = split(columns, names, " ")
    for (i = 1; i <= n; ++i)
        if (!(names[i] in header_of))
            fail(what " has no column " names[i])
}
BEGIN {
    key_columns = "step layer type rows cols"
    metric_columns = "stable_rank compression_pct alpha weighted_alpha effective_rank spectral_norm frobenius_norm"
    metric_count = split(metric_columns, metrics, " ")
}
# Either file may end its lines with CRLF.
{ sub(/\r$/, "") }
# The expected file comes first.
NR == FNR && FNR == 1 { for (i = 1; i <= NF; ++i) e[$i] = i; need(key_columns " " metric_columns, e, "the expected file"); next }
NR == FNR {
    key = $(e["step"]) "/" $(e["layer"]) "/" $(e["type"])
    shape[key] = $(e["rows"]) "x" $(e["cols"])
    for (m = 1; m <= metric_count; ++m)
        want[key, metrics[m]] = $(e[metrics[m]])
    ++expected_count
    next
}
FNR == 1 { for (i = 1; i <= NF; ++i) a[$i] = i; need(key_columns " " metric_columns, a, actual_name); next }
{
    key = $(a["step"]) "/" $(a["layer"]) "/" $(a["type"])
    if (!(key in shape)) fail(actual_name ": unexpected row " key)
    if (key in seen) fail(actual_name ": row " key " appears twice")
    seen[key] = 1
    ++actual_count
    if ($(a["rows"]) "x" $(a["cols"]) != shape[key]) fail(key ": shape " $(a["rows"]) "x" $(a["cols"]) ", expected " shape[key])
    # The expected file holds 9 significant digits: the contract compares at 1e-6.
    split("stable_rank effective_rank spectral_norm frobenius_norm", close_metrics, " ")
    for (m in close_metrics) {
        name = close_metrics[m]
        if (relative($(a[name]) + 0, want[key, name] + 0) > 1e-6)
            fail(key ": " name " " $(a[name]) ", expected " want[key, name])
    }
    if (relative($(a["compression_pct"]) + 0, want[key, "compression_pct"] + 0) > 1e-9)
        fail(key ": compression_pct " $(a["compression_pct"]) ", expected " want[key, "compression_pct"])
    # The power-law fit may pick another x_min on a near tie: at most one alpha may differ by > 1e-3.
    if (abs($(a["alpha"]) - want[key, "alpha"]) > 1e-3) {
        ++alpha_misses
    } else {
        sigma = $(a["spectral_norm"]) + 0
        allowed = 1e-3 * abs(log(sigma * sigma) / log(10)) + 1e-6
        if (abs($(a["weighted_alpha"]) - want[key, "weighted_alpha"]) > allowed)
            fail(key ": weighted_alpha " $(a["weighted_alpha"]) ", expected " want[key, "weighted_alpha"])
    }
}
END {
    if (failed) exit 1
    if (expected_count == 0) fail("the expected file has no rows")
    if (actual_count != expected_count) fail(actual_name ": " actual_count " rows, expected " expected_count)
    if (alpha_misses > 1) fail(alpha_misses " alpha values differ by more than 1e-3")
    print "compare_metrics: " actual_count " rows match the expected metrics"
}
' "$2" "$1"
