#include "s2s/layers/residual.h"

#include <algorithm>

#include "s2s/ops/elementwise.h"

namespace s2s::layers {

Residual::Residual(WeightStore& weights, const std::string& block, const BlockSettings& config)
    : has_pre_norm_(config.pre_norm), post_ops_(config.post_ops) {
  if (has_pre_norm_)
    pre_norm_ = LayerNorm(weights, block + "/pre_norm", config.d_model, config.layer_norm_epsilon);
  if (std::find(post_ops_.begin(), post_ops_.end(), PostOp::norm) != post_ops_.end())
    post_norm_ = LayerNorm(weights, block + "/post_norm", config.d_model, config.layer_norm_epsilon);
}

const Tensor& Residual::pre(const Tensor& x, Tensor& buffer) const {
  if (!has_pre_norm_) return x;
  pre_norm_(x, buffer);
  return buffer;
}

void Residual::post(Tensor& z, const Tensor& x) const {
  for (PostOp op : post_ops_) {
    if (op == PostOp::add)
      ops::add(z, x, z);
    else
      post_norm_(z, z);
  }
}

}  // namespace s2s::layers
