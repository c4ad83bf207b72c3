// Masks as visible-key counts (docs/architecture.md, "Masks and caches"): attention row (b, h, t)
// may look at the first count keys. Scores are laid out [B, H, T, L], so counts are [B, H, T] (int32).
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/core/tensor.h"

namespace s2s::layers {

// Padding: every query of sentence b sees its key_lengths[b] keys.
void padding_counts(const std::vector<std::int32_t>& key_lengths, dim_t heads, dim_t queries,
                    Tensor& counts);

// Causal (teacher forcing): query t of sentence b sees keys 0..t.
void causal_counts(dim_t batch, dim_t heads, dim_t queries, Tensor& counts);

}  // namespace s2s::layers
