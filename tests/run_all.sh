#!/usr/bin/env bash
# The whole test suite: installs the package with its test extras from this checkout, builds
# and runs the GoogleTest suite (plain and under AddressSanitizer + UBSan), then runs pytest
# (which also executes the notebooks).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

echo "== installing schedlab[test] from $(pwd)"
python -m pip install --quiet ".[test]"

if ! { [ -f /usr/include/gtest/gtest.h ] || [ -n "${GTEST_ROOT:-}" ]; }; then
  echo "GoogleTest is missing: install it first (Debian/Ubuntu: apt-get install -y libgtest-dev)" >&2
  exit 1
fi

echo "== GoogleTest (release build)"
cmake -S . -B build/ctest -DCMAKE_BUILD_TYPE=Release -DSCHEDLAB_BUILD_PYTHON=OFF > build-ctest.log 2>&1 || { cat build-ctest.log; exit 1; }
cmake --build build/ctest -j"$JOBS" >> build-ctest.log 2>&1 || { tail -50 build-ctest.log; exit 1; }
ctest --test-dir build/ctest --output-on-failure -j"$JOBS"

echo "== GoogleTest under AddressSanitizer and UndefinedBehaviorSanitizer"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DSCHEDLAB_BUILD_PYTHON=OFF -DSCHEDLAB_SANITIZE=ON > build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
cmake --build build/asan -j"$JOBS" --target schedlab_tests >> build-asan.log 2>&1 || { tail -50 build-asan.log; exit 1; }
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./build/asan/schedlab_tests --gtest_brief=1
rm -f build-ctest.log build-asan.log

echo "== pytest"
set +e
python -m pytest -q tests/python "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
