// split_heads / merge_heads: argument checks, output sizing and dispatch (see transpose.h).
#include "s2s/ops/transpose.h"

#include "s2s/ops/detail.h"

namespace s2s::ops {

namespace detail {

// x [B, T, H·Dh] -> y [B, H, T, Dh].
bool prepare_split_heads(const Tensor& x, dim_t heads, Tensor& y) {
  check_dtype(x, DataType::f32, "split_heads x");
  S2S_CHECK(x.rank() == 3, "split_heads x is ", to_string(x.shape()), ", expected [B, T, D]");
  S2S_CHECK(heads > 0 && x.dim(2) % heads == 0, "split_heads: ", heads,
            " heads do not divide the last dim of x ", to_string(x.shape()));
  S2S_CHECK(&y != &x, "split_heads output must not be its input");
  prepare_output(y, {x.dim(0), heads, x.dim(1), x.dim(2) / heads}, DataType::f32,
                 "split_heads y");
  return !y.empty();
}

// x [B, H, T, Dh] -> y [B, T, H·Dh].
bool prepare_merge_heads(const Tensor& x, Tensor& y) {
  check_dtype(x, DataType::f32, "merge_heads x");
  S2S_CHECK(x.rank() == 4, "merge_heads x is ", to_string(x.shape()), ", expected [B, H, T, Dh]");
  S2S_CHECK(&y != &x, "merge_heads output must not be its input");
  prepare_output(y, {x.dim(0), x.dim(2), x.dim(1) * x.dim(3)}, DataType::f32, "merge_heads y");
  return !y.empty();
}

}  // namespace detail

void split_heads(const Tensor& x, dim_t heads, Tensor& y) {
  if (!detail::prepare_split_heads(x, heads, y)) return;
  detail::split_heads_dnnl(x, heads, y);
}

void merge_heads(const Tensor& x, Tensor& y) {
  if (!detail::prepare_merge_heads(x, y)) return;
  detail::merge_heads_dnnl(x, y);
}

}  // namespace s2s::ops
