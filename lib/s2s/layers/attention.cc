#include "s2s/layers/attention.h"

#include <cmath>

#include "s2s/ops/elementwise.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/relative_position.h"
#include "s2s/ops/softmax.h"
#include "s2s/ops/step_attention.h"
#include "s2s/ops/transpose.h"

namespace s2s::layers {

MultiHeadAttention::MultiHeadAttention(WeightStore& weights, const std::string& prefix,
                                       AttentionKind kind, dim_t d_model, dim_t heads,
                                       dim_t relative_max_distance)
    : o_(weights, prefix + "/o", d_model, d_model),
      d_model_(d_model),
      heads_(heads),
      scale_(1.0f / std::sqrt(static_cast<float>(d_model / heads))),
      max_distance_(relative_max_distance) {
  if (kind == AttentionKind::self) {
    projections_ = Linear::concatenated(weights, {prefix + "/q", prefix + "/k", prefix + "/v"},
                                        d_model, d_model);
  } else {
    q_ = Linear(weights, prefix + "/q", d_model, d_model);
    projections_ = Linear::concatenated(weights, {prefix + "/k", prefix + "/v"}, d_model, d_model);
  }
  if (max_distance_ > 0) {
    const Shape table{2 * max_distance_ + 1, d_model / heads};
    relative_keys_ = weights.take(prefix + "/relative_keys", table);
    relative_values_ = weights.take(prefix + "/relative_values", table);
  }
}

void MultiHeadAttention::project_qkv(const Tensor& x, Tensor& keys, Tensor& values,
                                     AttentionScratch& s) const {
  const dim_t d = d_model_;
  projections_(x, s.projected);  // [B, T, 3D]
  ops::split_heads(s.projected.slice(-1, 0, d), heads_, s.queries);
  ops::split_heads(s.projected.slice(-1, d, 2 * d), heads_, keys);
  ops::split_heads(s.projected.slice(-1, 2 * d, 3 * d), heads_, values);
}

void MultiHeadAttention::project_kv(const Tensor& memory, Tensor& keys, Tensor& values,
                                    AttentionScratch& s) const {
  const dim_t d = d_model_;
  projections_(memory, s.projected);  // [B, L, 2D]
  ops::split_heads(s.projected.slice(-1, 0, d), heads_, keys);
  ops::split_heads(s.projected.slice(-1, d, 2 * d), heads_, values);
}

void MultiHeadAttention::attend(const Tensor& x, const Tensor& keys, const Tensor& values,
                                const Tensor* visible, AttentionScratch& s, Tensor& out) const {
  q_(x, s.projected);
  ops::split_heads(s.projected, heads_, s.queries);
  attend_projected(keys, values, visible, s, out);
}

void MultiHeadAttention::step_self(const Tensor& x, Tensor& key_cache, Tensor& value_cache,
                                   dim_t position, AttentionScratch& s, Tensor& out) const {
  const Tensor keys = key_cache.slice(2, 0, position + 1);
  const Tensor values = value_cache.slice(2, 0, position + 1);
  Tensor key_slot = key_cache.slice(2, position, position + 1);
  Tensor value_slot = value_cache.slice(2, position, position + 1);
  if (max_distance_ > 0) {  // relative positions: the general path (OpenNMT-py models only)
    project_qkv(x, key_slot, value_slot, s);
    attend_projected(keys, values, nullptr, s, out);
    return;
  }
  const dim_t d = d_model_;
  projections_(x, s.projected);  // [B, 1, 3D]
  ops::split_heads(s.projected.slice(-1, d, 2 * d), heads_, key_slot);
  ops::split_heads(s.projected.slice(-1, 2 * d, 3 * d), heads_, value_slot);
  ops::step_attention(s.projected.slice(-1, 0, d), keys, values, nullptr, nullptr, scale_,
                      s.scores, s.merged);
  o_(s.merged, out);
}

void MultiHeadAttention::step_cross(const Tensor& x, const Tensor& keys, const Tensor& values,
                                    const Tensor& sentence_of_row, const Tensor& source_lengths,
                                    AttentionScratch& s, Tensor& out) const {
  q_(x, s.projected);  // [B, 1, D]
  ops::step_attention(s.projected, keys, values, &sentence_of_row, &source_lengths, scale_,
                      s.scores, s.merged);
  o_(s.merged, out);
}

void MultiHeadAttention::attend_projected(const Tensor& keys, const Tensor& values,
                                          const Tensor* visible, AttentionScratch& s,
                                          Tensor& out) const {
  ops::MatmulOptions scaled;
  scaled.transpose_b = true;
  scaled.alpha = scale_;  // Marian scales the product, not the queries
  ops::matmul(s.queries, keys, s.scores, scaled);
  if (max_distance_ > 0) {
    ops::matmul(s.queries, relative_keys_, s.relative, scaled);  // the relative term is scaled too
    ops::add_relative_scores(s.relative, max_distance_, s.scores);
  }
  ops::softmax(s.scores, s.scores, visible);
  ops::matmul(s.scores, values, s.context);
  if (max_distance_ > 0) {
    ops::bucket_by_distance(s.scores, max_distance_, s.relative);
    ops::matmul(s.relative, relative_values_, s.relative_context);
    ops::add(s.context, s.relative_context, s.context);
  }
  ops::merge_heads(s.context, s.merged);
  o_(s.merged, out);
}

}  // namespace s2s::layers
