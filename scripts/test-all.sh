#!/usr/bin/env bash
# Every check the project has, as CI runs it (after scripts/install-deps.sh):
#   1. the Release build and the whole test suite;
#   2. the same suite built with AddressSanitizer and UndefinedBehaviorSanitizer;
#   3. each libFuzzer target for a short fixed time from its seed corpus and past regressions.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRANKSCOPE_SANITIZE=ON
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure

tests/fuzz/run_fuzzers.sh "${RANKSCOPE_FUZZ_SECONDS:-15}" build-fuzz-ci/runs build-fuzz-ci

# Every step above stops the script on a failure, so reaching here means all of them passed.
count() { ctest --test-dir "$1" -N | sed -n 's/^Total Tests: //p'; }
release=$(count build)
sanitized=$(count build-asan)
echo "release suite ${release}, sanitizer suite ${sanitized}, fuzz targets 6"
echo "$((release + sanitized + 6)) passed, 0 failed"
