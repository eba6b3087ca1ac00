#!/usr/bin/env bash
# How `mpirun -n N rankscope analyze` scales (issue 14), on the GPT-2-small benchmark run of
# bench_analyze.sh. Run by hand after a Release build with MPI support:
#   bench/bench_mpi.sh [build-dir] [repeats]
# One process without mpirun is the baseline, measured in the same run. On a machine with fewer
# cores than ranks × workers the ranks are oversubscribed: the table then shows the cost of MPI,
# not a speed-up.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
repeats=${2:-5}
source bench/bench_common.sh
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
describe_machine "$rs"
echo "$(du -sh "$gpt2" | cut -f1) in $gpt2"
measure "1 process, --jobs $(nproc) (baseline)" "$rs" analyze "$gpt2" --no-cache --jobs "$(nproc)"
measure "mpirun -n 1, --jobs $(nproc)" "${mpirun[@]}" -n 1 "$rs" analyze "$gpt2" --no-cache --jobs "$(nproc)"
measure "mpirun -n 2, --jobs 1" "${mpirun[@]}" -n 2 "$rs" analyze "$gpt2" --no-cache --jobs 1
measure "mpirun -n 2, --jobs $(nproc)" "${mpirun[@]}" -n 2 "$rs" analyze "$gpt2" --no-cache --jobs "$(nproc)"
measure "mpirun -n 3, --jobs 1" "${mpirun[@]}" -n 3 "$rs" analyze "$gpt2" --no-cache --jobs 1
measure "mpirun -n 3, --jobs $(nproc)" "${mpirun[@]}" -n 3 "$rs" analyze "$gpt2" --no-cache --jobs "$(nproc)"
"${mpirun[@]}" -n 3 "$rs" analyze "$gpt2" --no-cache --jobs 1 2>&1 | grep '^time:'
