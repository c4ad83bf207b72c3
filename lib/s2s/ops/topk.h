// The k largest entries of each row, sorted by decreasing value; equal values keep the lower index
// first. x: f32 [R, N] contiguous, 0 <= k <= N. values: f32 [R, k], indices: int32 [R, k].
#pragma once

#include <cstdint>

#include "s2s/core/tensor.h"

namespace s2s::ops {

void topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices);

// The k best (score, id) pairs of a stream, kept sorted in caller memory (values[k], ids[k]):
// best first, and an entry only displaces a strictly worse one, so among equal scores the one
// offered first stays ahead (the lower id when ids are offered in increasing order). One pass,
// no index array: topk's fast path, and beam search's selection over log-probs + hypothesis
// score without writing that sum out.
class TopKList {
 public:
  TopKList(float* values, std::int32_t* ids, dim_t k) : values_(values), ids_(ids), k_(k) {}

  void offer(float score, std::int32_t id) {
    if (size_ == k_ && !(score > values_[k_ - 1])) return;
    dim_t i = size_ < k_ ? size_++ : k_ - 1;
    for (; i > 0 && score > values_[i - 1]; --i) {
      values_[i] = values_[i - 1];
      ids_[i] = ids_[i - 1];
    }
    values_[i] = score;
    ids_[i] = id;
  }

  // offer(x[i] + add, first + i) for i = 0, 1, ..., n - 1 in that order, with the same result.
  // Once the list is full the sums are compared with its k-th best 16 at a time, and only a block
  // holding one above it is offered entry by entry: most of a vocabulary row never gets in, and
  // the one-by-one loop was a visible share of greedy decoding (docs/performance.md, "Top-k").
  void offer_run(const float* x, dim_t n, float add, std::int32_t first);

 private:
  float* values_;
  std::int32_t* ids_;
  dim_t k_;
  dim_t size_ = 0;
};

}  // namespace s2s::ops
