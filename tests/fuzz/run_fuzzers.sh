#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS (default 600),
# as many at once as there are cores, from seed corpora of valid files. Crashing inputs are left as
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
# Every target tests/fuzz/CMakeLists.txt builds, unless RANKSCOPE_FUZZ_TARGETS names some.
targets=${RANKSCOPE_FUZZ_TARGETS:-$(cd "$build/bin" && ls fuzz_*)}
# One fuzzer per core at a time (each is single-threaded): every target still gets SECONDS of a
# core. Each writes its verdict to its own file; they are printed in the targets' order.
fuzz_one() { # target
    local target=$1
    mkdir -p "$work/corpus/$target" "$work/artifacts/$target"
    local regressions=tests/fuzz/regressions/$target
    if ! "$build/bin/$target" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix="$work/artifacts/$target/" -print_final_stats=1 \
            "$work/corpus/$target" "$work/seeds/$target" $( [ -d "$regressions" ] && echo "$regressions" ) \
            > "$work/$target.log" 2>&1; then
        echo "$target: FAILED, see $work/$target.log and $work/artifacts/$target/" > "$work/$target.verdict"
    else
        echo "$target: passed, $(grep -E 'stat::number_of_executed_units' "$work/$target.log" | awk '{print $2}') runs in ${seconds} s, no crash, leak, timeout or out-of-memory" > "$work/$target.verdict"
    fi
}
running=0
for target in $targets; do
    rm -f "$work/$target.verdict"
    fuzz_one "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$(nproc)" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
status=0
for target in $targets; do
    if [ -f "$work/$target.verdict" ]; then cat "$work/$target.verdict"; else echo "$target: FAILED, no verdict"; fi
    grep -q ': passed, ' "$work/$target.verdict" 2>/dev/null || status=1
done
exit $status
