#!/usr/bin/env bash
# The sanitizer stage of CI: the whole test suite again under AddressSanitizer + UBSan (a second
# build directory), then one end-to-end translate and score under valgrind's memcheck.
# Needs: the packages .ci/run installs, plus valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DS2S_SANITIZE=address,undefined \
  -DS2S_BUILD_BENCH=OFF > /dev/null
cmake --build build-asan -j2
ctest --test-dir build-asan --output-on-failure -j2

# valgrind on the Release binary of the README's build (build/): every error is fatal.
model=models/en-de
printf 'The licence is free.\n\nYou may copy the program.\n' |
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    ./build/s2s translate -m "$model" -b 4 --threads 1 > /dev/null
printf 'The licence is free.\tDie Lizenz ist frei.\n' |
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    ./build/s2s score -m "$model" --threads 1 > /dev/null
echo "sanitizers: test suite under ASan/UBSan and valgrind runs passed"
