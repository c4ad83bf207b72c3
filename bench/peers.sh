#!/bin/bash
# bench/peers.sh: s2s against CTranslate2 (CT2) on the same machine, model, input and work, one
# process at a time (bench/README.md, "bench/peers.sh: against CTranslate2").
#
# Table A, base-random (random Transformer-base, </s> unreachable): LINES lines of exactly 28
#   SentencePiece pieces (bench/fixed_length_input.py), batch 32, so that s2s with
#   --max-length-factor 3 and CT2 with --max_decoding_length 87 both decode exactly 87 tokens per
#   line: target tokens = LINES x 87. Precisions float32, int8, bfloat16 (s2s only: this CT2 build
#   has none on CPU), greedy and beam 4.
# Table B, en-de (the shipped model, real translations): beam 4, batch 32, float32 and int8, on
#   the bench sentences that end with </s> in both engines. One preparatory beam-4 float32 run of
#   each engine (2 threads) on the first B_CANDIDATES sentences (s2s: its default length limit;
#   CT2: --max_decoding_length 256); a line is kept when its best hypothesis is shorter than
#   3 x its source pieces (</s> not counted) in both engines, and in s2s ends with </s>; the first
#   LINES kept lines are the input. Target tokens (the same for both engines and precisions): CT2's
#   float32 output pieces + 1 (</s>) per line, from the preparatory run.
# Table C, nllb-600M-random (NLLB-200-distilled-600M's shape with random weights, </s> unreachable;
#   tools/fixtures/make_nllb_bench_model.py, converted by make_m2m100_ct2_fixtures.py's
#   convert): both engines load the same CTranslate2 folder. LINES_C lines of exactly 20 pieces;
#   s2s reads the text with --source-lang eng_Latn --target-lang deu_Latn, CT2 the pieces as
#   "eng_Latn pieces </s>" with the target prefix deu_Latn (--tgt): both run C_LENGTH = 3 x 22 =
#   66 decoder steps a line, the forced deu_Latn first (tgt_tok counts the steps). float32 and
#   int8 of PRECISIONS, beam 4, MODES_C.
# Table S, base-random with a shortlist: table A's lines, model and searches, float32 and int8,
#   2threads, with a synthetic shortlist of Bergamot's size (bench/synthetic_shortlist.py: first
#   50, best 50) given to s2s as Marian's lex.s2t and to CT2 as the same lists in vmap.txt
#   (--use_vmap, in a folder of links to CT2_MODEL_A's files). Its random lists are a pessimistic
#   case: real lists share their frequent targets, so a batch's candidates are fewer.
# Table L, lone sentences: LINES_L lines of table A's input (base-random) and of the bench
#   sentences (en-de), one at a time, each answered before the next is sent (bench/latency.py:
#   s2s through a pipe; CT2 through its Python API, one translate_batch call a sentence, as it has
#   no per-line mode), greedy and beam 4, float32 and int8 of PRECISIONS, 2 threads: p50 and p99
#   per sentence. Needs CT2's Python module on PYTHONPATH (CT2_PYTHON).
# All tables: two parallelism modes, "2threads" (one process: s2s --threads 2, CT2
#   --intra_threads 2 --inter_threads 1) and "2workers" (s2s --workers 2 --threads 1, CT2
#   --inter_threads 2 --intra_threads 1). Each run is timed as a whole process by /usr/bin/time
#   (wall, CPU %, peak RSS); ROUNDS rounds alternate s2s, CT2, s2s, CT2, ... and the rows show
#   medians. Decode-only rows: s2s_bench in the same mode (load excluded) and
#   the rate CT2 prints with --log_throughput (time from reading the input to the last output,
#   load excluded), both converted to the same target tokens as the whole-process rows. Their
#   eff% column: the matrix products s2s_bench counts for that work (ops::flop_counter, the same
#   work for both engines) done in that time, as a share of both cores' matmul rate in that
#   precision (bench/matmul_bench --threads 1 --rows 128, the mean over its default shapes, x 2
#   cores; measured first, printed at the top).
# s2s's --precision int8 / bfloat16 refuse to run on CPUs without VNNI / AVX512-BF16: such rows
# say "unsupported" (found by running s2s on one line).
#
# Environment (defaults in brackets):
#   CT2_PREFIX [/work/ct2/prefix]  CT2 install (bin/ct2-translator, lib/), built as bench/README.md says
#   CT2_MODELS [/work/ct2/models]  converted models: CT2_MODEL_A [$CT2_MODELS/base-random],
#                                  CT2_MODEL_B [$CT2_MODELS/en-de]
#   CT2_SRC [/work/ct2/src/CTranslate2]  CT2 source tree (only to print its commit)
#   S2S_BUILD [<repo>/build]       s2s build folder (s2s and bench/s2s_bench)
#   MODEL_A [/tmp/s2s-bench-model] s2s bench model (bench/run.sh generates it); SENTENCES
#                                  [$MODEL_A/sentences.txt]
#   MODEL_B [<repo>/models/en-de]  the shipped model
#   LINES [128]  ROUNDS [3]  TABLES ["A B"]  PRECISIONS ["float32 int8 bfloat16"] (table B uses
#   float32 and int8 of them)  SEARCHES ["greedy beam4"] (table A; B is beam 4)
#   MODES ["2threads 2workers"]  B_CANDIDATES [2 x LINES]  WORK [a new /tmp/s2s-peers.XXXXXX]
#   MODEL_C [/tmp/nllb-bench-ct2] (also CT2_MODEL_C)  SENTENCES_C [/tmp/nllb-bench/sentences.txt]
#   LINES_C [16]  MODES_C ["2threads"] (2workers would load CT2's 2.5 GB model twice)
#   LINES_L [40]  CT2_PYTHON [/work/ct2/pymod] (table L)
# Run nothing else meanwhile (bench/README.md): a 2-thread run well under 200 % CPU was disturbed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PEERS_DOC="bench/README.md (\"CTranslate2 for the comparison\")"
CT2_PREFIX=${CT2_PREFIX:-/work/ct2/prefix}
CT2_MODELS=${CT2_MODELS:-/work/ct2/models}
CT2_MODEL_A=${CT2_MODEL_A:-$CT2_MODELS/base-random}
CT2_MODEL_B=${CT2_MODEL_B:-$CT2_MODELS/en-de}
MODEL_C=${MODEL_C:-/tmp/nllb-bench-ct2}
CT2_MODEL_C=${CT2_MODEL_C:-$MODEL_C}
SENTENCES_C=${SENTENCES_C:-/tmp/nllb-bench/sentences.txt}
LINES_C=${LINES_C:-16}
MODES_C=${MODES_C:-2threads}
LINES_L=${LINES_L:-40}
CT2_PYTHON=${CT2_PYTHON:-/work/ct2/pymod}
CT2_SRC=${CT2_SRC:-/work/ct2/src/CTranslate2}
S2S_BUILD=${S2S_BUILD:-$ROOT/build}
MODEL_A=${MODEL_A:-/tmp/s2s-bench-model}
MODEL_B=${MODEL_B:-$ROOT/models/en-de}
SENTENCES=${SENTENCES:-$MODEL_A/sentences.txt}
LINES=${LINES:-128}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-A B}
PRECISIONS=${PRECISIONS:-float32 int8 bfloat16}
SEARCHES=${SEARCHES:-greedy beam4}
MODES=${MODES:-2threads 2workers}
B_CANDIDATES=${B_CANDIDATES:-$((2 * LINES))}
BATCH=32
PIECES=28                            # source pieces per line of table A, </s> not counted
A_LENGTH=$((3 * (PIECES + 1)))       # ceil(3 x 29) = 87 target tokens per line
B_LIMIT=256                          # CT2's generous limit for table B (s2s's --max-length)
PIECES_C=20                          # source pieces per line of table C, language and </s> not counted
C_LENGTH=$((3 * (PIECES_C + 2)))     # 66 decoder steps a line: eng_Latn + 20 + </s>, times 3
PY=/usr/bin/python3
# CT2 translates each line as one unit and checks nothing: s2s does the same work with its
# real-text handling (docs/real-text.md) off, in every s2s and s2s_bench run below.
S2S_AS_CT2=(--sentence-split off --protect off --short-translations off)

S2S=$S2S_BUILD/s2s
S2S_BENCH=$S2S_BUILD/bench/s2s_bench
CT2=$CT2_PREFIX/bin/ct2-translator
export LD_LIBRARY_PATH=$CT2_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

die() { echo "bench/peers.sh: $*" >&2; exit 1; }

# --- checks --------------------------------------------------------------------------------------
[ -x "$CT2" ] || die "no ct2-translator at $CT2: build CTranslate2 4.8.1 outside the repository as $PEERS_DOC says, and set CT2_PREFIX"
for t in $TABLES; do
  case $t in
    A) m=$CT2_MODEL_A ;;
    B) m=$CT2_MODEL_B ;;
    C) m=$CT2_MODEL_C ;;
    S) m=$CT2_MODEL_A ;;
    L) m=$CT2_MODEL_B; [ -f "$CT2_MODEL_A/model.bin" ] || die "no converted CT2 model in $CT2_MODEL_A" ;;
    *) die "TABLES: unknown table '$t' (A, B, C, S or L)" ;;
  esac
  [ -f "$m/model.bin" ] || die "no converted CT2 model in $m (model.bin): convert it as $PEERS_DOC says, and set CT2_MODELS"
done
[ -x "$S2S" ] || die "no s2s binary at $S2S: build s2s and set S2S_BUILD"
[ -x "$S2S_BENCH" ] || die "no s2s_bench at $S2S_BENCH: build the s2s_bench target and set S2S_BUILD"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package 'time')"
"$PY" -c 'import sentencepiece' 2>/dev/null || die "$PY cannot import sentencepiece (Debian package python3-sentencepiece)"
case " $TABLES " in *" A "* | *" S "* | *" L "*)
  [ -f "$MODEL_A/source.spm" ] && [ -f "$MODEL_A/decoder.yml" ] ||
    die "no s2s bench model in $MODEL_A: generate it with /usr/bin/python3 tools/fixtures/make_bench_model.py $MODEL_A (or run bench/run.sh once)" ;;
esac
case " $TABLES " in *" L "*)
  PYTHONPATH=$CT2_PYTHON${PYTHONPATH:+:$PYTHONPATH} "$PY" -c 'import ctranslate2' 2>/dev/null ||
    die "table L: $PY cannot import ctranslate2 from CT2_PYTHON=$CT2_PYTHON (bench/README.md)" ;;
esac
case " $TABLES " in *" B "* | *" L "*)
  [ -f "$MODEL_B/source.spm" ] || die "no model in $MODEL_B (MODEL_B)" ;;
esac
case " $TABLES " in *" C "*)
  [ -f "$MODEL_C/model.bin" ] && [ -f "$SENTENCES_C" ] ||
    die "no table C model in $MODEL_C or sentences $SENTENCES_C: make them as bench/README.md (\"Table C\") says" ;;
esac
[ -f "$SENTENCES" ] || die "no sentences file $SENTENCES (SENTENCES)"

WORK=${WORK:-$(mktemp -d /tmp/s2s-peers.XXXXXX)}
mkdir -p "$WORK"
RESULTS=$WORK/results.tsv
: > "$RESULTS"

# --- machine and versions ------------------------------------------------------------------------
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
        grep -x -E 'avx2|avx512f|avx512_vnni|avx512_bf16|avx_vnni|amx_bf16|amx_int8' | xargs)
s2s_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$S2S_BUILD/CMakeCache.txt" 2>/dev/null || true)
s2s_commit='?'
if [ -n "$s2s_src" ] && git -C "$s2s_src" rev-parse --short HEAD >/dev/null 2>&1; then
  s2s_commit=$(git -C "$s2s_src" rev-parse --short HEAD)
  [ -z "$(git -C "$s2s_src" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
    s2s_commit="$s2s_commit + uncommitted changes"
fi
ct2_lib=$(basename "$(readlink -f "$CT2_PREFIX/lib/libctranslate2.so")")
ct2_commit='?'
git -C "$CT2_SRC" rev-parse --short HEAD >/dev/null 2>&1 &&
  ct2_commit="$(git -C "$CT2_SRC" describe --tags --always 2>/dev/null) $(git -C "$CT2_SRC" rev-parse --short HEAD)"
dnnl=$(dpkg-query -W -f '${Version}' libdnnl2 2>/dev/null || echo '?')
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# CPU flags: ${flags:-none of avx2/avx512f/avx512_vnni/avx512_bf16/avx_vnni}"
busy() {  # share of all cores busy over one second (/proc/stat: every process, seen or not)
  local a b
  read -r -a a < /proc/stat
  sleep 1
  read -r -a b < /proc/stat
  awk -v u=$(( b[1] + b[2] + b[3] - a[1] - a[2] - a[3] )) \
      -v t=$(( b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + b[7] - a[1] - a[2] - a[3] - a[4] - a[5] - a[6] - a[7] )) \
      -v n="$(nproc)" 'BEGIN {printf "%.0f %% of %d cores busy", t ? 100 * n * u / t : 0, n}'
}
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(busy) over the last second"
echo "# s2s: $("$S2S" --version 2>&1 | head -1), $S2S built $(date -u -r "$S2S" '+%Y-%m-%d %H:%M UTC') from ${s2s_src:-?} at $s2s_commit"
echo "# CT2: $ct2_lib ($CT2), source $ct2_commit; oneDNN (Debian libdnnl2) $dnnl"
echo "# LINES=$LINES ROUNDS=$ROUNDS TABLES='$TABLES' PRECISIONS='$PRECISIONS' SEARCHES='$SEARCHES' MODES='$MODES' LINES_C=$LINES_C MODES_C='$MODES_C' LINES_L=$LINES_L; files in $WORK"

# Both cores' matmul rate per precision (G multiply-adds/s), for the eff% column.
declare -A CAPACITY
for prec in $PRECISIONS; do
  rate=$("$S2S_BUILD/bench/matmul_bench" --threads 1 --rows 128 --precisions "$prec" 2>/dev/null |
         awk -v cores="$(nproc)" '$3 == 128 {s += $5; n++} END {if (n) printf "%.1f", cores * s / n}')
  [ -n "$rate" ] && CAPACITY[$prec]=$rate &&
    echo "# matmul capacity $prec: $rate G multiply-adds/s on $(nproc) cores (bench/matmul_bench --threads 1 --rows 128, mean of its shapes)"
done

# --- helpers -------------------------------------------------------------------------------------
median() {  # numbers... -> their median
  printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {
    if (NR % 2) printf "%.3f\n", a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# timed PREFIX CMD...: runs CMD under /usr/bin/time; PREFIX.time gets "wall cpu% peak_KB" (last
# line), PREFIX.err the command's stderr. Returns the command's exit status.
timed() {
  local prefix=$1
  shift
  local rc=0
  /usr/bin/time -f '%e %P %M' -o "$prefix.time" "$@" 2> "$prefix.err" || rc=$?
  return $rc
}

failed() {  # PREFIX what: stops with the command's last stderr lines
  echo "bench/peers.sh: $2 failed; its stderr ($1.err) ends with:" >&2
  tail -5 "$1.err" >&2
  exit 1
}

check_lines() {  # FILE what: FILE must have LINES_NOW lines
  local n
  n=$(wc -l < "$1")
  [ "$n" = "$LINES_NOW" ] || die "$2 wrote $n lines, $LINES_NOW expected ($1)"
}

printf '%-5s %-11s %-8s %-6s %-8s %-10s %5s %8s %8s %8s %5s %8s %5s  %s\n' \
  table model prec search mode engine lines tgt_tok wall_s tok/s cpu% peak_MB eff% rounds_s
# table model prec search mode engine tgt_tok wall cpu peak rounds [eff]: prints and records
row() {
  local tps='-'
  case $8 in [0-9]*) tps=$(awk -v t="$7" -v w="$8" 'BEGIN {printf "%.1f", t / w}') ;; esac
  printf '%-5s %-11s %-8s %-6s %-8s %-10s %5s %8s %8s %8s %5s %8s %5s  %s\n' \
    "$1" "$2" "$3" "$4" "$5" "$6" "$LINES_NOW" "$7" "$8" "$tps" "$9" "${10}" "${12:--}" "${11}"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$3" "$4" "$5" "$6" "$7" "$8" "$tps" >> "$RESULTS"
}

declare -A S2S_OK  # "table precision" -> 1 (runs) or the refusal message
probe_s2s() {  # table model precision: can s2s run this precision on this CPU?
  local key="$1 $3" p=$WORK/probe.$1.$3
  [ -n "${S2S_OK[$key]:-}" ] && return
  head -1 "$IN_TEXT" > "$p.txt"
  if timed "$p" "$S2S" translate -m "$2" --precision "$3" --beam-size 1 --threads 1 -i "$p.txt" \
       -o "$p.out" --max-length-factor 0.5 --quiet "${S2S_LANGS[@]}"; then
    S2S_OK[$key]=1
  elif grep -q 'needs a CPU' "$p.err"; then
    S2S_OK[$key]=$(grep -m1 'needs a CPU' "$p.err")
    echo "# s2s --precision $3: unsupported here ($(grep -m1 -o 'needs a CPU[^;]*' "$p.err"))"
  else
    failed "$p" "s2s --precision $3 on one line"
  fi
}

# measure TABLE LABEL MODEL CT2_MODEL PRECISION SEARCH MODE TGT_TOK CT2_MAXLEN S2S_EXTRA...
# ROUNDS alternating whole-process runs of s2s and CT2 (then s2s_bench for the 2-thread mode);
# uses IN_TEXT (raw text), IN_PIECES (pieces), LINES_NOW, and the table's settings: CT2_EXTRA
# (more ct2-translator arguments), S2S_LANGS (language arguments of s2s, its probe and s2s_bench),
# CT2_PIECES (the pieces every CT2 output line must have; empty: any), BENCH_WORK ("src_tok
# tgt_tok" s2s_bench must report; empty: any). S2S_EXTRA goes to s2s_bench too.
measure() {
  local table=$1 label=$2 model=$3 ct2_model=$4 prec=$5 search=$6 mode=$7 tgt=$8 maxlen=$9
  shift 9
  local beam=1
  [ "$search" = beam4 ] && beam=4
  local s2s_par ct2_par
  case $mode in
    2threads) s2s_par=(--threads 2) ct2_par=(--intra_threads 2 --inter_threads 1) ;;
    2workers) s2s_par=(--workers 2 --threads 1) ct2_par=(--inter_threads 2 --intra_threads 1) ;;
    *) die "MODES: unknown mode '$mode' (2threads or 2workers)" ;;
  esac
  local s2s_cmd=("$S2S" translate -m "$model" -i "$IN_TEXT" --precision "$prec" --beam-size "$beam"
                 --normalize 0 --batch-size "$BATCH" "${s2s_par[@]}" --quiet "${S2S_AS_CT2[@]}" "${S2S_LANGS[@]}" "$@")
  local ct2_cmd=("$CT2" --model "$ct2_model" --src "$IN_PIECES" --beam_size "$beam"
                 --length_penalty 0 --disable_unk --batch_size "$BATCH" --read_batch_size 1000
                 --compute_type "$prec" "${ct2_par[@]}" --log_throughput
                 --max_decoding_length "$maxlen" "${CT2_EXTRA[@]}")
  local s2s_ok=1 ct2_ok=1
  probe_s2s "$table" "$model" "$prec"
  [ "${S2S_OK["$table $prec"]}" = 1 ] || s2s_ok=0
  [ "$prec" = bfloat16 ] && ct2_ok=0  # this CT2 build (no MKL) has no bfloat16 on CPU
  local r base s_wall=() s_cpu=() s_peak=() c_wall=() c_cpu=() c_peak=() c_dec=() b_dec=() b_cpu=() b_peak=()
  for r in $(seq 1 "$ROUNDS"); do
    base=$WORK/$table.$prec.$search.$mode.r$r
    if [ $s2s_ok = 1 ]; then
      [ $r = 1 ] && echo "# $table $prec $search $mode s2s: ${s2s_cmd[*]} -o OUT" > "$WORK/$table.$prec.$search.$mode.cmd"
      timed "$base.s2s" "${s2s_cmd[@]}" -o "$base.s2s.out" || failed "$base.s2s" "s2s"
      check_lines "$base.s2s.out" s2s
      read -r w c m < <(tail -1 "$base.s2s.time")
      s_wall+=("$w") s_cpu+=("${c%\%}") s_peak+=("$m")
    fi
    if [ $ct2_ok = 1 ]; then
      [ $r = 1 ] && echo "# $table $prec $search $mode ct2: ${ct2_cmd[*]} --out OUT" >> "$WORK/$table.$prec.$search.$mode.cmd"
      timed "$base.ct2" "${ct2_cmd[@]}" --out "$base.ct2.out" || failed "$base.ct2" "ct2-translator"
      check_lines "$base.ct2.out" ct2-translator
      if [ -n "$CT2_PIECES" ]; then
        awk -v n="$CT2_PIECES" 'NF != n {bad++} END {exit bad > 0}' "$base.ct2.out" ||
          die "ct2-translator: not every line of $base.ct2.out has $CT2_PIECES pieces"
      fi
      read -r w c m < <(tail -1 "$base.ct2.time")
      c_wall+=("$w") c_cpu+=("${c%\%}") c_peak+=("$m")
      # decode time = CT2's own output tokens (best hypotheses, no </s>) / its logged rate
      local own rate
      own=$(wc -w < "$base.ct2.out")
      rate=$(grep -E '^[0-9.]+(e[+-]?[0-9]+)?$' "$base.ct2.err" | tail -1)
      [ -n "$rate" ] || die "no --log_throughput figure in $base.ct2.err"
      c_dec+=("$(awk -v n="$own" -v r="$rate" 'BEGIN {printf "%.3f", n / r}')")
    fi
  done
  local tag=$search
  if [ $s2s_ok = 1 ]; then
    row "$table" "$label" "$prec" "$tag" "$mode" s2s "$tgt" "$(median "${s_wall[@]}")" \
      "$(median "${s_cpu[@]}" | cut -d. -f1)" "$(median "${s_peak[@]}" | awk '{printf "%.0f", $1 / 1024}')" \
      "$(IFS=/; echo "${s_wall[*]}")"
  else
    row "$table" "$label" "$prec" "$tag" "$mode" s2s "$tgt" unsupported - - "s2s refuses it on this CPU (above)"
  fi
  if [ $ct2_ok = 1 ]; then
    row "$table" "$label" "$prec" "$tag" "$mode" ct2 "$tgt" "$(median "${c_wall[@]}")" \
      "$(median "${c_cpu[@]}" | cut -d. -f1)" "$(median "${c_peak[@]}" | awk '{printf "%.0f", $1 / 1024}')" \
      "$(IFS=/; echo "${c_wall[*]}")"
  else
    row "$table" "$label" "$prec" "$tag" "$mode" ct2 "$tgt" n/a - - "this CT2 build has no bfloat16 on CPU"
  fi
  # s2s_bench: decode time without the load, in the same mode
  local gflop=
  if [ $s2s_ok = 1 ]; then
    for r in $(seq 1 "$ROUNDS"); do
      base=$WORK/$table.$prec.$search.$mode.r$r.bench
      timed "$base" "$S2S_BENCH" "$model" "$IN_TEXT" --label "$label" --precision "$prec" \
        --beam-size "$beam" "${s2s_par[@]}" --batch-size "$BATCH" \
        --max-sentences "$LINES_NOW" --gemm-size 64 --gemm-seconds 0 --header \
        "${S2S_AS_CT2[@]}" "${S2S_LANGS[@]}" "$@" > "$base.out" ||
        failed "$base" s2s_bench
      read -r total cpu peak src own gflop < <(awk 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i}
        NR == 2 {print $col["total_s"], $col["cpu%"], $col["peak_MB"], $col["src_tok"], $col["tgt_tok"], $col["GFLOP"]}' "$base.out")
      if [ -n "$BENCH_WORK" ]; then  # the work must be exactly what CT2 does
        [ "$src $own" = "$BENCH_WORK" ] ||
          die "s2s_bench: src_tok $src tgt_tok $own, expected $BENCH_WORK ($base.out)"
      fi
      b_dec+=("$total") b_cpu+=("$cpu") b_peak+=("$peak")
    done
    row "$table" "$label" "$prec" "$tag" "$mode" s2s:decode "$tgt" "$(median "${b_dec[@]}")" \
      "$(median "${b_cpu[@]}" | cut -d. -f1)" "$(median "${b_peak[@]}" | cut -d. -f1)" \
      "$(IFS=/; echo "${b_dec[*]}")" "$(efficiency "$gflop" "$(median "${b_dec[@]}")" "$prec")"
  fi
  if [ $ct2_ok = 1 ]; then
    row "$table" "$label" "$prec" "$tag" "$mode" ct2:decode "$tgt" "$(median "${c_dec[@]}")" - - \
      "$(IFS=/; echo "${c_dec[*]}")" "$(efficiency "$gflop" "$(median "${c_dec[@]}")" "$prec")"
  fi
}

efficiency() {  # GFLOP seconds precision: percent of both cores' matmul rate, or -
  local rate=${CAPACITY[$3]:-}
  if [ -z "$1" ] || [ -z "$rate" ]; then echo -; return; fi
  awk -v f="$1" -v t="$2" -v r="$rate" 'BEGIN {printf "%.0f", 100 * f / 2 / t / r}'
}

# --- table A: base-random, fixed-length lines ----------------------------------------------------
table_a_input() {  # table A's lines (also tables S and L): $WORK/A.txt and A.sp, once
  IN_TEXT=$WORK/A.txt IN_PIECES=$WORK/A.sp LINES_NOW=$LINES
  CT2_EXTRA=() S2S_LANGS=() CT2_PIECES=$A_LENGTH BENCH_WORK="$((LINES * (PIECES + 1))) $((LINES * A_LENGTH))"
  [ -f "$IN_TEXT" ] && return
  "$PY" "$ROOT/bench/fixed_length_input.py" --spm "$MODEL_A/source.spm" --sentences "$SENTENCES" \
    --text "$IN_TEXT" --pieces "$IN_PIECES" --lines "$LINES" --length "$PIECES" 2>&1 | sed 's/^/# /'
  [ "$(wc -l < "$IN_TEXT")" = "$LINES" ] || die "bench/fixed_length_input.py made no $LINES lines"
  echo "# table A: $LINES lines x $PIECES pieces (+ </s>), both engines decode $A_LENGTH tokens a line: tgt_tok $((LINES * A_LENGTH))"
}

if [[ " $TABLES " = *" A "* ]]; then
  table_a_input
  for prec in $PRECISIONS; do
    for search in $SEARCHES; do
      case $search in greedy | beam4) ;; *) die "SEARCHES: unknown search '$search' (greedy or beam4)" ;; esac
      for mode in $MODES; do
        measure A base-random "$MODEL_A" "$CT2_MODEL_A" "$prec" "$search" "$mode" \
          $((LINES * A_LENGTH)) "$A_LENGTH" --max-length-factor 3
      done
    done
  done
fi

# --- table S: table A with a synthetic shortlist ------------------------------------------------
if [[ " $TABLES " = *" S "* ]]; then
  table_a_input
  "$PY" "$ROOT/bench/synthetic_shortlist.py" --vocab "$(ls "$MODEL_A"/*vocab.yml | head -1)" \
    --out "$WORK/S.lists" | sed 's/^/# /'
  mkdir -p "$WORK/S.ct2"  # CT2 reads vmap.txt from the model folder
  for f in "$CT2_MODEL_A"/*; do ln -sf "$f" "$WORK/S.ct2/"; done
  ln -sf "$WORK/S.lists/vmap.txt" "$WORK/S.ct2/vmap.txt"
  CT2_EXTRA=(--use_vmap)
  echo "# table S: table A's lines with a synthetic shortlist (first 50, best 50): s2s --shortlist $WORK/S.lists/lex.s2t 50 50, CT2 --use_vmap"
  for prec in $PRECISIONS; do
    case $prec in float32 | int8) ;; *) continue ;; esac
    for search in $SEARCHES; do
      measure S base-random "$MODEL_A" "$WORK/S.ct2" "$prec" "$search" 2threads \
        $((LINES * A_LENGTH)) "$A_LENGTH" --max-length-factor 3 \
        --shortlist "$WORK/S.lists/lex.s2t" --shortlist 50 --shortlist 50
    done
  done
fi

# --- table B: en-de, lines that end with </s> in both engines ------------------------------------
if [[ " $TABLES " = *" B "* ]]; then
  head -n "$B_CANDIDATES" "$SENTENCES" | grep -v '^[[:space:]]*$' > "$WORK/B.cand.txt" || true
  "$PY" - "$MODEL_B/source.spm" "$WORK/B.cand.txt" "$WORK/B.cand.sp" <<'EOF'
import sys, sentencepiece
sp = sentencepiece.SentencePieceProcessor(model_file=sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as f, open(sys.argv[3], "w", encoding="utf-8") as out:
    for line in f.read().splitlines():
        out.write(" ".join(sp.encode(line, out_type=str)) + "\n")
EOF
  LINES_NOW=$(wc -l < "$WORK/B.cand.txt")
  p=$WORK/B.prep
  echo "# table B: preparatory beam-4 float32 runs (2 threads) on the first $LINES_NOW sentences of $SENTENCES"
  timed "$p.s2s" "$S2S" translate -m "$MODEL_B" -i "$WORK/B.cand.txt" -o "$p.s2s.jsonl" --format jsonl \
    --beam-size 4 --normalize 0 --batch-size "$BATCH" --threads 2 --quiet "${S2S_AS_CT2[@]}" || failed "$p.s2s" "s2s (table B preparation)"
  check_lines "$p.s2s.jsonl" s2s
  timed "$p.ct2" "$CT2" --model "$CT2_MODEL_B" --src "$WORK/B.cand.sp" --out "$p.ct2.sp" --beam_size 4 \
    --length_penalty 0 --disable_unk --batch_size "$BATCH" --read_batch_size 1000 --compute_type float32 \
    --intra_threads 2 --inter_threads 1 --max_decoding_length "$B_LIMIT" || failed "$p.ct2" "ct2-translator (table B preparation)"
  check_lines "$p.ct2.sp" ct2-translator
  kept= B_TGT= same=
  read -r kept B_TGT same < <("$PY" - "$WORK/B.cand.txt" "$WORK/B.cand.sp" "$p.s2s.jsonl" "$p.ct2.sp" \
      "$LINES" "$WORK/B.txt" "$WORK/B.sp" <<'EOF'
import json, sys
text, pieces, s2s, ct2 = (open(f, encoding="utf-8").read().splitlines() for f in sys.argv[1:5])
want = int(sys.argv[5])
kept = []
same = 0
for t, p, s, c in zip(text, pieces, s2s, ct2):
    src = len(p.split())
    tokens = json.loads(s)["tokens"]
    ended = bool(tokens) and tokens[-1] == "</s>"
    s_out = tokens[:-1] if ended else tokens
    c_out = c.split()
    if ended and len(s_out) < 3 * src and len(c_out) < 3 * src:
        kept.append((t, p, len(c_out) + 1))
        same += s_out == c_out
    if len(kept) == want:
        break
with open(sys.argv[6], "w", encoding="utf-8") as f:
    f.writelines(t + "\n" for t, _, _ in kept)
with open(sys.argv[7], "w", encoding="utf-8") as f:
    f.writelines(p + "\n" for _, p, _ in kept)
print(len(kept), sum(n for _, _, n in kept), same)
EOF
  )
  [ -n "$kept" ] || die "table B: selecting the lines failed"
  [ "$kept" -gt 0 ] || die "table B: no line ends with </s> in both engines"
  echo "# table B: kept $kept lines ($same of them with the same best hypothesis in both engines)"
  [ "$kept" = "$LINES" ] || echo "# table B: only $kept of $LINES lines qualify among the first $LINES_NOW sentences (set B_CANDIDATES higher)"
  IN_TEXT=$WORK/B.txt IN_PIECES=$WORK/B.sp LINES_NOW=$kept
  CT2_EXTRA=() S2S_LANGS=() CT2_PIECES= BENCH_WORK=
  echo "# table B: $kept lines, tgt_tok $B_TGT = CT2's float32 output pieces + 1 (</s>) a line, for both engines and precisions"
  for prec in $PRECISIONS; do
    case $prec in float32 | int8) ;; *) continue ;; esac
    for mode in $MODES; do
      measure B en-de "$MODEL_B" "$CT2_MODEL_B" "$prec" beam4 "$mode" "$B_TGT" "$B_LIMIT"
    done
  done
fi

# --- table C: NLLB-600M's shape, fixed-length lines, language tokens ----------------------------
if [[ " $TABLES " = *" C "* ]]; then
  IN_TEXT=$WORK/C.txt IN_PIECES=$WORK/C.sp LINES_NOW=$LINES_C
  "$PY" "$ROOT/bench/fixed_length_input.py" --spm "$MODEL_C/sentencepiece.bpe.model" \
    --sentences "$SENTENCES_C" --text "$IN_TEXT" --pieces "$WORK/C.plain.sp" --lines "$LINES_C" \
    --length "$PIECES_C" 2>&1 | sed 's/^/# /'
  [ "$(wc -l < "$IN_TEXT")" = "$LINES_C" ] || die "bench/fixed_length_input.py made no $LINES_C lines"
  # What NLLB's tokenizer gives CT2 users: the source language first, </s> last.
  sed 's|^|eng_Latn |; s|$| </s>|' "$WORK/C.plain.sp" > "$IN_PIECES"
  sed "s/.*/deu_Latn/" "$IN_TEXT" > "$WORK/C.prefix"
  # s2s leaves the forced deu_Latn out of its count; CT2 prints it.
  CT2_EXTRA=(--tgt "$WORK/C.prefix") S2S_LANGS=(--source-lang eng_Latn --target-lang deu_Latn)
  CT2_PIECES=$C_LENGTH
  BENCH_WORK="$((LINES_C * (PIECES_C + 1))) $((LINES_C * (C_LENGTH - 1)))"
  echo "# table C: $LINES_C lines x $PIECES_C pieces (+ eng_Latn, </s>), both engines run $C_LENGTH decoder steps a line: tgt_tok $((LINES_C * C_LENGTH))"
  for prec in $PRECISIONS; do
    case $prec in float32 | int8) ;; *) continue ;; esac
    for mode in $MODES_C; do
      measure C nllb-600M-random "$MODEL_C" "$CT2_MODEL_C" "$prec" beam4 "$mode" \
        $((LINES_C * C_LENGTH)) "$C_LENGTH" --max-length-factor 3
    done
  done
fi

# --- table L: lone sentences, one at a time -------------------------------------------------------
if [[ " $TABLES " = *" L "* ]]; then
  table_a_input
  head -n "$LINES_L" "$WORK/A.txt" > "$WORK/L.base-random.txt"
  grep -v '^[[:space:]]*$' "$SENTENCES" | head -n "$LINES_L" > "$WORK/L.en-de.txt" || true
  echo "# table L: $LINES_L lines each, one at a time (bench/latency.py): s2s through a pipe, CT2 through its Python API; per-sentence ms"
  for model in base-random en-de; do
    if [ $model = base-random ]; then
      s2s_model=$MODEL_A ct2_model=$CT2_MODEL_A spm=$MODEL_A/source.spm
      s2s_len=(--max-length-factor 3) ct2_len=(--max-length "$A_LENGTH")
    else
      s2s_model=$MODEL_B ct2_model=$CT2_MODEL_B spm=$MODEL_B/source.spm
      s2s_len=() ct2_len=(--max-length "$B_LIMIT")
    fi
    for prec in $PRECISIONS; do
      case $prec in float32 | int8) ;; *) continue ;; esac
      for beam in 1 4; do
        label="L $model $prec beam$beam"
        "$PY" "$ROOT/bench/latency.py" s2s "$S2S" "$s2s_model" "$WORK/L.$model.txt" --beam $beam \
          --precision "$prec" --threads 2 --label "$label" --normalize 0 "${S2S_AS_CT2[@]}" \
          "${s2s_len[@]}" || die "bench/latency.py s2s ($label) failed"
        PYTHONPATH=$CT2_PYTHON${PYTHONPATH:+:$PYTHONPATH} "$PY" "$ROOT/bench/latency.py" ct2 \
          "$ct2_model" "$spm" "$WORK/L.$model.txt" --beam $beam --precision "$prec" --threads 2 \
          --label "$label" "${ct2_len[@]}" || die "bench/latency.py ct2 ($label) failed"
      done
    done
  done
fi

# --- best s2s against best CT2 -------------------------------------------------------------------
echo "# best s2s vs best CT2 (tok/s of the same target tokens; whole process, then decode only):"
awk -F'\t' '
  {
    k = $1 " " $2 " " $3
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    if ($7 !~ /^[0-9]/) { note[k, $5] = $7; next }
    e = $5; kind = "whole"; if (e ~ /:decode$/) { kind = "decode"; sub(/:decode$/, "", e) }
    if (!((k, kind, e) in best) || $8 + 0 > best[k, kind, e] + 0) { best[k, kind, e] = $8; how[k, kind, e] = $4 }
  }
  END {
    for (i = 1; i <= n; i++) {
      k = order[i]
      for (j = 1; j <= 2; j++) {
        kind = j == 1 ? "whole" : "decode"
        hs = (k, kind, "s2s") in best; hc = (k, kind, "ct2") in best
        if (!hs && !hc && kind == "decode") continue
        s = hs ? best[k, kind, "s2s"] : ((k, "s2s") in note ? note[k, "s2s"] : "-")
        c = hc ? best[k, kind, "ct2"] : ((k, "ct2") in note ? note[k, "ct2"] : "-")
        printf "%-20s %-6s s2s %11s tok/s (%-8s)  ct2 %11s tok/s (%-8s)  s2s/ct2 %s\n", k, kind,
          s, hs ? how[k, kind, "s2s"] : "-", c, hc ? how[k, kind, "ct2"] : "-",
          (hs && hc) ? sprintf("%.2f", s / c) : "-"
      }
    }
  }' "$RESULTS"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); files in $WORK"
