#include "s2s/layers/feed_forward.h"

namespace s2s::layers {

FeedForward::FeedForward(WeightStore& weights, const std::string& prefix, dim_t d_model,
                         dim_t hidden, int depth, ops::Activation activation)
    : activation_(activation) {
  for (int k = 0; k < depth; ++k) {
    const dim_t in = k == 0 ? d_model : hidden;
    const dim_t out = k == depth - 1 ? d_model : hidden;
    linears_.emplace_back(weights, prefix + "/linear_" + std::to_string(k), in, out);
  }
}

void FeedForward::operator()(const Tensor& x, Tensor& out, Tensor& hidden, Tensor& hidden2) const {
  const Tensor* input = &x;
  for (std::size_t k = 0; k + 1 < linears_.size(); ++k) {
    Tensor& h = k % 2 == 0 ? hidden : hidden2;
    linears_[k](*input, h);
    ops::activation(activation_, h, h);
    input = &h;
  }
  linears_.back()(*input, out);
}

}  // namespace s2s::layers
