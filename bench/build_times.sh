#!/usr/bin/env bash
# How long the README's two commands take, stage by stage, each from a fresh clone of a commit, as a
# new user and CI meet them: packages installed already (scripts/install-deps.sh then only checks
# them), ccache off. Run by hand; each run takes about as long as CI itself.
#   bench/build_times.sh [RUNS] [COMMIT]      (default: 2 runs of HEAD)
# Per run it times, in one fresh clone:
#   first command   scripts/install-deps.sh, configure and build the program, up to `rankscope --version`
#                   answering (the README's first command, but for opening the window)
#   rest of build   then `cmake --build build`: the rest of the Release build in the same tree
#   full build      the two together: the whole Release build from nothing
#   one header      touching core/analysis/results/MatrixResult.h and rebuilding
# and, in a second fresh clone, scripts/test-all.sh (the README's second command, .ci/run) with
# the time of each of its stages. Medians over the runs are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
commit=$(git rev-parse "${2:-HEAD}")
source=$PWD
export CCACHE_DISABLE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results=$work/results.txt

echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
echo "commit $commit"
seconds() { # label command…: runs the command, records its wall time under label
    local label=$1 started=$SECONDS; shift
    "$@"
    echo "$label $((SECONDS - started))" >> "$results"
}
for run in $(seq "$runs"); do
    clone=$work/first-$run
    git clone -q --no-checkout "$source" "$clone" && git -C "$clone" checkout -q "$commit"
    (
        cd "$clone"
        seconds "first-command" sh -c 'scripts/install-deps.sh > /dev/null &&
            cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null &&
            cmake --build build -j"$(nproc)" --target rankscope > /dev/null && build/bin/rankscope --version > /dev/null'
        seconds "rest-of-build" sh -c 'cmake --build build -j"$(nproc)" > /dev/null'
        # The full Release build from nothing: the first command and the rest, in one tree.
        awk '$1 == "first-command" {f = $2} $1 == "rest-of-build" {r = $2} END {print "full-build", f + r}' \
            "$results" >> "$results"
        touch core/analysis/results/MatrixResult.h
        seconds "one-header-rebuild" sh -c 'cmake --build build -j"$(nproc)" > /dev/null'
    )
    rm -rf "$clone"
    clone=$work/ci-$run
    git clone -q --no-checkout "$source" "$clone" && git -C "$clone" checkout -q "$commit"
    (
        cd "$clone"
        started=$SECONDS
        scripts/install-deps.sh > /dev/null && scripts/test-all.sh > "$work/ci-$run.log" 2>&1 ||
            { echo "run $run: scripts/test-all.sh failed, see its log:"; tail -30 "$work/ci-$run.log"; exit 1; }
        echo "ci-total $((SECONDS - started))" >> "$results"
        # "stage release build      7m12s" -> "release-build 432"
        sed -n 's/^stage \(.*[^ ]\) \+\([0-9]\+\)m\([0-9]\+\)s$/\1|\2|\3/p' "$work/ci-$run.log" |
            awk -F'|' '{gsub(/ /, "-", $1); print "ci:" $1, $2 * 60 + $3}' >> "$results"
    )
    rm -rf "$clone"
    echo "run $run done"
done
echo
printf '%-28s %10s   %s\n' stage median "each run (s)"
awk '{v[$1] = v[$1] " " $2; order[$1] = order[$1] ? order[$1] : NR} END {for (k in v) print order[k], k, v[k]}' "$results" |
    sort -n | while read -r _ stage values; do
        median=$(printf '%s\n' $values | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%d:%02d", m/60, m%60}')
        printf '%-28s %10s   %s\n' "$stage" "$median" "$values"
    done
