#include "s2s/layers/linear.h"

#include <algorithm>

namespace s2s::layers {

Linear::Linear(WeightStore& weights, const std::string& prefix, dim_t in, dim_t out,
               bool with_bias) {
  auto w = weights.take_linear(prefix + "/weight", in, out);
  Tensor bias;
  if (with_bias) bias = weights.take(prefix + "/bias", {out});
  matmul_ = ops::PackedMatmul(std::move(w.weight), w.layout, with_bias ? &bias : nullptr,
                              weights.linear_packing());
}

Linear::Linear(Tensor weight, ops::WeightLayout layout, const Tensor* bias, ops::Packing packing)
    : matmul_(std::move(weight), layout, bias, packing) {}

Linear Linear::concatenated(WeightStore& weights, const std::vector<std::string>& prefixes,
                            dim_t in, dim_t out) {
  const dim_t parts = static_cast<dim_t>(prefixes.size()), total = parts * out;
  Tensor weight({in, total}), bias({total});
  float* w = weight.data<float>();
  for (dim_t p = 0; p < parts; ++p) {
    const std::string& prefix = prefixes[static_cast<std::size_t>(p)];
    const auto part = weights.take_linear(prefix + "/weight", in, out);
    const Tensor part_bias = weights.take(prefix + "/bias", {out});
    const float* src = part.weight.data<float>();
    const bool in_out = part.layout == ops::WeightLayout::in_out;
    // Written in_out: row r of the result holds input feature r of every part. Rows in
    // parallel: at load this copies every layer's q, k and v (3 x 1 MB per layer, base size).
#pragma omp parallel for schedule(static)
    for (dim_t r = 0; r < in; ++r) {
      float* row = w + r * total + p * out;
      if (in_out)
        std::copy_n(src + r * out, out, row);
      else
        for (dim_t c = 0; c < out; ++c) row[c] = src[c * in + r];
    }
    std::copy_n(part_bias.data<float>(), out, bias.data<float>() + p * out);
  }  // each part's tensor is freed here, once copied
  return Linear(std::move(weight), ops::WeightLayout::in_out, &bias, weights.linear_packing());
}

}  // namespace s2s::layers
