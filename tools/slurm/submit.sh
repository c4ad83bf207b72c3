#!/usr/bin/env bash
# Submits a sharded translation: the array of translate.sbatch (one task per shard) and
# assemble.sbatch after it, which writes FINAL once every shard is complete.
#
#   tools/slurm/submit.sh [SBATCH OPTIONS --] MODEL INPUT N FINAL [S2S TRANSLATE OPTIONS]
#
#   tools/slurm/submit.sh --partition=cpu --time=2:00:00 --cpus-per-task=8 -- \
#     opus-mt-en-de/ corpus.en 64 corpus.de -b 4
#
# Shard outputs, their journals and the job logs go to FINAL.shards/. Running the same command
# again after a failure is the way to finish: complete shards exit at once (--resume), the others
# continue where they stopped. Prints the two job ids; the array's on stdout's first line.
# $S2S names the binary (default: s2s on PATH); the jobs get its absolute path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
sbatch_opts=()
for arg in "$@"; do
  if [ "$arg" = -- ]; then
    # Everything before the first `--` is for sbatch.
    while [ "$1" != -- ]; do sbatch_opts+=("$1"); shift; done
    shift
    break
  fi
done
if [ $# -lt 4 ]; then
  echo "usage: $0 [SBATCH OPTIONS --] MODEL INPUT N FINAL [S2S TRANSLATE OPTIONS]" >&2
  exit 2
fi
model=$1 input=$2 shards=$3 final=$4
shift 4
case "$shards" in '' | *[!0-9]* | 0) echo "submit.sh: N must be a positive number, not '$shards'" >&2; exit 2 ;; esac
[ -f "$input" ] || { echo "submit.sh: no input file $input" >&2; exit 2; }
s2s=$(command -v "${S2S:-s2s}") || { echo "submit.sh: ${S2S:-s2s} not found (set S2S)" >&2; exit 2; }
# The same options for the assemble job, less an --array throttle (it is one job, not an array).
assemble_opts=()
skip_next=0
for opt in "${sbatch_opts[@]}"; do
  if [ "$skip_next" = 1 ]; then skip_next=0; continue; fi
  case "$opt" in
    --array | -a) skip_next=1 ;;
    --array=* | -a?*) ;;
    *) assemble_opts+=("$opt") ;;
  esac
done
outdir="$final.shards"
mkdir -p "$outdir/logs"

# The user's sbatch options come after ours, so that theirs win (sbatch keeps the last one).
array_job=$(sbatch --parsable --export="ALL,S2S=$s2s" --array="0-$((shards - 1))" \
  --output="$outdir/logs/translate-%A_%a.log" "${sbatch_opts[@]}" \
  "$here/translate.sbatch" "$model" "$input" "$outdir" "$shards" "$@")
array_job=${array_job%%;*}  # --parsable prints "id;cluster" on multi-cluster setups
# One CPU is plenty to concatenate, whatever the array asked for.
assemble_job=$(sbatch --parsable --export="ALL,S2S=$s2s" --dependency="afterany:$array_job" \
  --output="$outdir/logs/assemble-%j.log" "${assemble_opts[@]}" --cpus-per-task=1 \
  "$here/assemble.sbatch" "$input" "$outdir" "$shards" "$final")
assemble_job=${assemble_job%%;*}
echo "$array_job"
echo "$assemble_job"
echo "submit.sh: array job $array_job ($shards shards into $outdir/), then assemble job" \
  "$assemble_job into $final. Watch: $s2s progress $outdir/" >&2
