// Batch: sentences of token ids padded into one [B, S] int32 tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/core/tensor.h"

namespace s2s::batch {

struct Batch {
  Tensor ids;                         // int32 [B, S], right-padded with pad_id
  std::vector<std::int32_t> lengths;  // [B]
};

// Pads the sequences to the longest; every sequence must hold at least one id.
Batch make_batch(const std::vector<std::vector<std::int32_t>>& sequences, std::int32_t pad_id = 0);

}  // namespace s2s::batch
