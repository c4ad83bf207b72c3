// Reference layer_norm: two passes per row in double (see layer_norm.h).
#include <cmath>

#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/layer_norm.h"

namespace s2s::ops::ref {

void layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon,
                Tensor& y) {
  if (!detail::prepare_layer_norm(x, scale, bias, y)) return;
  const dim_t d = x.dim(-1);
  const dim_t rows = x.numel() / d;
  const float* px = x.data<float>();
  const float* ps = scale.data<float>();
  const float* pb = bias.data<float>();
  float* py = y.data<float>();
  for (dim_t r = 0; r < rows; ++r) {
    const float* in = px + r * d;
    float* out = py + r * d;
    double mean = 0.0;
    for (dim_t i = 0; i < d; ++i) mean += in[i];
    mean /= d;
    double var = 0.0;
    for (dim_t i = 0; i < d; ++i) var += (in[i] - mean) * (in[i] - mean);
    var /= d;  // biased: divided by D, not D - 1
    const double inv_std = 1.0 / std::sqrt(var + epsilon);
    for (dim_t i = 0; i < d; ++i)
      out[i] = static_cast<float>(ps[i] * (in[i] - mean) * inv_std + pb[i]);
  }
}

}  // namespace s2s::ops::ref
