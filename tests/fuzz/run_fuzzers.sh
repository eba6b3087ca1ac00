#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS (default 600),
# one after the other, from seed corpora of valid files. Crashing inputs are left as
# crash-*/leak-*/timeout-*/oom-* in the run folder; copy them to tests/fuzz/regressions/<target>/
# so the regular test suite replays them.
#   tests/fuzz/run_fuzzers.sh [SECONDS] [WORK_FOLDER] [BUILD_FOLDER]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-600}
work=${2:-build-fuzz/runs}
build=${3:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DRANKSCOPE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
mkdir -p "$work"
"$build/bin/make_fuzz_seeds" "$work/seeds" >/dev/null
status=0
# Every target tests/fuzz/CMakeLists.txt builds, unless RANKSCOPE_FUZZ_TARGETS names some.
targets=${RANKSCOPE_FUZZ_TARGETS:-$(cd "$build/bin" && ls fuzz_*)}
for target in $targets; do
    mkdir -p "$work/corpus/$target" "$work/artifacts/$target"
    regressions=tests/fuzz/regressions/$target
    if ! "$build/bin/$target" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix="$work/artifacts/$target/" -print_final_stats=1 \
            "$work/corpus/$target" "$work/seeds/$target" $( [ -d "$regressions" ] && echo "$regressions" ) \
            > "$work/$target.log" 2>&1; then
        echo "$target: FAILED, see $work/$target.log and $work/artifacts/$target/"
        status=1
    else
        echo "$target: passed, $(grep -E 'stat::number_of_executed_units' "$work/$target.log" | awk '{print $2}') runs in ${seconds} s, no crash, leak, timeout or out-of-memory"
    fi
done
exit $status
