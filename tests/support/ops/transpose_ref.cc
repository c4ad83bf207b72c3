// Reference split_heads / merge_heads: four nested loops over both tensors' strides.
#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/transpose.h"

namespace s2s::ops::ref {

namespace {

// Copies heads[b, h, t, d] <-> rows[b, t, h·Dh + d]; `to_heads` picks the direction.
void copy_heads(const Tensor& rows, const Tensor& heads, bool to_heads, Tensor& out) {
  const dim_t B = heads.dim(0), H = heads.dim(1), T = heads.dim(2), Dh = heads.dim(3);
  const Shape& rs = rows.strides();
  const Shape& hs = heads.strides();
  const float* in = (to_heads ? rows : heads).data<float>();
  float* po = out.data<float>();
  for (dim_t b = 0; b < B; ++b)
    for (dim_t h = 0; h < H; ++h)
      for (dim_t t = 0; t < T; ++t)
        for (dim_t d = 0; d < Dh; ++d) {
          const dim_t r = b * rs[0] + t * rs[1] + (h * Dh + d) * rs[2];
          const dim_t s = b * hs[0] + h * hs[1] + t * hs[2] + d * hs[3];
          if (to_heads)
            po[s] = in[r];
          else
            po[r] = in[s];
        }
}

}  // namespace

void split_heads(const Tensor& x, dim_t heads, Tensor& y) {
  if (!detail::prepare_split_heads(x, heads, y)) return;
  copy_heads(x, y, /*to_heads=*/true, y);
}

void merge_heads(const Tensor& x, Tensor& y) {
  if (!detail::prepare_merge_heads(x, y)) return;
  copy_heads(y, x, /*to_heads=*/false, y);
}

}  // namespace s2s::ops::ref
