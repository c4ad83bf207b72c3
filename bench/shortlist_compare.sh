#!/usr/bin/env bash
# Decode time (s2s_bench total_s, best of ROUNDS) of two s2s builds, alternating, with and without
# a shortlist (docs/performance.md, "Shortlists"):
#   bench/shortlist_compare.sh OLD_BUILD NEW_BUILD [ROUNDS]
# Table A's model and lines (MODEL_A, bench/README.md) with bench/synthetic_shortlist.py's lists in
# SHORTLIST_A [/tmp/base-sl/lex.s2t]; Table C's model (a folder of links to it with the synthetic
# vmap.txt, MODEL_C_VMAP [/tmp/nllb-vmap]; its rows are left out when it is missing). Run nothing
# else meanwhile.
set -euo pipefail
old=$1 new=$2 rounds=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
A=${MODEL_A:-/tmp/s2s-bench-model} C=${MODEL_C_VMAP:-/tmp/nllb-vmap}
SL=${SHORTLIST_A:-/tmp/base-sl/lex.s2t}
W=$(mktemp -d /tmp/s2s-shortlist-compare.XXXXXX)
[ -f "$SL" ] || /usr/bin/python3 "$here/synthetic_shortlist.py" --vocab "$(ls "$A"/*vocab.yml | head -1)" --out "$(dirname "$SL")"
[ -f $W/A.txt ] || /usr/bin/python3 "$here/fixed_length_input.py" --spm $A/source.spm \
  --sentences $A/sentences.txt --text $W/A.txt --pieces $W/A.sp --lines 128 --length 28 > /dev/null
[ ! -f $C/vmap.txt ] || [ -f $W/C.txt ] || /usr/bin/python3 "$here/fixed_length_input.py" --spm $C/sentencepiece.bpe.model \
  --sentences ${SENTENCES_C:-/tmp/nllb-bench/sentences.txt} --text $W/C.txt --pieces $W/C.sp --lines 16 --length 20 > /dev/null
echo "# $(date -u '+%F %H:%M') $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-9s %-6s %-4s %8s %8s %7s  %s\n' model precision search sl old_s new_s new/old rounds
run() {  # label model input precision beam sl extra...
  local l=$1 m=$2 in=$3 p=$4 b=$5 sl=$6; shift 6
  local o=() n=()
  for r in $(seq 1 "$rounds"); do
    for which in old new; do
      local bin=$old/bench/s2s_bench; [ $which = new ] && bin=$new/bench/s2s_bench
      local t=$("$bin" "$m" "$in" --precision "$p" --beam-size "$b" --threads 2 --batch-size 32 \
        --gemm-size 64 --gemm-seconds 0 --header --sentence-split off --protect off --short-translations off "$@" |
        awk 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i} NR == 2 {print $c["total_s"]}')
      if [ $which = old ]; then o+=("$t"); else n+=("$t"); fi
    done
  done
  local mo=$(printf '%s\n' "${o[@]}" | sort -g | head -1) mn=$(printf '%s\n' "${n[@]}" | sort -g | head -1)
  printf '%-5s %-9s %-6s %-4s %8s %8s %7.3f  old %s new %s\n' "$l" "$p" "beam$b" "$sl" "$mo" "$mn" \
    "$(echo "$mn / $mo" | bc -l)" "${o[*]}" "${n[*]}"
}
for p in float32 int8 bfloat16; do
  for b in 1 4; do
    run A $A $W/A.txt $p $b no --max-length-factor 3 --shortlist off
    run A $A $W/A.txt $p $b yes --max-length-factor 3 --shortlist "$SL" --shortlist 50 --shortlist 50
  done
done
[ -f $C/vmap.txt ] || exit 0
for p in float32 int8; do
  run C $C $W/C.txt $p 4 no --max-length-factor 3 --source-lang eng_Latn --target-lang deu_Latn --shortlist off
  run C $C $W/C.txt $p 4 yes --max-length-factor 3 --source-lang eng_Latn --target-lang deu_Latn
done
