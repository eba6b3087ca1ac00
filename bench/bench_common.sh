# Shared by the bench/*.sh scripts (sourced from the project root, after $build and $repeats are
# set): a fresh cache, the machine as a user has it, waiting for a quiet machine, medians, and
# timing one command line several times.

cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME=$cache
# Measured as a user runs it: no kernel variable, unless a line sets one.
unset OPENBLAS_CORETYPE RANKSCOPE_TEST_PRETEND_BLAS_CORE RANKSCOPE_BLAS_CORETYPE_CHOSEN
rs=$build/bin/rankscope
gpt2=bench/data/gpt2-small # two GPT-2-small checkpoints (12 layers, d = 768), made once
[ -d "$gpt2" ] || "$build/bin/make_synthetic_run" "$gpt2" 2 >/dev/null

load() { cut -d' ' -f1 /proc/loadavg; }
# Other builds share these cores: wait (up to 15 minutes) for a 1-minute load average below 0.3.
wait_quiet() {
    for _ in $(seq 45); do
        awk -v l="$(load)" 'BEGIN { exit !(l < 0.3) }' && return 0
        sleep 20
    done
    echo "  (machine still busy after 15 minutes: load $(load))"
}
median() { sort -n | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.2f", m}'; }

measure() { # label, then environment assignments and the command (env VAR=… rankscope …); --quiet is appended
    local label=$1; shift
    local walls=() rss=()
    wait_quiet
    local started_load; started_load=$(load)
    for _ in $(seq "$repeats"); do
        out=$( { /usr/bin/time -f "%e %M" env "$@" --quiet >/dev/null; } 2>&1 | tail -1)
        walls+=("${out% *}"); rss+=("${out#* }")
    done
    printf '%-58s median %6s s   peak RSS %5s MB (max of %d)   load %s\n' "$label" \
        "$(printf '%s\n' "${walls[@]}" | median)" \
        "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}')" "$repeats" "$started_load"
}

describe_machine() { # the CPU, its cores, and the BLAS kernels rankscope uses
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
    "$1" --version | sed -n '2,3p'
}
