// Linear layer: y = x · W + b, with W packed once at load (ops::PackedMatmul).
#pragma once

#include <string>
#include <vector>

#include "s2s/layers/weights.h"
#include "s2s/ops/packed_matmul.h"

namespace s2s::layers {

class Linear {
 public:
  Linear() = default;
  // Takes `<prefix>/weight` [in, out] and, if with_bias, `<prefix>/bias` [out] from the store,
  // packs them in the store's linear_precision(); the store keeps no copy of the weight.
  Linear(WeightStore& weights, const std::string& prefix, dim_t in, dim_t out, bool with_bias = true);
  // From an explicit weight (e.g. a view of a tied embedding [V, D] used as the output layer,
  // out_in). An owned weight may become the packed one (ops::PackedMatmul).
  Linear(Tensor weight, ops::WeightLayout layout, const Tensor* bias, ops::Packing packing = {});
  // Several layers of the same input side by side, as one product: y = x · [W1 W2 ...] + [b1 b2 ...]
  // (e.g. the Q, K and V projections of self-attention: one [in, 3·out] matmul per call instead
  // of three). Output columns [i·out, (i+1)·out) are layer i's; each prefix is taken as above.
  static Linear concatenated(WeightStore& weights, const std::vector<std::string>& prefixes,
                             dim_t in, dim_t out);

  // x [..., in] -> y [..., out]
  // epilogue: what is done to each row of y before returning (ops::PackedMatmul).
  void operator()(const Tensor& x, Tensor& y, ops::Epilogue epilogue = ops::Epilogue::none) const {
    matmul_(x, y, epilogue);
  }
  dim_t out_features() const { return matmul_.out_features(); }

 private:
  ops::PackedMatmul matmul_;
};

}  // namespace s2s::layers
