#!/usr/bin/env bash
# The shipped library is the product: libs2s.so (argument 1) exports none of the test support
# library's code (tests/support/: the ops' reference twins, whole-model test entry points) nor
# process-wide test switches. Fails naming each symbol found.
set -euo pipefail
library=$1
found=$(nm -DC --defined-only "$library" |
        grep -E 's2s::ops::ref::|s2s::test::|forward_all|set_step_attention_portable|set_int8_weight_levels|set_runtime_rows_only' || true)
if [ -n "$found" ]; then
  echo "$library carries test code:"
  echo "$found"
  exit 1
fi
echo "$library: no reference twins, test entry points or test switches"
