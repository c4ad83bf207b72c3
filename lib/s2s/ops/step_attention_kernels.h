// Private to lib/s2s/ops: ops::step_attention's kernels. step_attention.cc holds the portable one
// and the softmax; step_attention_avx512.cc the score and value passes for AVX-512 CPUs.
#pragma once

#include <algorithm>
#include <cstdint>

#include "s2s/backend/cpu_isa.h"
#include "s2s/core/bfloat16.h"
#include "s2s/ops/detail.h"

namespace s2s::ops::detail {

// The keys (or values) of every row: head h of row r's key j starts at at(r, j) + h·head_stride.
// T: float, or bfloat16_bits for the bfloat16 caches of the int8 and bfloat16 precisions.
template <typename T>
struct StepCaches {
  const T* data;
  std::int64_t row_stride, head_stride, position_stride;  // the [N, H, L, Dh] view's strides
  const std::int32_t* row_cache;  // cache_of_row, or null
  const std::int32_t* key_cache;  // cache_of_key, or null
  std::int64_t key_table_stride;

  const T* at(std::int64_t r, std::int64_t j) const {
    if (key_cache) return data + j * position_stride + key_cache[r * key_table_stride + j] * row_stride;
    return data + (row_cache ? row_cache[r] : r) * row_stride + j * position_stride;
  }
};

// The keys row r sees: counts[r] (StepAttentionRows::visible) but at most `keys`; all of them
// without counts.
inline std::int64_t visible_keys(const std::int32_t* counts, std::int64_t r, std::int64_t keys) {
  return counts ? std::min<std::int64_t>(counts[r], keys) : keys;
}

// The AVX-512 passes take head dimensions 32, 64 and 128 (what Marian, OPUS-MT and Hugging Face
// models use); true when they run under `isa` (backend::cpu_isa() in the library).
bool step_attention_avx512(backend::CpuIsa isa, dim_t head_dim);

// The two passes over rows [r0, r1), heads [h0, h1), row r seeing its first n_r keys (counts[r],
// at most d.keys; all of them without counts). Scores: scores[(r·H + h)·L + j] = scale·q_rh·k_rjh.
// Values: out row r, head h = Σ_j p_rhj·v_rjh, p read from the same place in `scores`. Each
// (row, head) sums in one order whatever the split of the work, so results do not depend on the
// thread count; the scores are the portable kernel's to the bit (step_attention_avx512.cc).
template <typename T>
void step_scores_avx512(const StepAttentionDims& d, const float* q, const StepCaches<T>& keys,
                        const std::int32_t* counts, dim_t r0, dim_t r1, dim_t h0, dim_t h1,
                        float scale, float* scores);
template <typename T>
void step_values_avx512(const StepAttentionDims& d, const StepCaches<T>& values,
                        const std::int32_t* counts, dim_t r0, dim_t r1, dim_t h0, dim_t h1,
                        const float* scores, float* out);

}  // namespace s2s::ops::detail
