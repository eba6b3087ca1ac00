#!/usr/bin/env bash
# check_install.sh PREFIX
# check_install.sh --install-build BUILD_DIR [CMAKE]   (cmake --install into a temporary prefix first)
# Checks an installed RankScope the way a user meets it, from a folder outside the source tree:
# the files a desktop install needs are under PREFIX; PREFIX/bin/rankscope runs, finds the demo run
# installed under PREFIX (an installed binary never looks at the source tree), reproduces the
# installed expected metrics, exports a figure, and its window starts.
# ctest runs it on a build installed into a temporary folder; scripts/test-all.sh on the installed
# .deb (PREFIX /usr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
usage() { echo "usage: check_install.sh PREFIX | --install-build BUILD_DIR [CMAKE]" >&2; exit 1; }
if [ "${1:-}" = --install-build ]; then
    [ $# -ge 2 ] || usage
    staging=$(mktemp -d)
    trap 'rm -rf "$staging"' EXIT
    "${3:-cmake}" --install "$2" --prefix "$staging/prefix" > "$staging/install.log" ||
        { cat "$staging/install.log" >&2; exit 1; }
    "$0" "$staging/prefix"
    exit
fi
[ $# -eq 1 ] || usage
prefix=$(cd "$1" && pwd -P)
app_id=io.github.rankscope.RankScope
rankscope="$prefix/bin/rankscope"
demo="$prefix/share/rankscope/demo/nanogpt-d4"
fail() { echo "check_install: $*" >&2; exit 1; }

expected_files=(
    bin/rankscope
    share/rankscope/demo/nanogpt-d4.metrics.csv
    share/doc/rankscope/README.md
    share/doc/rankscope/LICENSE
    share/doc/rankscope/copyright
    share/doc/rankscope/changelog.Debian.gz
    share/doc/rankscope/docs/metrics.md
    share/doc/rankscope/docs/naming-rules.md
    share/doc/rankscope/docs/results-file.md
    share/doc/rankscope/docs/architecture.md
    share/doc/rankscope/docs/hardening.md
    share/man/man1/rankscope.1.gz
    share/bash-completion/completions/rankscope
    "share/applications/$app_id.desktop"
    "share/metainfo/$app_id.metainfo.xml"
    "share/icons/hicolor/scalable/apps/$app_id.svg"
)
icon_sizes=(16 22 24 32 48 64 128 256)
for size in "${icon_sizes[@]}"; do
    expected_files+=("share/icons/hicolor/${size}x${size}/apps/$app_id.png")
done
for file in "${expected_files[@]}"; do
    [ -f "$prefix/$file" ] || fail "missing $prefix/$file"
done
[ -x "$rankscope" ] || fail "$rankscope is not executable"
checkpoints=$(find "$demo" -maxdepth 1 -name 'ckpt_*.pt' | wc -l)
[ "$checkpoints" -eq 6 ] || fail "$demo holds $checkpoints checkpoints, expected 6"
if command -v file >/dev/null; then
    for size in "${icon_sizes[@]}"; do
        png="$prefix/share/icons/hicolor/${size}x${size}/apps/$app_id.png"
        file "$png" | grep -q "PNG image data, $size x $size," || fail "$png: $(file -b "$png")"
    done
fi
gzip -t "$prefix/share/man/man1/rankscope.1.gz" "$prefix/share/doc/rankscope/changelog.Debian.gz"

# Everything below runs in a scratch folder with its own cache and settings, and no display.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM

version=$("$rankscope" --version)
[[ $version == "rankscope "* ]] || fail "--version printed '$version'"
"$rankscope" --help > help.txt
grep -qxF "  $demo" help.txt || fail "--help names another demo run than $demo: $(tail -1 help.txt)"

"$rankscope" analyze "$demo" --csv metrics.csv --no-cache --quiet || fail "analyze exited with $?"
"$here/compare_metrics.sh" metrics.csv "$prefix/share/rankscope/demo/nanogpt-d4.metrics.csv"

"$rankscope" export "$demo" --figure heatmaps --out heatmaps.png || fail "export exited with $?"
[ "$(head -c 8 heatmaps.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "export wrote no PNG"
"$rankscope" export "$demo" --figure bars --out bars.svg || fail "export exited with $?"
grep -q "<svg" bars.svg || fail "export wrote no SVG"

# The window with no path opens the installed demo run; it must still be running after a few
# seconds (exit 124 from timeout), not have stopped on a missing plugin or data file.
status=0
QT_QPA_PLATFORM=offscreen timeout 5 "$rankscope" > window.log 2>&1 || status=$?
[ "$status" -eq 124 ] || fail "the window stopped with status $status: $(cat window.log)"

echo "check_install: $prefix: files, --version ($version), analyze, export and the window all fine"
