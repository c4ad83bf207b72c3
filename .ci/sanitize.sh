#!/usr/bin/env bash
# The sanitizer stage of CI: the whole test suite again under AddressSanitizer + UBSan (a second
# build directory), one end-to-end translate and score under valgrind's memcheck, and a
# multi-threaded translate under ThreadSanitizer (a third build directory, the CLI only).
# Needs: the packages .ci/run installs, plus valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# -O1, as the sanitizers' documentation advises: the suite runs several times faster than at -O0
# and the reports keep their lines.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DS2S_SANITIZE=address,undefined -DS2S_BUILD_BENCH=OFF > /dev/null
cmake --build build-asan -j2
# Left out: resume_loop (189 s under ASan at -O0, the longest test) and score_resume_loop, which
# kill and resume the CLI at random points and compare bytes, as the Release suite does
# (interrupt_loop keeps the signal paths under ASan, test_resume.cc and test_score_resume.cc the
# resume paths); and the tests that repeat code the others cover at volume (a 1 MB line, the
# suites of software strings, output invariance over many batchings and thread counts, memory
# growth, which the sanitizer's own allocator distorts). The Release run has them all.
volume='^((score_)?resume_loop|protect_keeps_spans|html_keeps_tags)$'
volume+='|a 1 MB line|never change the output|whatever the batching|memory stays flat'
# The server's two timing tests (requests sharing one batch, SIGTERM under load) count on
# response times the sanitizers stretch; the other server tests run here.
volume+='|share batches|SIGTERM under load'
ctest --test-dir build-asan --output-on-failure -j2 -E "$volume"

# valgrind on the Release binary of the README's build (build/): every error is fatal.
model=models/en-de
printf 'The licence is free.\n\nYou may copy the program.\n' |
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    ./build/s2s translate -m "$model" -b 4 --threads 1 > /dev/null
printf 'The licence is free.\tDie Lizenz ist frei.\n' |
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    ./build/s2s score -m "$model" --threads 1 > /dev/null

# ThreadSanitizer on the threads s2s itself starts: --workers 2 translates two parts of the input
# at once on one shared model. libgomp is not built with TSan: its barriers are invisible to
# TSan, so OpenMP threads would be reported as races (false positives). So each worker runs one
# OpenMP thread, and OMP_THREAD_LIMIT=1 keeps the model's load (on workers x threads OpenMP
# threads otherwise) on the main thread. Small windows, so that the workers' threads (kept for
# the whole input, pipeline/worker_team.h) run many of them. The output must equal the
# single-threaded one.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DS2S_SANITIZE=thread \
  -DS2S_BUILD_BENCH=OFF -DS2S_BUILD_TESTS=OFF > /dev/null
cmake --build build-tsan -j2 --target s2s_cli
tsan_input=$(mktemp)
trap 'rm -f "$tsan_input"' EXIT
for i in $(seq 1 30); do
  printf 'Line %d: the licence is free and you may copy the program.\n\n' "$i"
done > "$tsan_input"
for m in tests/data/models/marian-postnorm-swish-tiedall "$model"; do
  expected=$(./build/s2s translate -m "$m" -b 2 --threads 1 < "$tsan_input")
  actual=$(OMP_THREAD_LIMIT=1 TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$PWD/.ci/tsan.supp" \
    ./build-tsan/s2s translate -m "$m" -b 2 --workers 2 --threads 1 --batch-size 2 \
      --maxi-batch 8 < "$tsan_input")
  [ "$expected" = "$actual" ] || { echo "TSan build: --workers 2 changed the output ($m)"; exit 1; }
done
echo "sanitizers: test suite under ASan/UBSan, valgrind runs and the ThreadSanitizer translate passed"
