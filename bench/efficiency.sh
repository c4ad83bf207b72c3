#!/bin/bash
# How much of a decode is the matrix products the model needs: Table A's decode-only rows
# (bench/peers.sh's input, no CTranslate2 needed) as a share of both cores' matmul rate.
#
#   S2S_BUILD=build bash bench/efficiency.sh
#
# First the capacity per precision: bench/matmul_bench --threads 1 --rows 128, the mean over its
# default shapes, times the cores (as bench/peers.sh's eff% column). Then, per precision, search
# and mode (--threads 2; --workers 2 --threads 1), the best of ROUNDS s2s_bench runs: decode
# seconds, target tokens/s and eff% = counted multiply-adds / seconds / capacity.
# Environment: S2S_BUILD [build], MODEL_A [/tmp/s2s-bench-model], LINES [128], ROUNDS [2],
#   PRECISIONS ["int8 bfloat16 float32"], SEARCHES ["1 4"] (beam sizes), WORK [a new temp folder].
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
S2S_BUILD=${S2S_BUILD:-$ROOT/build}
MODEL_A=${MODEL_A:-/tmp/s2s-bench-model}
LINES=${LINES:-128} ROUNDS=${ROUNDS:-2}
PRECISIONS=${PRECISIONS:-int8 bfloat16 float32} SEARCHES=${SEARCHES:-1 4}
WORK=${WORK:-$(mktemp -d /tmp/s2s-efficiency.XXXXXX)}
BENCH=$S2S_BUILD/bench/s2s_bench
die() { echo "bench/efficiency.sh: $*" >&2; exit 1; }
if [ ! -x "$BENCH" ] || [ ! -x "$S2S_BUILD/bench/matmul_bench" ]; then
  die "no s2s_bench/matmul_bench in $S2S_BUILD/bench: build them (cmake --build $S2S_BUILD)"
fi
[ -f "$MODEL_A/source.spm" ] ||
  die "no bench model in $MODEL_A: /usr/bin/python3 tools/fixtures/make_bench_model.py $MODEL_A"

# Table A's lines: fixed length, so every engine and build does the same work.
/usr/bin/python3 "$ROOT/bench/fixed_length_input.py" --spm "$MODEL_A/source.spm" \
  --sentences "$MODEL_A/sentences.txt" --text "$WORK/A.txt" --pieces "$WORK/A.sp" \
  --lines "$LINES" --length 28 2>&1 | sed 's/^/# /'
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) cores"

declare -A CAPACITY
for prec in $PRECISIONS; do
  CAPACITY[$prec]=$("$S2S_BUILD/bench/matmul_bench" --threads 1 --rows 128 --precisions "$prec" 2>/dev/null |
    awk -v cores="$(nproc)" '$3 == 128 {s += $5; n++} END {if (n) printf "%.1f", cores * s / n}')
  echo "# matmul capacity $prec: ${CAPACITY[$prec]} G multiply-adds/s on $(nproc) cores"
done

S2S_AS_CT2=(--sentence-split off --protect off --short-translations off)
printf '%-9s %-5s %-24s %9s %8s %5s\n' precision beam mode decode_s tok/s eff%
for prec in $PRECISIONS; do
  for beam in $SEARCHES; do
    for mode in "--threads 2" "--workers 2 --threads 1"; do
      best='' gflop='' tokens=''
      for _ in $(seq "$ROUNDS"); do
        # shellcheck disable=SC2086  # $mode is two or four words
        read -r seconds tokens gflop < <("$BENCH" "$MODEL_A" "$WORK/A.txt" --precision "$prec" \
          --beam-size "$beam" $mode --batch-size 32 --gemm-size 64 --gemm-seconds 0 \
          "${S2S_AS_CT2[@]}" --header |
          awk 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i}
               NR == 2 {print $col["total_s"], $col["tgt_tok"], $col["GFLOP"]}')
        if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$seconds; fi
      done
      awk -v p="$prec" -v b="$beam" -v m="$mode" -v t="$best" -v n="$tokens" -v g="$gflop" \
        -v c="${CAPACITY[$prec]}" 'BEGIN {printf "%-9s %-5d %-24s %9.2f %8.0f %5.0f\n", p, b, m, t, n / t, 100 * g / 2 / t / c}'
    done
  done
done
