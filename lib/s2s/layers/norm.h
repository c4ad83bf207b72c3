// Layer normalisation with learned scale and bias over the model dimension.
#pragma once

#include <string>

#include "s2s/layers/weights.h"

namespace s2s::layers {

class LayerNorm {
 public:
  LayerNorm() = default;
  // Takes `<prefix>/scale` and `<prefix>/bias`, both [dim].
  LayerNorm(WeightStore& weights, const std::string& prefix, dim_t dim, float epsilon);

  // x [..., dim] -> y; y may be x.
  void operator()(const Tensor& x, Tensor& y) const;

 private:
  Tensor scale_;
  Tensor bias_;
  float epsilon_ = 0.0f;
};

}  // namespace s2s::layers
