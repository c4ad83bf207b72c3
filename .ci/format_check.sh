#!/usr/bin/env bash
# clang-format (.clang-format) on the C++ lines a change touches: the diff against the merge base
# with main (or, on main itself, against the last commit). Only the changed lines: the older code
# keeps its layout until someone edits it, so a change never drags in unrelated reformatting.
#   bash .ci/format_check.sh [BASE]        (prints the reformatting wanted; exit 1 if any)
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:-}
if [ -z "$base" ]; then
  for main in main origin/main; do
    if git rev-parse -q --verify "$main^{commit}" > /dev/null; then
      base=$(git merge-base HEAD "$main")
      break
    fi
  done
  if [ -z "$base" ] || [ "$base" = "$(git rev-parse HEAD)" ]; then
    base=$(git rev-parse -q --verify HEAD~1) || { echo "format check: no earlier commit"; exit 0; }
  fi
fi
wanted=$(git diff -U0 --no-color "$base" -- '*.cc' '*.h' | clang-format-diff -p1)
if [ -n "$wanted" ]; then
  printf '%s\n' "$wanted"
  echo "format check: the lines above, changed since ${base:0:12}, are not as clang-format lays" \
    "them out (clang-format-diff -p1 -i on the same diff applies it)"
  exit 1
fi
echo "format check: the C++ lines changed since ${base:0:12} are formatted"
