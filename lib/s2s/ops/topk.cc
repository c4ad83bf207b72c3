// topk: argument checks, and the fast path itself, one pass per row through TopKList (oneDNN
// 2.6 has no top-k primitive). See topk.h.
#include "s2s/ops/topk.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
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

namespace {

using f32x8 = float __attribute__((vector_size(32)));
using i32x8 = std::int32_t __attribute__((vector_size(32)));
using i32x4 = std::int32_t __attribute__((vector_size(16)));

// The start of the first block of 16 entries from `i` that holds an x[j] + add > bar, or, when
// none does, where fewer than 16 entries are left before `end`. The sums round as offer()'s do
// (one float add each); NaN compares false there as here.
S2S_DISPATCHED(dim_t, next_block_above, (const float* x, dim_t i, dim_t end, float add, float bar), (x, i, end, add, bar)) {
  const f32x8 a = f32x8{} + add, b = f32x8{} + bar;
  for (; i + 16 <= end; i += 16) {
    f32x8 lo, hi;
    std::memcpy(&lo, x + i, sizeof lo);
    std::memcpy(&hi, x + i + 8, sizeof hi);
    const i32x8 above = ((lo + a) > b) | ((hi + a) > b);
    const i32x4 half = __builtin_shufflevector(above, above, 0, 1, 2, 3) |
                       __builtin_shufflevector(above, above, 4, 5, 6, 7);
    if ((half[0] | half[1] | half[2] | half[3]) != 0) return i;
  }
  return i;
}

}  // namespace

// A block skipped holds no sum above the k-th best at that point, and the k-th best only rises
// as entries come in: offer() would have turned every one of them away.
void TopKList::offer_run(const float* x, dim_t n, float add, std::int32_t first) {
  dim_t i = 0;
  for (; i < n && size_ < k_; ++i) offer(x[i] + add, first + static_cast<std::int32_t>(i));
  while (i < n) {
    i = next_block_above(x, i, n, add, values_[k_ - 1]);
    for (const dim_t stop = std::min(n, i + 16); i < stop; ++i)
      offer(x[i] + add, first + static_cast<std::int32_t>(i));
  }
}

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
