#include "s2s/layers/norm.h"

#include "s2s/ops/layer_norm.h"

namespace s2s::layers {

LayerNorm::LayerNorm(WeightStore& weights, const std::string& prefix, dim_t dim, float epsilon)
    : scale_(weights.take(prefix + "/scale", {dim})),
      bias_(weights.take(prefix + "/bias", {dim})),
      epsilon_(epsilon) {}

void LayerNorm::operator()(const Tensor& x, Tensor& y) const {
  ops::layer_norm(x, scale_, bias_, epsilon_, y);
}

}  // namespace s2s::layers
