#!/usr/bin/env bash
# The GPU path against the CPU path on one machine (issue 31): builds rankscope with the CUDA
# backend required (Release, all cores), then analyses the demo run, one GPT-2-small checkpoint
# and one d = 4096 layer (both from bench/make_synthetic_run) with --device cuda and with
# --device cpu, compares each pair of CSVs within the metric contract (bench/compare_metrics),
# and prints both timings and peak RSS, the GPU, the CPU and OpenBLAS's kernels. Needs nothing
# from the network. Exit status 0 only when every CSV pair agrees, every matrix of the cuda runs
# was computed on the GPU, and (without a GPU) --device cuda ends with exit status 2.
#   bench/gpu_check.sh [--build DIR] [--cpu-only]
#     --build DIR   use this existing build (no configure, no build) instead of build-gpu/
#     --cpu-only    run only the cpu half, and check that --device cuda refuses cleanly
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-gpu
existing=0
cpu_only=0
while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; existing=1; shift 2 ;;
        --cpu-only) cpu_only=1; shift ;;
        *) echo "usage: bench/gpu_check.sh [--build DIR] [--cpu-only]" >&2; exit 2 ;;
    esac
done
started=$(date +%s)
failed=0
fail() { echo "FAIL: $*"; failed=1; }

if [ "$existing" = 0 ]; then
    echo "== build ($build, -DRANKSCOPE_WITH_CUDA=ON, Release, -j$(nproc))"
    mkdir -p "$build"
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRANKSCOPE_WITH_CUDA=ON >"$build/configure.log" 2>&1 ||
        { tail -20 "$build/configure.log"; echo "FAIL: configure"; exit 1; }
    grep "CUDA backend" "$build/configure.log"
    cmake --build "$build" -j"$(nproc)" --target rankscope make_synthetic_run compare_metrics >"$build/build.log" 2>&1 ||
        { tail -30 "$build/build.log"; echo "FAIL: build"; exit 1; }
    echo "built in $(( $(date +%s) - started )) s"
fi
rs=$build/bin/rankscope
for tool in "$rs" "$build/bin/make_synthetic_run" "$build/bin/compare_metrics"; do
    [ -x "$tool" ] || { echo "FAIL: $tool is not built"; exit 1; }
done

echo "== machine"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
else
    echo "GPU: nvidia-smi not found"
fi
"$rs" --version

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CACHE_HOME=$out/cache
unset OPENBLAS_CORETYPE RANKSCOPE_TEST_PRETEND_BLAS_CORE RANKSCOPE_BLAS_CORETYPE_CHOSEN
mkdir -p bench/data
gpt2=bench/data/gpt2-small-1
wide=bench/data/d4096-layer
[ -d "$gpt2" ] || "$build/bin/make_synthetic_run" "$gpt2" 1 >/dev/null
[ -d "$wide" ] || "$build/bin/make_synthetic_run" "$wide" 1 1 4096 >/dev/null

# One analysis: its CSV, its timing line, wall seconds and peak RSS. Sets $status.
analyse() { # name device folder
    local name=$1 device=$2 folder=$3
    /usr/bin/time -f "%e s wall, peak RSS %M KB" -o "$out/$name.$device.time" \
        "$rs" analyze "$folder" --no-cache --device "$device" --csv "$out/$name.$device.csv" 2>"$out/$name.$device.err" >/dev/null
    status=$?
    printf '  %-5s exit %d, %s\n' "$device" "$status" "$(tail -1 "$out/$name.$device.time")"
    grep '^time:' "$out/$name.$device.err" | sed 's/^/        /'
}

if [ "$cpu_only" = 0 ] && ! "$rs" --version | grep -q '^CUDA: .*device [0-9]* of'; then
    echo "no usable GPU here ($("$rs" --version | grep '^CUDA:')): the cuda half is left out"
    cpu_only=1
fi

# The comparison itself, checked on what differs by method alone: the exact SVD against the Gram path.
echo "== compare_metrics: the demo run, --method svd against gram (both on the CPU)"
"$rs" analyze resources/demo/nanogpt-d4 --no-cache --quiet --method svd --csv "$out/demo.svd.csv" &&
    "$rs" analyze resources/demo/nanogpt-d4 --no-cache --quiet --device cpu --csv "$out/demo.gram.csv" &&
    "$build/bin/compare_metrics" "$out/demo.svd.csv" "$out/demo.gram.csv" | sed 's/^/  /'
[ "${PIPESTATUS[0]}" = 0 ] || fail "demo: --method svd and gram differ beyond the metric contract"

for run in "demo:resources/demo/nanogpt-d4" "gpt2-small:$gpt2" "d4096-layer:$wide"; do
    name=${run%%:*}
    folder=${run#*:}
    echo "== $name ($folder)"
    analyse "$name" cpu "$folder"
    [ "$status" = 0 ] || { fail "$name: --device cpu exit $status"; sed 's/^/    /' "$out/$name.cpu.err" | tail -5; }
    if [ "$cpu_only" = 1 ]; then
        analyse "$name" cuda "$folder"
        if [ "$status" = 2 ] && grep -q 'rankscope analyze: --device cuda: no usable GPU: ' "$out/$name.cuda.err"; then
            echo "  cuda  refused as it should be: $(cat "$out/$name.cuda.err")"
        else
            fail "$name: --device cuda without a GPU: exit $status, $(head -2 "$out/$name.cuda.err")"
        fi
        continue
    fi
    analyse "$name" cuda "$folder"
    [ "$status" = 0 ] || { fail "$name: --device cuda exit $status"; tail -5 "$out/$name.cuda.err"; continue; }
    grep -q 'matrices on the GPU, 0 on the CPU' "$out/$name.cuda.err" ||
        { fail "$name: not every matrix ran on the GPU"; grep -i 'on the CPU' "$out/$name.cuda.err" | head -5; }
    "$build/bin/compare_metrics" "$out/$name.cuda.csv" "$out/$name.cpu.csv" | sed 's/^/  /'
    [ "${PIPESTATUS[0]}" = 0 ] || fail "$name: the CSVs differ beyond the metric contract"
done

echo "== $(( $(date +%s) - started )) s in all"
[ "$failed" = 0 ] && echo "PASS" || echo "FAILED"
exit "$failed"
