#!/usr/bin/env bash
# The analysis benchmark, end to end (issue 13's targets: two GPT-2-small checkpoints --no-cache
# ≤ 4.5 s and ≤ 300 MB peak RSS; one d = 4096 layer ≤ 20 s and ≤ 1.0 GB). Run by hand after a
# Release build:
#   bench/bench_analyze.sh [build-dir] [repeats]
# It writes the synthetic runs once into bench/data/ (git-ignored), waits for a quiet machine
# (1-minute load average below 0.3, polled every 20 s for up to 15 minutes: other builds share
# these cores) before each measurement, and prints medians with the load at the start of each.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
repeats=${2:-5}
source bench/bench_common.sh
wide=bench/data/d4096-layer
[ -d "$wide" ] || "$build/bin/make_synthetic_run" "$wide" 1 1 4096 >/dev/null
describe_machine "$rs"
echo "$(du -sh "$gpt2" | cut -f1) in $gpt2; $(du -sh "$wide" | cut -f1) in $wide"
measure "GPT-2 small x2, --no-cache --jobs 1" "$rs" analyze "$gpt2" --no-cache --jobs 1
measure "GPT-2 small x2, --no-cache --jobs 2 (default)" "$rs" analyze "$gpt2" --no-cache --jobs 2
measure "GPT-2 small x2, OPENBLAS_CORETYPE=Prescott (user's choice)" OPENBLAS_CORETYPE=Prescott "$rs" analyze "$gpt2" --no-cache
measure "GPT-2 small x2, OpenBLAS 'detects' Prescott (test hook)" RANKSCOPE_TEST_PRETEND_BLAS_CORE=Prescott "$rs" analyze "$gpt2" --no-cache
"$rs" analyze "$gpt2" --quiet   # fills the cache
measure "GPT-2 small x2, reopened from the cache" "$rs" analyze "$gpt2"
measure "one d = 4096 layer, --no-cache" "$rs" analyze "$wide" --no-cache
measure "one d = 4096 layer, OPENBLAS_CORETYPE=Prescott" OPENBLAS_CORETYPE=Prescott "$rs" analyze "$wide" --no-cache
"$rs" analyze "$gpt2" --no-cache 2>&1 | grep '^time:'
"$rs" analyze "$wide" --no-cache 2>&1 | grep '^time:'
RANKSCOPE_TEST_PRETEND_BLAS_CORE=Prescott "$rs" analyze "$gpt2" --no-cache 2>&1 | grep '^time:'
