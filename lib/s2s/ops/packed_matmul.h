// y[..., N] = x[..., K] · W[K, N] + bias[N] with W reordered once, at construction, into the
// layout oneDNN prefers. This is what Linear layers run; the primitive takes any row count M
// (runtime dimension), so one object serves every batch and step without rebuilding anything.
// x and y are float32 whatever the precision the product is computed in.
#pragma once

#include <memory>

#include "s2s/core/tensor.h"
#include "s2s/ops/precision.h"

namespace s2s::ops {

enum class WeightLayout {
  in_out,  // W stored [K, N] (Marian: y = x·W + b)
  out_in,  // W stored [N, K] (PyTorch Linear, and a tied embedding used as output layer)
};

// What a product does to each row of y before returning.
enum class Epilogue {
  none,
  // y's rows become log_softmax(x·W + bias): each row while it is still in a near cache from
  // the product (int8: right after its scaling pass), where a log-softmax over the whole matrix
  // afterwards read every row from memory again (a decoder step's output layer). The bits are
  // ops::log_softmax's.
  log_softmax,
};

class PackedMatmul {
 public:
  PackedMatmul() = default;
  // weight: f32, 2-D, in `layout`; bias: f32 [N] or nullptr. Both are copied/reordered (and the
  // weight converted to bf16 or quantized to int8 for those precisions, see precision.h).
  PackedMatmul(const Tensor& weight, WeightLayout layout, const Tensor* bias,
               Packing packing = {});
  // The same, but a weight that owns its buffer is kept as the packed weight when the layout
  // oneDNN chose is the one it is stored in (float32 in_out on CPUs without brgemm, whose
  // products take plain row-major weights): no copy and no second buffer, so a load touches
  // less fresh memory, which is slow to fault in on a VM (docs/performance.md, "Products with
  // fixed row counts").
  PackedMatmul(Tensor&& weight, WeightLayout layout, const Tensor* bias,
               Packing packing = {});

  // x: f32 [..., K] contiguous; y: f32 [..., N] (owned: resized; view: must match).
  void operator()(const Tensor& x, Tensor& y, Epilogue epilogue = Epilogue::none) const;

  dim_t in_features() const { return in_; }
  // Where the packed weight lives (tests: whether a given buffer was kept).
  const void* weight_data() const;
  dim_t out_features() const { return out_; }

 private:
  struct Impl;  // oneDNN objects, hidden from users
  // adoptable: the weight itself when its buffer may become the packed weight, else null.
  void build(const Tensor& weight, WeightLayout layout, const Tensor* bias, Packing packing,
             Tensor* adoptable);
  std::shared_ptr<const Impl> impl_;
  dim_t in_ = 0;
  dim_t out_ = 0;
};

}  // namespace s2s::ops
