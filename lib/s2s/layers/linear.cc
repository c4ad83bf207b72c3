#include "s2s/layers/linear.h"

namespace s2s::layers {

Linear::Linear(WeightStore& weights, const std::string& prefix, dim_t in, dim_t out,
               bool with_bias) {
  const auto w = weights.take_linear(prefix + "/weight", in, out);
  Tensor bias;
  if (with_bias) bias = weights.take(prefix + "/bias", {out});
  matmul_ = ops::PackedMatmul(w.weight, w.layout, with_bias ? &bias : nullptr,
                              weights.linear_precision());
  weights.release(prefix + "/weight");
}

Linear::Linear(const Tensor& weight, ops::WeightLayout layout, const Tensor* bias,
               ops::Precision precision)
    : matmul_(weight, layout, bias, precision) {}

}  // namespace s2s::layers
