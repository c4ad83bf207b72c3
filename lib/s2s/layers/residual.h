// The wrapper Marian puts around every sub-layer f (docs/models.md, "Marian's forward pass"):
//   y = pre(x); z = f(y); z = post(z, x)
// pre is an optional layer norm (`<block>/pre_norm`); post applies add (z += x) and norm
// (`<block>/post_norm`) in the configured order. Post-norm: LN(x + f(x)); pre-norm: x + f(LN(x)).
#pragma once

#include <string>
#include <vector>

#include "s2s/layers/norm.h"
#include "s2s/layers/settings.h"

namespace s2s::layers {

class Residual {
 public:
  Residual() = default;
  Residual(WeightStore& weights, const std::string& block, const BlockSettings& settings);

  // The sub-layer's input: LN(x) written into buffer, or x itself.
  const Tensor& pre(const Tensor& x, Tensor& buffer) const;
  // Applies the post ops to z, the sub-layer's output; x is the block input.
  void post(Tensor& z, const Tensor& x) const;

 private:
  bool has_pre_norm_ = false;
  LayerNorm pre_norm_;
  std::vector<PostOp> post_ops_;
  LayerNorm post_norm_;
};

}  // namespace s2s::layers
