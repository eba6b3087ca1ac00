#!/usr/bin/env bash
# The analysis benchmark (issue targets: ≤ 4 s wall and ≤ 300 MB peak RSS for two GPT-2-small
# checkpoints with --no-cache; ≤ 0.5 s to reopen from the cache). Run by hand after a Release build:
#   bench/bench_analyze.sh [build-dir] [repeats]
# It writes the synthetic run once into bench/data/ (git-ignored) and prints medians.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
repeats=${2:-5}
data=bench/data/gpt2-small
[ -d "$data" ] || "$build/bin/make_synthetic_run" "$data" 2
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME=$cache

median() { sort -n | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.2f", m}'; }

measure() { # label, then the rankscope arguments
    local label=$1; shift
    local walls=() rss=()
    for _ in $(seq "$repeats"); do
        out=$( { /usr/bin/time -f "%e %M" build/bin/rankscope "$@" --quiet >/dev/null; } 2>&1 | tail -1)
        walls+=("${out% *}"); rss+=("${out#* }")
    done
    printf '%-40s median %s s   peak RSS %s MB (max of %d)\n' "$label" \
        "$(printf '%s\n' "${walls[@]}" | median)" \
        "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}')" "$repeats"
}

echo "$(nproc) cores; $(du -sh "$data" | cut -f1) in $data"
measure "analyze --no-cache --jobs 1" analyze "$data" --no-cache --jobs 1
measure "analyze --no-cache --jobs 2" analyze "$data" --no-cache --jobs 2
build/bin/rankscope analyze "$data" --quiet   # fills the cache
measure "reopen from the cache" analyze "$data"
build/bin/rankscope analyze "$data" --no-cache 2>&1 | grep '^time:'
