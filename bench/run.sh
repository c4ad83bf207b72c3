#!/bin/bash
# bench/run.sh [MODEL_DIR]: the benchmark table of bench/README.md.
#
# Generates the Transformer-base-sized random model if MODEL_DIR (default /tmp/s2s-bench-model)
# has none, builds s2s_bench if needed (Release, in build-bench/, -j2), then runs float32, int8 and
# bfloat16 x greedy and beam 4 x 1 and 2 threads on it, and the same on the shipped default model
# models/en-de (end-to-end speed of what users run first).
# One process per configuration, strictly one after another: on a 2-core machine, two OpenMP
# processes side by side slow each other down far more than 2x.
#
# Environment: S2S_BENCH_BUILD (build folder), S2S_BENCH_SENTENCES (default MODEL_DIR/sentences.txt),
# S2S_BENCH_MAX_SENTENCES (default 500), S2S_BENCH_BATCH (default 32), S2S_BENCH_DEFAULT=0 (skip
# the default model), S2S_BENCH_PRECISIONS (default "float32 int8 bfloat16").
# After the batch-32 table of the bench model: single-sentence rows (batch 1, greedy), then beam 4
# at a realistic output length (1.1 x the source) for peak memory.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODEL=${1:-/tmp/s2s-bench-model}
BUILD=${S2S_BENCH_BUILD:-$ROOT/build-bench}
SENTENCES=${S2S_BENCH_SENTENCES:-$MODEL/sentences.txt}
MAX=${S2S_BENCH_MAX_SENTENCES:-500}
BATCH=${S2S_BENCH_BATCH:-32}
DEFAULT=${S2S_BENCH_DEFAULT:-1}
PRECISIONS=${S2S_BENCH_PRECISIONS:-float32 int8 bfloat16}

if [ ! -f "$MODEL/opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz" ] ||
   [ ! -f "$MODEL/sentences.txt" ]; then
  echo "# generating the bench model in $MODEL" >&2
  /usr/bin/python3 "$ROOT/tools/fixtures/make_bench_model.py" "$MODEL" >&2
fi

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DS2S_BUILD_TESTS=OFF >&2
fi
cmake --build "$BUILD" --target s2s_bench -j2 >&2
BENCH="$BUILD/bench/s2s_bench"

commit() {  # the checkout's commit, or '?' (e.g. a `git archive` copy inside another repository)
  if [ "$(git -C "$ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$ROOT" ]; then
    git -C "$ROOT" rev-parse --short HEAD
  else
    echo '?'
  fi
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
     "git $(commit), load average $(cut -d' ' -f1-3 /proc/loadavg)"

header=--header
run() {  # label model precision beam threads [batch [max-sentences [max-length-factor]]]
  "$BENCH" "$2" "$SENTENCES" --label "$1" --precision "$3" --beam-size "$4" --threads "$5" \
    --batch-size "${6:-$BATCH}" --max-sentences "${7:-$MAX}" --max-length-factor "${8:-3}" $header
  header=
}

table() {  # label model
  for precision in $PRECISIONS; do
    for beam in 1 4; do
      for threads in 1 2; do
        run "$1" "$2" "$precision" "$beam" "$threads"
      done
    done
  done
}

table base-random "$MODEL"
# Single-sentence latency: greedy, one sentence per batch, the first 12 sentences, 1 and 2 threads
# (all weights are streamed from memory once per token: the memory-bound case).
for precision in $PRECISIONS; do
  for threads in 1 2; do
    run base-random-single "$MODEL" "$precision" 1 "$threads" 1 12
  done
done
# Memory at a realistic output length: the bench model never stops before the length limit, so
# with the default factor 3 every hypothesis runs to 3 x its source (the worst case for the
# caches). Real translations are about as long as their source: factor 1.1, beam 4, 2 threads.
for precision in $PRECISIONS; do
  run base-random-1.1x "$MODEL" "$precision" 4 2 "$BATCH" "$MAX" 1.1
done
if [ "$DEFAULT" != 0 ]; then
  table en-de "$ROOT/models/en-de"
fi
echo "# done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
