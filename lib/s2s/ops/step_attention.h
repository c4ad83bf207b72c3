// step_attention: one query position per row attending over a key/value cache, every head in one
// pass. This is the decoder's step (self-attention over its cache, cross-attention over the
// projected encoder output); it replaces, for T = 1, the split_heads -> Q·Kᵀ -> softmax -> P·V ->
// merge_heads chain, whose per-(row, head) products are tiny gemv calls.
//
// queries: f32 [R, D] (or [R, 1, D]), D = H·Dh, head h in columns [h·Dh, (h+1)·Dh); rows may be
//          strided (a column slice of the fused Q/K/V projection), columns contiguous.
// keys, values: [N, H, L, Dh], both float32 or both bfloat16 (the caches of the int8 and bfloat16
//          precisions, widened exactly as they are read), views allowed (the first L positions of
//          a larger cache) as long as Dh is contiguous.
// cache_of_row: int32 [R] with values in [0, N): the cache row r reads (cross-attention keeps one
//          cache per source sentence for all of its hypotheses); nullptr: row r reads cache r.
// cache_of_key: int32 [R, M], M >= L, values in [0, N) (instead of cache_of_row): row r reads
//          key/value j from cache cache_of_key[r, j]. The decoder's self-attention cache is
//          position-major (what step t wrote sits in slab t, row by row); a row follows its
//          hypothesis' history through the slabs this way, so beams never copy caches.
// visible: int32 [R]: row r sees keys 0..visible[r]-1 (counts above L mean L, 0 gives a zero
//          output row); nullptr: all L keys.
// scale: multiplies q·k before the softmax (Marian scales the product, not the queries).
// scores: scratch, resized to hold [R, H, L] floats if smaller (no allocation once large enough).
//          On return it holds the attention probabilities: row r, head h at (r·H + h)·L, its
//          first min(visible[r], L) entries (word alignment reads them; the rest is scratch).
// out: f32 [R, D] or [R, 1, D], contiguous: concat_h softmax(scale·q_h·K_hᵀ)·V_h.
#pragma once

#include "s2s/backend/cpu_isa.h"
#include "s2s/core/tensor.h"

namespace s2s::ops {

// Which cache each row reads, and how many keys it sees (all optional; see above).
struct StepAttentionRows {
  const Tensor* cache_of_row = nullptr;
  const Tensor* cache_of_key = nullptr;
  const Tensor* visible = nullptr;
};

void step_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const StepAttentionRows& rows, float scale, Tensor& scores, Tensor& out);

// The same with the kernels of `isa` (at most backend::detected_cpu_isa()) rather than those of
// backend::cpu_isa(): the AVX-512 kernel, or the portable one (compiled for each vector width).
void step_attention(backend::CpuIsa isa, const Tensor& queries, const Tensor& keys,
                    const Tensor& values, const StepAttentionRows& rows, float scale,
                    Tensor& scores, Tensor& out);

}  // namespace s2s::ops
