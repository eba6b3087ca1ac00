#!/usr/bin/env bash
# Every check the project has, as CI runs it (after scripts/install-deps.sh):
#   1. the Release build (warnings are errors) and the whole test suite, a suite per core at once;
#   2. the Debian package from that build: installed with apt-get, the installed rankscope checked
#      from outside the source tree, then removed again;
#   3. the same suite built with AddressSanitizer and UndefinedBehaviorSanitizer;
#   4. each libFuzzer target for a short fixed time from its seed corpus and past regressions, one
#      per core at once.
# Each stage's time is printed as it ends (bench/build_times.sh collects them from fresh clones).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stage_started=$SECONDS
stage_done() { # name: how long the stage since the last one took
    local took=$((SECONDS - stage_started))
    printf 'stage %-18s %3dm%02ds\n' "$1" $((took / 60)) $((took % 60))
    stage_started=$SECONDS
}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRANKSCOPE_WERROR=ON
cmake --build build -j"$jobs"
stage_done "release build"
ctest --test-dir build --output-on-failure -j"$jobs"
stage_done "release suite"

installed_packages() {
    dpkg-query -W -f='${db:Status-Status} ${Package}:${Architecture}\n' | sed -n 's/^installed //p' | sort
}
# Installs the package as a user would, checks the installed program, and leaves the machine as it
# found it: the package and anything apt pulled in for it are removed again, even on a failure.
package_stage() {
    if dpkg-query -W -f='${db:Status-Status}' rankscope 2>/dev/null | grep -qx installed; then
        echo "package stage: a rankscope package is installed already; not replacing it (remove it to run this stage)" >&2
        return 1
    fi
    rm -f build/package/rankscope_*.deb
    cpack -G DEB --config build/CPackConfig.cmake -B build/package
    local deb
    deb=$(ls "$PWD"/build/package/rankscope_*.deb)
    dpkg-deb --info "$deb" | sed -n 's/^ \(Depends\|Section\|Maintainer\):/package: \1:/p'
    installed_packages > build/package/before.txt
    trap remove_package EXIT # a failure below ends the script: remove the package on the way out
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb"
    tests/install/check_install.sh /usr
    trap - EXIT
    remove_package
}
remove_package() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get purge -y rankscope > /dev/null || true
    local pulled_in
    pulled_in=$(installed_packages | comm -13 build/package/before.txt -)
    if [ -n "$pulled_in" ]; then
        # shellcheck disable=SC2086 # one package per word
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get purge -y $pulled_in > /dev/null
    fi
}
package_stage
stage_done "package"

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRANKSCOPE_SANITIZE=ON
cmake --build build-asan -j"$jobs"
stage_done "sanitizer build"
LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0" ctest --test-dir build-asan --output-on-failure -j"$jobs"
stage_done "sanitizer suite"

mkdir -p build-fuzz-ci
tests/fuzz/run_fuzzers.sh "${RANKSCOPE_FUZZ_SECONDS:-15}" build-fuzz-ci/runs build-fuzz-ci | tee build-fuzz-ci/summary.txt
fuzzed=$(grep -c ': passed, ' build-fuzz-ci/summary.txt)
stage_done "fuzzers"

# Every step above stops the script on a failure, so reaching here means all of them passed.
count() { ctest --test-dir "$1" -N | sed -n 's/^Total Tests: //p'; }
release=$(count build)
sanitized=$(count build-asan)
echo "release suite ${release}, package 1, sanitizer suite ${sanitized}, fuzz targets ${fuzzed}"
echo "all stages took $((SECONDS / 60))m$((SECONDS % 60))s"
echo "$((release + 1 + sanitized + fuzzed)) passed, 0 failed"
