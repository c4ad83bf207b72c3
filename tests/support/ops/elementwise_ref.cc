// Reference activation and add: one element at a time, in double (see elementwise.h).
#include <algorithm>
#include <cmath>

#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/elementwise.h"

namespace s2s::ops::ref {

namespace {

double apply(Activation act, double x) {
  switch (act) {
    case Activation::identity: return x;
    case Activation::relu: return std::max(0.0, x);
    case Activation::swish: return x / (1.0 + std::exp(-x));
    case Activation::gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  }
  throw InternalError("unknown activation " + std::to_string(static_cast<int>(act)));
}

}  // namespace

void activation(Activation act, const Tensor& x, Tensor& y) {
  if (!detail::prepare_activation(x, y)) return;
  const float* px = x.data<float>();
  float* py = y.data<float>();
  for (dim_t i = 0; i < x.numel(); ++i) py[i] = static_cast<float>(apply(act, px[i]));
}

void add(const Tensor& a, const Tensor& b, Tensor& c, float a_scale) {
  if (!detail::prepare_add(a, b, c)) return;
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* pc = c.data<float>();
  const dim_t period = b.numel();  // b repeats over a's leading dims
  for (dim_t i = 0; i < a.numel(); ++i)
    pc[i] = static_cast<float>(static_cast<double>(a_scale) * pa[i] + pb[i % period]);
}

}  // namespace s2s::ops::ref
