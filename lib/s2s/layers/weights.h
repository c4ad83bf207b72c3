// WeightStore: canonical weight name -> tensor, filled by a format loader and consumed by the
// model's constructors, which declare the exact shape they expect for every weight.
//
// Canonical names (the only names layers and models use; formats translate to them):
//   encoder/embeddings [Vs, D]          decoder/embeddings [Vt, D]        positions [P, D]
//   {encoder,decoder}/emb_norm/{scale,bias} [D]      {encoder,decoder}/final_norm/{scale,bias}
//   encoder/layer_<i>/self_attn/{q,k,v,o}/{weight [D,D], bias [D]}
//   <block>/pre_norm/{scale,bias}, <block>/post_norm/{scale,bias}   (block = .../self_attn, .../ffn, ...)
//   decoder/layer_<i>/{self_attn,cross_attn}/...                      (i is 0-based)
//   {encoder,decoder}/layer_<i>/ffn/linear_<k>/{weight,bias}        (k is 0-based)
//   decoder/output/{weight [D, Vt], bias [Vt]}
// Linear weights are logically [in, out]; an entry may be stored [out, in] (its layout says so)
// so that loaders never transpose.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "s2s/core/tensor.h"
#include "s2s/ops/packed_matmul.h"

namespace s2s::layers {

class WeightStore {
 public:
  // `source` names the file the weights came from, for error messages.
  explicit WeightStore(std::string source = "") : source_(std::move(source)) {}

  // `origin` is the tensor's name in the file, used in error messages (defaults to `name`).
  void add(const std::string& name, Tensor tensor,
           ops::WeightLayout layout = ops::WeightLayout::in_out, std::string origin = "");
  // `name` refers to the same tensor as `target` (tied weights).
  void alias(const std::string& name, const std::string& target);
  bool contains(const std::string& name) const;
  // Whether some weight was added from this name in the file.
  bool contains_origin(const std::string& origin) const;

  // A view of the weight, after checking its shape; ModelError naming the source file, the
  // weight and both shapes when it is missing or mis-shaped.
  Tensor take(const std::string& name, const Shape& expected);

  struct Linear {
    Tensor weight;  // stored in `layout`: the tensor itself, or a view when it is tied (below)
    ops::WeightLayout layout;
  };
  // A linear weight of logical shape [in, out], stored in either layout. The store hands the
  // tensor itself over (keeping nothing of it) unless another name refers to it; then a view.
  // A linear layer packs its weight, and float32 packing can keep the given buffer as it is.
  Linear take_linear(const std::string& name, dim_t in, dim_t out);

  // How linear layers pack their weights (set by the Model before it builds them).
  void set_linear_packing(ops::Packing p) { linear_packing_ = p; }
  const ops::Packing& linear_packing() const { return linear_packing_; }
  ops::Precision linear_precision() const { return linear_packing_.precision; }

  // Names (in the file) that nothing has taken: extra tensors.
  std::vector<std::string> untaken() const;
  // Elements of all weights, tied ones counted once.
  dim_t parameter_count() const;
  const std::string& source() const { return source_; }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Tensor tensor;
    ops::WeightLayout layout;
    std::string origin;
    bool taken = false;
    int aliases = 0;
  };
  Entry& find(const std::string& name);
  std::string describe(const std::string& name, const Entry& e) const;

  std::string source_;
  ops::Packing linear_packing_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::string> aliases_;  // alias -> target
};

}  // namespace s2s::layers
