#!/usr/bin/env bash
# Issue 20, part 4: the Slurm recipe of tools/slurm/ on a real one-node cluster (Debian's
# slurm-wlm and munge, started here by tools/slurm/cluster.sh and stopped on any exit).
# A few thousand lines go through submit.sh as an array of 4 shards plus the assemble job; one
# running task is requeued mid-shard (`scontrol requeue`: SIGTERM, then back to pending) and must
# continue from its journal (--resume). The assembled file must equal a single-process run of
# the same file with the same options byte for byte. Every wait has a deadline.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$SECONDS
s2s=${S2S:-$repo/build/s2s}
lines=${S2S_SLURM_LINES:-3000}
shards=4
victim=1  # the task requeued: one of the first two that start on two CPUs
# Greedy, for time. s2s resumes at window boundaries (every --maxi-batch lines, and shard cuts
# move to them too): windows of 100 lines give ~750-line shards and resume points every 100.
opts=(-b 1 --maxi-batch 100)

work=$(mktemp -d "${TMPDIR:-/tmp}/s2s-slurm-ci.XXXXXX")
chmod 0755 "$work"  # munged wants every folder above its socket open to all
cluster="$work/cluster"
ref_pid=""
ok=0
cleanup() {
  local status=$?
  if [ -n "$ref_pid" ]; then kill "$ref_pid" 2> /dev/null || true; fi
  if [ "$ok" != 1 ] && [ -d "$work/out.de.shards/logs" ]; then
    echo "--- slurm CI: job logs" >&2
    tail -n 30 "$work"/out.de.shards/logs/* >&2 || true
    tail -n 30 "$cluster"/log/slurmctld.log >&2 || true
  fi
  cd "$repo"
  bash tools/slurm/cluster.sh stop "$cluster" || true
  # Nothing of ours may outlive the stage (CI runs the next stages on the same machine).
  local left
  left=$(bash tools/slurm/cluster.sh status "$cluster" | grep -v 'not running' || true)
  if [ -n "$left" ]; then echo "slurm CI: still running after stop: $left" >&2; status=1; fi
  rm -rf "$work"
  echo "slurm CI: $((SECONDS - started)) s in all"
  exit "$status"
}
trap cleanup EXIT
# So that a timeout's SIGTERM or a Ctrl-C still stops the daemons (through the EXIT trap).
trap 'exit 143' TERM INT

# Deterministic English with blank lines: the licence texts every Debian system has.
for f in GPL-3 Apache-2.0 LGPL-2.1 MPL-2.0 GFDL-1.3 Artistic BSD GPL-2 MPL-1.1 CC0-1.0; do
  cat "/usr/share/common-licenses/$f"
done | sed -n "1,${lines}p" > "$work/input.en"  # not head: cat would die of SIGPIPE (pipefail)
[ "$(wc -l < "$work/input.en")" = "$lines" ] || { echo "slurm CI: fewer than $lines input lines"; exit 1; }

# The reference, one process, in the background while the cluster starts and the array runs:
# the two cores are shared, but each single-threaded process keeps going.
"$s2s" translate -m models/en-de -i "$work/input.en" -o "$work/reference.de" --threads 1 \
  --quiet "${opts[@]}" &
ref_pid=$!

# (An assignment first: set -e does not see a failure inside `eval "$(...)"`.)
env_line=$(bash tools/slurm/cluster.sh start "$cluster")
eval "$env_line"
export SLURM_CONF

# The jobs run in $work (their working folder is the submitter's).
cd "$work"
mapfile -t jobs < <(S2S="$s2s" bash "$repo/tools/slurm/submit.sh" --cpus-per-task=1 -- \
  "$repo/models/en-de" input.en "$shards" out.de "${opts[@]}")
array=${jobs[0]} assemble=${jobs[1]}
task="${array}_${victim}"
shard_out=$(printf 'out.de.shards/input.en.%05d-of-%05d' "$victim" "$shards")

# The lines a shard output holds now (0 while it does not exist).
lines_in() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
# The lines its journal says are final, as `s2s progress --json` tells (0 while there is none).
lines_done() {
  local n
  n=$("$s2s" progress --json "$1" | sed -n 's/.*"lines_done":\([0-9]*\).*/\1/p')
  echo "${n:-0}"
}
job_state() { squeue -h -j "$1" -o %T 2> /dev/null || true; }

# Requeue the victim once it is running and its journal holds its first window, well before its
# end (shards are ~$((lines / shards)) lines; the model does tens of lines a second on one thread).
deadline=$((SECONDS + 60))
until [ "$(job_state "$task")" = RUNNING ] && [ "$(lines_done "$shard_out")" -ge 1 ]; do
  [ $SECONDS -lt $deadline ] || { echo "slurm CI: task $task never got going"; exit 1; }
  sleep 0.5
done
before=$(lines_in "$shard_out")
scontrol requeue "$task"
echo "slurm CI: requeued task $task with $before lines of its shard written," \
  "$(lines_done "$shard_out") final"
# A requeued job waits cred_expire (120 s) before it may start again; waive that here.
deadline=$((SECONDS + 30))
until [ "$(job_state "$task")" = PENDING ]; do
  [ $SECONDS -lt $deadline ] || { echo "slurm CI: task $task not pending after requeue"; exit 1; }
  sleep 0.5
done
scontrol update JobId="$task" StartTime=now

# The assemble job leaves the queue once the array (and it) have ended.
deadline=$((SECONDS + 150))
while [ -n "$(job_state "$assemble")" ]; do
  [ $SECONDS -lt $deadline ] || { echo "slurm CI: jobs not done in time"; squeue >&2; exit 1; }
  sleep 1
done
# Finished jobs stay known to slurmctld for MinJobAge (300 s): check how they ended.
for j in $(seq 0 $((shards - 1))); do
  info=$(scontrol -o show job "${array}_$j")
  case "$info" in *JobState=COMPLETED*) ;; *) echo "slurm CI: task $j: $info"; exit 1 ;; esac
done
restarts=$(scontrol -o show job "$task" | grep -o 'Restarts=[0-9]*')
[ "$restarts" = Restarts=1 ] || { echo "slurm CI: task $task: $restarts, expected 1"; exit 1; }
scontrol -o show job "$assemble" | grep -q 'JobState=COMPLETED' \
  || { echo "slurm CI: assemble job did not complete"; cat out.de.shards/logs/assemble-*; exit 1; }
# Mid-shard: the requeue came before the shard's end, and the second attempt continued it.
after=$(lines_in "$shard_out")
[ "$before" -lt "$after" ] || { echo "slurm CI: requeued at $before of $after lines: not mid-shard"; exit 1; }
log="out.de.shards/logs/translate-${array}_${victim}.log"
attempts=$(grep -c 'attempt' "$log")
[ "$attempts" = 2 ] || { echo "slurm CI: task $task log shows $attempts attempts"; cat "$log"; exit 1; }
# s2s says where it continued ("--resume: OUT: continuing after line N (K of M lines done)").
resumed=$(grep -o 'continuing after line [0-9]* ([0-9]* of [0-9]* lines done)' "$log" || true)
[ -n "$resumed" ] || { echo "slurm CI: task $task started its shard over"; cat "$log"; exit 1; }
echo "slurm CI: task $task, second attempt: $resumed"

wait "$ref_pid"
ref_pid=""
cmp reference.de out.de || { echo "slurm CI: assembled output differs from one process"; exit 1; }
echo "slurm CI: $lines lines in $shards shards, task $victim requeued mid-shard, assembled" \
  "output equals the single-process output"
ok=1
