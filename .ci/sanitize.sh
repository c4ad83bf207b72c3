#!/usr/bin/env bash
# The sanitizer stage of CI. What each tool covers:
# - ASan + UBSan: the unit and CLI tests (a second build directory), without the tests that
#   repeat the same code at volume or against many goldens (listed below; the Release suite runs
#   them all).
# - valgrind memcheck: one translate and one score with the Release binary of build/ (the code as
#   shipped, -O3, which the sanitizer build does not see).
# - ThreadSanitizer: the code that starts threads of its own: the corpus workers (--workers 2 on
#   a shared model), threaded translation inside a worker's window, and the server's request
#   queue and engine workers (`s2s serve`, concurrent requests). A third build directory, the CLI
#   only.
# Needs: the packages .ci/run installs (valgrind, python3). docs/ci.md lists the stages.
set -euo pipefail
cd "$(dirname "$0")/.."

step_start=$SECONDS
step() { echo "sanitize: $1: $((SECONDS - step_start)) s"; step_start=$SECONDS; }

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# -O1, as the sanitizers' documentation advises: the suite runs several times faster than at -O0.
# -g1 (line tables): reports keep file and line; full debug info only slows the compile and link.
# -UNDEBUG: the Release build type defines NDEBUG; the library's headers keep their asserts here.
# UBSan without null (ASan reports the access), object-size (ASan checks every access's bounds) and
# alignment (x86 reads misaligned scalars; a misaligned vector load faults in the Release suite
# too): those three instrument nearly every access and made the build twice as slow.
# These flags go to the instrumented targets only (S2S_SANITIZE_OPTIONS, where -Werror is off too:
# CMakeLists.txt says why). The build type and the rest are the Release build's, so the Catch2
# sources, not instrumented, compile with the same command as in build/ and ccache (.ci/run)
# hands their objects over instead of compiling them again.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DS2S_SANITIZE_OPTIONS="-O1;-g1;-UNDEBUG" \
  -DS2S_SANITIZE=address,undefined -DS2S_NO_SANITIZE=null,alignment,object-size \
  -DS2S_BUILD_BENCH=OFF -DS2S_WERROR=ON > /dev/null
cmake --build build-asan -j2
step "ASan/UBSan build"
# Left out here, run by the Release suite only:
# - resume_loop and score_resume_loop: kill and resume the CLI at random points and compare
#   bytes (test_resume.cc and test_score_resume.cc keep the resume paths under ASan;
#   interrupt_loop, with fewer rounds in a sanitizer build, the signal paths);
# - volume: a 1 MB line, the suites of software strings (protect/html), output invariance over
#   many batchings and thread counts, memory growth (which the sanitizer's allocator distorts);
# - the same code against many goldens or runs: constrained beam search and target prefixes
#   against the reference (the constraint-state and no-constraint tests and the prefix option
#   tests stay), --dedup against a plain run (--dedup with shards stays), shards concatenated
#   against the whole run (the shard-range tests stay);
# - the server's two timing tests (requests sharing one batch, SIGTERM under load), which count
#   on response times the sanitizers stretch; the other server tests run here.
volume='^((score_)?resume_loop|protect_keeps_spans|html_keeps_tags)$'
volume+='|a 1 MB line|never change the output|whatever the batching|memory stays flat'
volume+='|constrained beam search matches the reference|with a target prefix match the reference'
volume+='|writes what a run without it writes|shards concatenated equal the whole run'
volume+='|share batches|SIGTERM under load'
ctest --test-dir build-asan --output-on-failure -j2 -E "$volume"
step "ASan/UBSan suite"

# valgrind on the Release binary of the README's build (build/): every error is fatal.
model=models/en-de
printf 'The licence is free.\n\nYou may copy the program.\n' |
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    ./build/s2s translate -m "$model" -b 4 --threads 1 > /dev/null
printf 'The licence is free.\tDie Lizenz ist frei.\n' |
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    ./build/s2s score -m "$model" --threads 1 > /dev/null
step "valgrind translate and score"

# ThreadSanitizer. libgomp is not built with TSan: its barriers are invisible to TSan, so OpenMP
# threads would be reported as races (false positives). So each worker runs one OpenMP thread,
# and OMP_THREAD_LIMIT=1 keeps the model's load (on workers x threads OpenMP threads otherwise)
# on the main thread. The threads checked are s2s's own (std::thread).
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Release -DS2S_SANITIZE=thread \
  -DS2S_SANITIZE_OPTIONS="-O1;-g1;-UNDEBUG" -DS2S_BUILD_BENCH=OFF -DS2S_BUILD_TESTS=OFF > /dev/null
cmake --build build-tsan -j2 --target s2s_cli
step "TSan build"
export OMP_THREAD_LIMIT=1
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$PWD/.ci/tsan.supp"
tsan_input=$(mktemp)
trap 'rm -f "$tsan_input"' EXIT
for i in $(seq 1 30); do
  printf 'Line %d: the licence is free and you may copy the program.\n\n' "$i"
done > "$tsan_input"
# Corpus workers: --workers 2 translates two parts of the input at once on one shared model.
# Small windows, so that the workers' threads (kept for the whole input, pipeline/worker_team.h)
# run many of them. The output must equal the single-threaded one.
for m in tests/data/models/marian-postnorm-swish-tiedall "$model"; do
  expected=$(./build/s2s translate -m "$m" -b 2 --threads 1 < "$tsan_input")
  actual=$(./build-tsan/s2s translate -m "$m" -b 2 --workers 2 --threads 1 --batch-size 2 \
    --maxi-batch 8 < "$tsan_input")
  [ "$expected" = "$actual" ] || { echo "TSan build: --workers 2 changed the output ($m)"; exit 1; }
done
step "TSan corpus workers"
# The server: clients send requests at once, the queue groups them into batches for two engine
# workers; each answer must equal the CLI's translation of its text.
bash .ci/tsan_serve.sh ./build-tsan/s2s ./build/s2s tests/data/models/marian-postnorm-swish-tiedall
step "TSan server"
echo "sanitizers: ASan/UBSan suite, valgrind runs and the ThreadSanitizer runs passed"
