#!/usr/bin/env bash
# Runs the libFuzzer targets built by build.sh, each for SECONDS (default 60):
#   [FUZZ_JOBS=N] bash tools/fuzz/run.sh [SECONDS] [TARGET...]   (no TARGET: all of them;
#   N targets at a time, default 1)
# Each target starts from a copy of its committed seed corpus tests/data/fuzz/corpus/<target>/
# (the copy, in build-fuzz/corpus/, keeps what the run adds, so the committed seeds stay small).
# A crash, leak, timeout or out-of-memory input is written to build-fuzz/artifacts/<target>/;
# the script names it and exits 1 after running the remaining targets.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(npy npz safetensors ct2_model model_yml decoder_yml vocab_yml
                                      vocab_json line_reader)

# Largest input per target: enough for the seeds and for mutations to grow them, small enough to
# keep runs fast. line_reader takes more than one 64 KiB read (LineReader's read size) so that a
# line can span reads.
max_len() {
  case $1 in
    npy | decoder_yml) echo 4096 ;;
    safetensors | ct2_model | model_yml) echo 8192 ;;
    npz | vocab_yml | vocab_json) echo 16384 ;;
    line_reader) echo 150000 ;;
    *) echo 4096 ;;
  esac
}

# UBSan reports (fatal in this build) with a stack, like ASan's.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# One target: fuzz it, print its summary, exit 1 on a finding.
fuzz_one() {
  local target=$1 binary=build-fuzz/fuzz_$1 seeds=tests/data/fuzz/corpus/$1
  local corpus=build-fuzz/corpus/$1 artifacts=build-fuzz/artifacts/$1 log=build-fuzz/fuzz_$1.log
  mkdir -p "$corpus" "$artifacts"
  cp -n "$seeds"/* "$corpus"/
  local dict=()
  [ -f "tools/fuzz/dicts/$target.dict" ] && dict=(-dict="tools/fuzz/dicts/$target.dict")
  # -malloc_limit_mb: no input of these sizes needs 256 MB in one allocation (npz inflate is bounded
  # by 1032 x the file), so a larger request means a size taken from the input unchecked.
  # -timeout: a hang or a quadratic blow-up on a 150 KB input is a finding too.
  "$binary" "$corpus" "${dict[@]}" -max_total_time="$seconds" -max_len="$(max_len "$target")" \
    -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" > "$log" 2>&1
  local status=$?
  echo "fuzz: $target ${seconds}s: $(grep -E '^stat::(number_of_executed_units|new_units_added)|^Done' "$log" | tr '\n' ' ')"
  [ $status -eq 0 ] && return 0
  grep -m1 -E 'ERROR: |runtime error|s2s fuzz:' "$log" >&2
  sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | while read -r unit; do
    echo "fuzz: $target FAILED; reproduce with: $binary $unit" >&2
  done
  return 1
}

for target in "${targets[@]}"; do
  if [ ! -x "build-fuzz/fuzz_$target" ] || [ ! -d "tests/data/fuzz/corpus/$target" ]; then
    echo "fuzz: no build-fuzz/fuzz_$target or tests/data/fuzz/corpus/$target (run tools/fuzz/build.sh)" >&2
    exit 2
  fi
done
# FUZZ_JOBS targets at a time (default 1); each target gets its full SECONDS either way.
jobs=${FUZZ_JOBS:-1}
declare -A pid_of
failed=()
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$target" &
  pid_of[$target]=$!
done
for target in "${targets[@]}"; do
  wait "${pid_of[$target]}" || failed+=("$target")
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in: ${failed[*]} (logs in build-fuzz/)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds}s without a finding"
