#!/bin/bash
# bench/contention.sh [S2S [MODEL [SENTENCES]]]: how s2s translate at default settings keeps its
# speed when other programs use the cores (issue 17).
#
# For each row: the same translation (MODEL, default settings unless the row adds flags) timed
# alone, then with one CPU-bound competitor per core minus one (a shell busy loop started and
# stopped here), REPS times each, alternating; prints the median wall times and
# ratio = quiet time / loaded time (1.0: no slowdown; the fair share with one competitor on two
# cores is between 0.5 and 1). Rows: s2s as built, then the same under libgomp's own settings
# (GOMP_SPINCOUNT, OMP_WAIT_POLICY) given as environment, then --threads 1 and --workers 2.
#
# Defaults: S2S build/s2s, MODEL models/en-de, SENTENCES the first LINES (400) lines of the bench
# model's sentences (bench/run.sh makes /tmp/s2s-bench-model). REPS (3), ROWS (all) from the
# environment. Run it on an otherwise idle machine.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
S2S=${1:-$ROOT/build/s2s}
MODEL=${2:-$ROOT/models/en-de}
SENTENCES=${3:-/tmp/s2s-bench-model/sentences.txt}
LINES=${LINES:-400}
REPS=${REPS:-3}
CORES=$(nproc)
WORK=$(mktemp -d)
busy=()
stop_busy() { for pid in "${busy[@]}"; do kill "$pid" 2> /dev/null || true; done; busy=(); }
trap 'stop_busy; rm -rf "$WORK"' EXIT
head -n "$LINES" "$SENTENCES" > "$WORK/in.txt"

seconds() {  # env-assignments... -- flags...: wall time of one translation
  local envs=() start
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  start=$(date +%s%N)
  env "${envs[@]}" "$S2S" translate -m "$MODEL" -i "$WORK/in.txt" -o "$WORK/out.txt" --quiet "$@"
  echo "scale=3; ($(date +%s%N) - $start) / 1000000000" | bc
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

row() {  # label env-assignments... -- flags...
  local label=$1 quiet=() loaded=() i
  shift
  for ((i = 0; i < REPS; i++)); do
    quiet+=("$(seconds "$@")")
    for ((c = 1; c < CORES; c++)); do
      bash -c 'while :; do :; done' &
      busy+=($!)
    done
    loaded+=("$(seconds "$@")")
    stop_busy
  done
  local q l
  q=$(median "${quiet[@]}")
  l=$(median "${loaded[@]}")
  printf '| %s | %s | %s | %.2f |\n' "$label" "$q" "$l" "$(echo "$q / $l" | bc -l)"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $CORES cores, $(basename "$MODEL"), $LINES lines, $((CORES - 1)) busy loop(s) when loaded, median of $REPS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| setting | quiet s | loaded s | quiet/loaded |"
echo "| --- | --- | --- | --- |"
ROWS=${ROWS:-default spin0 spin1000 spin300000 passive threads1 workers2}
for r in $ROWS; do
  case $r in
    default) row "default (s2s as built)" -- ;;
    spin0) row "GOMP_SPINCOUNT=0" GOMP_SPINCOUNT=0 -- ;;
    spin1000) row "GOMP_SPINCOUNT=1000" GOMP_SPINCOUNT=1000 -- ;;
    spin10000) row "GOMP_SPINCOUNT=10000" GOMP_SPINCOUNT=10000 -- ;;
    spin300000) row "GOMP_SPINCOUNT=300000 (libgomp's default)" GOMP_SPINCOUNT=300000 -- ;;
    passive) row "OMP_WAIT_POLICY=passive" OMP_WAIT_POLICY=passive -- ;;
    active) row "OMP_WAIT_POLICY=active" OMP_WAIT_POLICY=active -- ;;
    threads1) row "--threads 1" -- --threads 1 ;;
    workers2) row "--workers 2" -- --workers 2 ;;
    *) echo "unknown row $r" >&2; exit 2 ;;
  esac
done
