#!/bin/bash
# resume_loop.sh S2S MODEL RUNS [MAX_DELAY_S] [FLAGS...]: `s2s translate --resume` killed RUNS
# times at random moments, each time resumed by the same command, must end with output
# byte-identical to an uninterrupted run (issue 20 part 2). RESUME_COMMAND=score (environment)
# does the same for `s2s score --resume` on tab-separated pairs made of the same lines. Every 4th stop is a SIGTERM (as
# Slurm's time limit sends; s2s stops within a decoder step and commits), the others kill -9
# (nothing runs after it: only what the journal committed survives). After each stop it checks
# that the journal's lines_done never goes back and that the output holds at least the bytes the
# journal calls final. Then it lets the run finish and compares; the same for shard 1 of 3
# (`-o FOLDER/ --shard 1/3`, RUNS/3 stops), whose shards must concatenate to the whole run.
# The input has what breaks naive resuming: empty lines, CRLF, invalid UTF-8, lines over
# --max-length (split), a last line without newline; RESUME_LINES (environment) sets its size
# (3000 lines). Prints one line per stop and a summary; exits 1 on the first failure. CTest runs
# it on a fixture model (tests/CMakeLists.txt); the closing note of issue 20 gives a run on
# models/en-de.
set -u
S2S=$1
MODEL=$2
RUNS=$3
MAX_DELAY=${4:-2}
shift 4 2> /dev/null || shift $#
COMMAND=${RESUME_COMMAND:-translate}
if [ "$COMMAND" = score ]; then
  FLAGS=(--word-scores --max-length 40 "$@")
else
  FLAGS=(--format nbest --max-length 40 "$@")
fi
WORK=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT

words=(the licence is free software and this package provides a tool for translating text
       files with many options it can read input from standard streams or write output to disk)
for ((i = 0; i < ${RESUME_LINES:-3000}; i++)); do
  line=""
  for ((w = 0; w < 3 + (i * 7) % 17; w++)); do line+="${words[(i * 3 + w * 5) % ${#words[@]}]} "; done
  if ((i % 37 == 5)); then echo; fi
  if ((i % 53 == 7)); then printf '%s\r\n' "${line^}."; continue; fi
  if ((i % 211 == 11)); then printf '%s\xff.\n' "$line"; continue; fi
  if ((i % 97 == 13)); then line="$line$line$line$line"; fi  # over --max-length: split
  echo "${line^}."
done > "$WORK/in.txt"
printf 'the last line has no newline' >> "$WORK/in.txt"
if [ "$COMMAND" = score ]; then  # each line paired with itself read backwards
  LC_ALL=C rev "$WORK/in.txt" | paste "$WORK/in.txt" - > "$WORK/pairs.txt"
  printf 'the last pair\thas no newline' >> "$WORK/pairs.txt"
  mv "$WORK/pairs.txt" "$WORK/in.txt"
fi

fail() { echo "FAIL: $1"; exit 1; }
journal_field() { sed -n "s/.*\"$2\":\([0-9a-z]*\).*/\1/p" "$1"; }

# stop_and_resume OUT ARGS...: RUNS_HERE stops of `s2s COMMAND ARGS --resume`, then one run to
# the end; OUT is the output file the run writes.
stop_and_resume() {
  local out=$1 runs=$2
  shift 2
  local done_before=0 stops=0 progressed=0
  for ((run = 1; run <= runs; run++)); do
    local delay signal
    delay=$(awk -v r="$RANDOM" -v m="$MAX_DELAY" 'BEGIN { printf "%.3f", 0.1 + r / 32767 * m }')
    if ((run % 4 == 0)); then signal=TERM; else signal=KILL; fi
    "$S2S" "$COMMAND" -m "$MODEL" "${FLAGS[@]}" "$@" --resume 2>> "$WORK/err.txt" &
    local pid=$!
    sleep "$delay"
    kill -s "$signal" "$pid" 2> /dev/null
    wait "$pid"
    local code=$?
    case $code in
      0 | 137 | 143) ;;
      *) fail "run $run: exit code $code after SIG$signal: $(tail -3 "$WORK/err.txt")" ;;
    esac
    [ -f "$out.s2s-journal" ] || { echo "stop $run: SIG$signal after ${delay}s: before the journal"; continue; }
    local lines bytes size
    lines=$(journal_field "$out.s2s-journal" lines_done)
    bytes=$(journal_field "$out.s2s-journal" output_bytes)
    size=$(stat -c %s "$out")
    ((lines >= done_before)) || fail "run $run: the journal went back from $done_before to $lines lines"
    ((size >= bytes)) || fail "run $run: the output has $size bytes, the journal says $bytes are final"
    ((lines > done_before)) && progressed=$((progressed + 1))
    # Stopped in order: the message counts the lines the output holds, or (a stop while the model
    # loads) says that nothing was written, and the journal's check above still holds.
    if ((code == 143)) && [ "$(tail -1 "$WORK/err.txt")" != "s2s: interrupted before any output was written" ]; then
      local said
      said=$(tail -1 "$WORK/err.txt" | sed -n 's/^s2s: interrupted: the first \([0-9]*\) lines\? written.*/\1/p')
      [ "$said" = "$(wc -l < "$out")" ] ||
        fail "run $run: '$(tail -1 "$WORK/err.txt")' but the output has $(wc -l < "$out") lines"
    fi
    echo "stop $run: SIG$signal after ${delay}s (exit $code): $lines lines committed, $bytes bytes (file $size)"
    done_before=$lines
    ((code == 0)) && break  # finished before the signal
    stops=$((stops + 1))
  done
  "$S2S" "$COMMAND" -m "$MODEL" "${FLAGS[@]}" "$@" --resume 2>> "$WORK/err.txt" ||
    fail "the last resumed run failed: $(tail -3 "$WORK/err.txt")"
  [ "$(journal_field "$out.s2s-journal" complete)" = true ] || fail "the journal is not complete"
  echo "$stops stops, $progressed of them after progress, then resumed to the end"
}

"$S2S" "$COMMAND" -m "$MODEL" "${FLAGS[@]}" -i "$WORK/in.txt" -o "$WORK/reference.txt" \
  2> "$WORK/reference.err" || fail "the uninterrupted run failed: $(cat "$WORK/reference.err")"

stop_and_resume "$WORK/out.txt" "$RUNS" -i "$WORK/in.txt" -o "$WORK/out.txt"
cmp "$WORK/reference.txt" "$WORK/out.txt" || fail "the resumed output differs from the uninterrupted run"
echo "whole file: byte-identical ($(wc -l < "$WORK/out.txt") lines)"

# Resuming a complete output changes nothing and says so.
before=$(md5sum < "$WORK/out.txt")
"$S2S" "$COMMAND" -m "$MODEL" "${FLAGS[@]}" -i "$WORK/in.txt" -o "$WORK/out.txt" --resume \
  2> "$WORK/again.err" || fail "resuming a complete output failed"
grep -q "is complete" "$WORK/again.err" || fail "no 'is complete' message: $(cat "$WORK/again.err")"
[ "$(md5sum < "$WORK/out.txt")" = "$before" ] || fail "resuming a complete output changed it"

mkdir "$WORK/shards"
for k in 0 2; do
  "$S2S" "$COMMAND" -m "$MODEL" "${FLAGS[@]}" -i "$WORK/in.txt" -o "$WORK/shards/" --shard $k/3 \
    2>> "$WORK/err.txt" || fail "shard $k failed"
done
stop_and_resume "$WORK/shards/in.txt.00001-of-00003" $((RUNS / 3)) \
  -i "$WORK/in.txt" -o "$WORK/shards/" --shard 1/3
cat "$WORK/shards/in.txt.0000"{0,1,2}-of-00003 | cmp - "$WORK/reference.txt" ||
  fail "the shards with a resumed shard 1 differ from the uninterrupted run"
echo "shard 1/3: byte-identical"
echo "resume_loop: all runs passed"
