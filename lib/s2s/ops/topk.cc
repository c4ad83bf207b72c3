// topk: argument checks, and the fast path itself, one pass per row through TopKList (oneDNN
// 2.6 has no top-k primitive). See topk.h.
#include "s2s/ops/topk.h"

#include <cstdint>
#include <limits>

#include "s2s/ops/detail.h"

namespace s2s::ops {

namespace detail {

// x [R, N] contiguous, 0 <= k <= N; values f32 [R, k], indices int32 [R, k].
bool prepare_topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices) {
  check_dtype(x, DataType::f32, "topk x");
  S2S_CHECK(x.rank() == 2, "topk x is ", to_string(x.shape()), ", expected [R, N]");
  check_contiguous(x, "topk x");
  S2S_CHECK(0 <= k && k <= x.dim(1), "topk k = ", k, " is outside [0, ", x.dim(1), "] for x ",
            to_string(x.shape()));
  S2S_CHECK(x.dim(1) <= std::numeric_limits<std::int32_t>::max(), "topk row of ", x.dim(1),
            " entries is too long for int32 indices");
  S2S_CHECK(&values != &x && &indices != &x && &values != &indices,
            "topk outputs must be distinct from x and from each other");
  prepare_output(values, {x.dim(0), k}, DataType::f32, "topk values");
  prepare_output(indices, {x.dim(0), k}, DataType::i32, "topk indices");
  check_contiguous(values, "topk values");
  check_contiguous(indices, "topk indices");
  return k > 0 && x.dim(0) > 0;
}

}  // namespace detail

void topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices) {
  if (!detail::prepare_topk(x, k, values, indices)) return;
  const dim_t n = x.dim(1);
  for (dim_t r = 0; r < x.dim(0); ++r) {
    const float* row = x.data<float>() + r * n;
    TopKList top(values.data<float>() + r * k, indices.data<std::int32_t>() + r * k, k);
    for (dim_t i = 0; i < n; ++i) top.offer(row[i], static_cast<std::int32_t>(i));
  }
}

}  // namespace s2s::ops
