#!/bin/bash
# tools/docs/update_user_guide.sh [S2S]: rewrites the generated option tables of
# docs/user-guide.md (between its BEGIN/END options-markdown markers) with what the hidden
# `S2S options-markdown` prints (default S2S: build/s2s). tests/app/test_user_guide.cc fails
# until this is run after an option changes.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
S2S=${1:-$ROOT/build/s2s}
GUIDE=$ROOT/docs/user-guide.md
TABLES=$(mktemp)
trap 'rm -f "$TABLES" "$GUIDE.new"' EXIT
"$S2S" options-markdown > "$TABLES"
grep -q '^<!-- BEGIN options-markdown' "$GUIDE" && grep -q '^<!-- END options-markdown -->' "$GUIDE" ||
  { echo "update_user_guide.sh: $GUIDE lacks the BEGIN/END options-markdown markers" >&2; exit 1; }
awk -v tables="$TABLES" '
  /^<!-- BEGIN options-markdown/ { print; while ((getline line < tables) > 0) print line; skip = 1; next }
  /^<!-- END options-markdown -->/ { skip = 0 }
  !skip
' "$GUIDE" > "$GUIDE.new"
mv "$GUIDE.new" "$GUIDE"
