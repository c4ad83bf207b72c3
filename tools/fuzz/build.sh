#!/usr/bin/env bash
# Builds the libFuzzer targets into build-fuzz/ (at the top of the repository).
# Needs clang with its runtime libraries (Debian: clang libclang-rt-14-dev) and the s2s build
# dependencies; FUZZ_CXX picks another clang++ (default: clang++).
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S tools/fuzz -B build-fuzz -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++}" \
  > /dev/null
cmake --build build-fuzz -j2
