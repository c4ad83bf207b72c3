// Position-wise feed-forward block: h = act(x·W0 + b0), ..., out = h·W(k-1) + b(k-1); the
// activation follows every linear but the last (Marian transformer-ffn-depth k, usually 2).
#pragma once

#include <string>
#include <vector>

#include "s2s/layers/linear.h"
#include "s2s/ops/elementwise.h"

namespace s2s::layers {

class FeedForward {
 public:
  FeedForward() = default;
  // Takes `<prefix>/linear_<k>/{weight,bias}` for k = 0..depth-1.
  FeedForward(WeightStore& weights, const std::string& prefix, dim_t d_model, dim_t hidden,
              int depth, ops::Activation activation);

  // x [..., D] -> out [..., D]; hidden/hidden2 are scratch.
  void operator()(const Tensor& x, Tensor& out, Tensor& hidden, Tensor& hidden2) const;

 private:
  std::vector<Linear> linears_;
  ops::Activation activation_ = ops::Activation::identity;
};

}  // namespace s2s::layers
