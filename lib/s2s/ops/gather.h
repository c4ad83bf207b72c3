// Row gather along the first axis: out[i, ...] = table[ids[i], ...].
// Used for embedding lookup (table [V, D], ids = token ids) and for moving decoder state rows in
// beam search (table [rows, ...], ids = origins). table: contiguous, any dtype; ids: int32 [N];
// every id must be in [0, table.dim(0)) (else InternalError naming the bad id).
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

void gather_rows(const Tensor& table, const Tensor& ids, Tensor& out);

}  // namespace s2s::ops
