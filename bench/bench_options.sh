#!/usr/bin/env bash
# The cost of each opt-in analysis against the plain one (issue 17's goals: --delta within 2.2x of
# the plain run), on the GPT-2-small benchmark run (two checkpoints, --no-cache). Run by hand after
# a Release build:
#   bench/bench_options.sh [build-dir] [repeats]
# Medians, each line waiting for a quiet machine first (bench_common.sh); the plain run is the
# baseline of the same session.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
repeats=${2:-5}
source bench/bench_common.sh
describe_machine "$rs"
measure "GPT-2 small x2, plain (baseline)" "$rs" analyze "$gpt2" --no-cache
measure "GPT-2 small x2, --delta" "$rs" analyze "$gpt2" --no-cache --delta
measure "GPT-2 small x2, --rand-distance" "$rs" analyze "$gpt2" --no-cache --rand-distance
"$rs" analyze "$gpt2" --no-cache 2>&1 | grep '^time:'
"$rs" analyze "$gpt2" --no-cache --delta 2>&1 | grep '^time:'
