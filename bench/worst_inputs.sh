#!/bin/bash
# bench/worst_inputs.sh [S2S [MODEL]]: seconds and peak memory of `s2s translate` at default
# settings on the worst single lines we could think of (issue 17, "no line can run away"): each
# is one line of about 100,000 characters (the 100k-word line is longer), plus the 2,000-character
# line without spaces that once took 30 s. Target: at most 30 s per 100,000 characters and a peak
# RSS of at most 500 MB for every one.
#
# Prints a table: input, characters, wall seconds, seconds per 100k characters, peak RSS (MB, from
# /usr/bin/time), output characters, pieces the loop guard cut, and the warnings s2s printed. Defaults: S2S build/s2s, MODEL
# models/en-de. Run it on an otherwise idle machine; ONLY=name runs one input, TIMEOUT=s stops
# each run after that many seconds (shown as "> s").
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
S2S=${1:-$ROOT/build/s2s}
MODEL=${2:-$ROOT/models/en-de}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

/usr/bin/python3 - "$WORK" <<'EOF'
import random, sys
work = sys.argv[1]
r = random.Random(17)
def save(name, text):
    with open(f"{work}/{name}", "wb") as f:
        f.write(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
        f.write(b"\n")
n = 100_000
save("no-spaces", "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)))
save("one-char", "a" * n)
save("random-bytes", bytes(r.choice([b for b in range(256) if b != 10]) for _ in range(n)))
save("long-number", "".join(r.choice("0123456789") for _ in range(n)))
words = ["licence", "свобода", "自由软件", "حرية", "Übersetzung", "ελευθερία", "😀", "x86_64",
         "http://example.org/a?b=c", "-- --"]
text = ""
while len(text) < n:
    text += r.choice(words) + r.choice([" ", "", ", ", ". "])
save("mixed-scripts", text[:n])
base = "the licence is free and you may copy the program".split()
save("100k-words", " ".join(base[i % len(base)] for i in range(100_000)) + ".")
save("2000-no-spaces", "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(2000)))
EOF

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(basename "$MODEL"), default settings, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| input | chars | seconds | s per 100k chars | peak RSS MB | output chars | pieces cut by the loop guard | warnings |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for name in no-spaces one-char random-bytes long-number mixed-scripts 100k-words 2000-no-spaces; do
  [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ] && continue
  in="$WORK/$name"
  chars=$(python3 -c "import sys; print(len(open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')) - 1)" "$in")
  start=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$WORK/rss" timeout -s INT "${TIMEOUT:-3600}" \
    "$S2S" translate -m "$MODEL" -i "$in" -o "$WORK/out" 2> "$WORK/err" || true
  seconds=$(echo "scale=2; ($(date +%s%N) - $start) / 1000000000" | bc)
  grep -q interrupted "$WORK/err" && seconds="> $seconds"
  rss=$(( $(tail -1 "$WORK/rss") / 1024 ))
  per=$(echo "scale=2; ${seconds#> } * 100000 / $chars" | bc)
  out_chars=$(wc -m < "$WORK/out")
  warnings=$(grep -c 'warning' "$WORK/err" || true)
  pieces=$(grep -o 'split into [0-9]* pieces' "$WORK/err" | grep -o '[0-9]*' || echo 1)
  cut=$(grep -o 'translations of [0-9]* of them' "$WORK/err" | grep -o '[0-9]*' || echo 0)
  echo "| $name | $chars | $seconds | $per | $rss | $out_chars | $cut of $pieces | $warnings: $(head -c 160 "$WORK/err" | tr '\n' ' ') |"
done
