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
gpt2=bench/data/gpt2-small
[ -d "$gpt2" ] || "$build/bin/make_synthetic_run" "$gpt2" 2 >/dev/null
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME=$cache
unset OPENBLAS_CORETYPE RANKSCOPE_TEST_PRETEND_BLAS_CORE RANKSCOPE_BLAS_CORETYPE_CHOSEN
source bench/bench_common.sh

rs=$build/bin/rankscope
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
