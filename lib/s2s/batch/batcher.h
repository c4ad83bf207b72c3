// Batcher: cuts a window of sentences into batches of similar length, so that little compute is
// spent on padding. Results are put back in input order by the caller, using the indices.
#pragma once

#include <cstddef>
#include <vector>

#include "s2s/core/shape.h"

namespace s2s::batch {

struct BatchLimits {
  dim_t sentences = 32;  // at most this many sentences per batch
  dim_t tokens = 0;      // if > 0: at most this many padded tokens (rows × longest) per batch
};

// lengths[i] is sentence i's length in tokens. Returns batches of indices into `lengths`, sorted
// by length (ties keep input order); every index appears exactly once, and a sentence longer
// than the token budget gets a batch of its own.
std::vector<std::vector<std::size_t>> make_batches(const std::vector<std::size_t>& lengths,
                                                   const BatchLimits& limits);

}  // namespace s2s::batch
