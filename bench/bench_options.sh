#!/usr/bin/env bash
# The cost of each opt-in analysis against the plain one (issue 17's goals: --delta within 2.2x of
# the plain run, --subspace within 1.5x), on the GPT-2-small benchmark run (two checkpoints, --no-cache). Run by hand after
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
measure "GPT-2 small x2, --subspace (k = 16)" "$rs" analyze "$gpt2" --no-cache --subspace
measure "GPT-2 small x2, --heads" "$rs" analyze "$gpt2" --no-cache --heads
# What the newest checkpoint's vectors add to the results file.
files=$(mktemp -d) # rankscope never writes over a file that is not its own: new paths
plain_h5=$files/plain.h5 subspace_h5=$files/subspace.h5
"$rs" analyze "$gpt2" --no-cache --quiet --results "$plain_h5"
"$rs" analyze "$gpt2" --no-cache --quiet --subspace --results "$subspace_h5"
echo "results file: plain $(stat -c %s "$plain_h5") bytes, --subspace $(stat -c %s "$subspace_h5") bytes"
# --delta turned on with plain results there: only the change is computed.
cp "$plain_h5" "$plain_h5.plain"
later=()
wait_quiet
for _ in $(seq "$repeats"); do
    cp "$plain_h5.plain" "$plain_h5"
    later+=("$( { /usr/bin/time -f "%e" "$rs" analyze "$gpt2" --quiet --delta --results "$plain_h5" >/dev/null; } 2>&1 | tail -1)")
done
echo "GPT-2 small x2, --delta turned on later (plain results kept)  median $(printf '%s\n' "${later[@]}" | median) s"
rm -rf "$files"
"$rs" analyze "$gpt2" --no-cache 2>&1 | grep '^time:'
"$rs" analyze "$gpt2" --no-cache --delta 2>&1 | grep '^time:'
