// y[..., N] = x[..., K] · W[K, N] + bias[N] with W reordered once, at construction, into the
// layout oneDNN prefers. This is what Linear layers run; the primitive takes any row count M
// (runtime dimension), so one object serves every batch and step without rebuilding anything.
#pragma once

#include <memory>

#include "s2s/core/tensor.h"

namespace s2s::ops {

enum class WeightLayout {
  in_out,  // W stored [K, N] (Marian: y = x·W + b)
  out_in,  // W stored [N, K] (PyTorch Linear, and a tied embedding used as output layer)
};

class PackedMatmul {
 public:
  PackedMatmul() = default;
  // weight: f32, 2-D, in `layout`; bias: f32 [N] or nullptr. Both are copied/reordered.
  PackedMatmul(const Tensor& weight, WeightLayout layout, const Tensor* bias);

  // x: f32 [..., K] contiguous; y: f32 [..., N] (owned: resized; view: must match).
  void operator()(const Tensor& x, Tensor& y) const;

  dim_t in_features() const { return in_; }
  dim_t out_features() const { return out_; }

 private:
  struct Impl;  // oneDNN objects, hidden from users
  std::shared_ptr<const Impl> impl_;
  dim_t in_ = 0;
  dim_t out_ = 0;
};

}  // namespace s2s::ops
