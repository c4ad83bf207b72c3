// layer_norm: argument checks, output sizing and dispatch to oneDNN (see layer_norm.h).
#include "s2s/ops/layer_norm.h"

#include "s2s/ops/detail.h"

namespace s2s::ops {

namespace detail {

// x [..., D] contiguous, scale and bias [D], y like x.
bool prepare_layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, Tensor& y) {
  check_dtype(x, DataType::f32, "layer_norm x");
  S2S_CHECK(x.rank() >= 1, "layer_norm x needs at least one axis, got ", to_string(x.shape()));
  check_contiguous(x, "layer_norm x");
  const dim_t d = x.dim(-1);
  for (const Tensor* p : {&scale, &bias}) {
    const char* what = p == &scale ? "layer_norm scale" : "layer_norm bias";
    check_dtype(*p, DataType::f32, what);
    S2S_CHECK(p->shape() == Shape{d}, what, " is ", to_string(p->shape()), ", expected [", d,
              "] for x ", to_string(x.shape()));
    check_contiguous(*p, what);
  }
  prepare_output(y, x.shape(), DataType::f32, "layer_norm y");
  check_contiguous(y, "layer_norm y");
  return !y.empty();
}

}  // namespace detail

void layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon,
                Tensor& y) {
  if (!detail::prepare_layer_norm(x, scale, bias, y)) return;
  detail::layer_norm_dnnl(x, scale, bias, epsilon, y);
}

}  // namespace s2s::ops
