// Reference topk: a full stable sort of each row by decreasing value (see topk.h).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/topk.h"

namespace s2s::ops::ref {

void topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices) {
  if (!detail::prepare_topk(x, k, values, indices)) return;
  const dim_t n = x.dim(1);
  for (dim_t r = 0; r < x.dim(0); ++r) {
    const float* row = x.data<float>() + r * n;
    std::vector<std::int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    // Stable, so equal values stay in increasing index order.
    std::stable_sort(order.begin(), order.end(),
                     [row](std::int32_t i, std::int32_t j) { return row[i] > row[j]; });
    for (dim_t i = 0; i < k; ++i) {
      values.data<float>()[r * k + i] = row[order[i]];
      indices.data<std::int32_t>()[r * k + i] = order[i];
    }
  }
}

}  // namespace s2s::ops::ref
