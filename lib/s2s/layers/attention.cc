#include "s2s/layers/attention.h"

#include <cmath>
#include <vector>

#include "s2s/ops/convert.h"
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

namespace {

// ops::split_heads into y of either cache type: a bfloat16 y (a cache of the int8 and bfloat16
// precisions) gets the heads through the float32 scratch `converted`. An owned y keeps its type.
void split_heads_into(const Tensor& x, dim_t heads, Tensor& y, Tensor& converted) {
  if (y.dtype() == DataType::f32) {
    ops::split_heads(x, heads, y);
    return;
  }
  ops::split_heads(x, heads, converted);
  ops::convert(converted, y.dtype(), y);
}

}  // namespace

void MultiHeadAttention::project_qkv(const Tensor& x, Tensor& keys, Tensor& values,
                                     AttentionScratch& s) const {
  const dim_t d = d_model_;
  projections_(x, s.projected);  // [B, T, 3D]
  ops::split_heads(s.projected.slice(-1, 0, d), heads_, s.queries);
  split_heads_into(s.projected.slice(-1, d, 2 * d), heads_, keys, s.converted);
  split_heads_into(s.projected.slice(-1, 2 * d, 3 * d), heads_, values, s.converted);
}

void MultiHeadAttention::project_kv(const Tensor& memory, Tensor& keys, Tensor& values,
                                    AttentionScratch& s) const {
  const dim_t d = d_model_;
  projections_(memory, s.projected);  // [B, L, 2D]
  split_heads_into(s.projected.slice(-1, 0, d), heads_, keys, s.converted);
  split_heads_into(s.projected.slice(-1, d, 2 * d), heads_, values, s.converted);
}

void MultiHeadAttention::attend(const Tensor& x, const Tensor& keys, const Tensor& values,
                                const Tensor* visible, AttentionScratch& s, Tensor& out) const {
  q_(x, s.projected);
  ops::split_heads(s.projected, heads_, s.queries);
  attend_projected(keys, values, visible, s, out);
}

namespace {

// The position-major cache [C, R, H, Dh] (float32 or bfloat16) gathered into float32
// [B, H, L, Dh] in row order, following each row's history (the layout attend_projected takes).
void gather_history(const Tensor& cache, const Tensor& history, dim_t batch, dim_t length,
                    Tensor& out) {
  const dim_t heads = cache.dim(2), head_dim = cache.dim(3);
  out.resize({batch, heads, length, head_dim}, DataType::f32);
  const std::int32_t* slot = history.data<std::int32_t>();
  const dim_t stride = history.dim(1);
  for (dim_t b = 0; b < batch; ++b)
    for (dim_t j = 0; j < length; ++j) {
      const dim_t row = slot[b * stride + j];
      Tensor to = out.slice(0, b, b + 1).slice(2, j, j + 1);  // [1, H, 1, Dh]
      ops::convert(cache.slice(0, j, j + 1).slice(1, row, row + 1).reshaped(to.shape()),
                   DataType::f32, to);
    }
}

}  // namespace

void MultiHeadAttention::step_self(const Tensor& x, Tensor& key_cache, Tensor& value_cache,
                                   dim_t position, const Tensor& history, AttentionScratch& s,
                                   Tensor& out) const {
  const dim_t batch = x.dim(0), d = d_model_;
  // This step's slab, rows 0..B-1: [B, D] contiguous.
  Tensor key_slab = key_cache.slice(0, position, position + 1).slice(1, 0, batch);
  Tensor value_slab = value_cache.slice(0, position, position + 1).slice(1, 0, batch);
  if (max_distance_ > 0) {  // relative positions: the general path (OpenNMT-py models only)
    Tensor key_slot = key_slab.reshaped({batch, heads_, 1, d / heads_});
    Tensor value_slot = value_slab.reshaped({batch, heads_, 1, d / heads_});
    project_qkv(x, key_slot, value_slot, s);
    gather_history(key_cache, history, batch, position + 1, s.history_keys);
    gather_history(value_cache, history, batch, position + 1, s.history_values);
    attend_projected(s.history_keys, s.history_values, nullptr, s, out);
    return;
  }
  projections_(x, s.projected);  // [B, 1, 3D]
  Tensor key_rows = key_slab.reshaped({batch, 1, d});
  Tensor value_rows = value_slab.reshaped({batch, 1, d});
  ops::convert(s.projected.slice(-1, d, 2 * d), key_cache.dtype(), key_rows);
  ops::convert(s.projected.slice(-1, 2 * d, 3 * d), value_cache.dtype(), value_rows);
  // The caches seen as [R, H, position + 1, Dh], position j of row b at row history[b, j].
  const std::vector<int> rows_first{1, 2, 0, 3};
  const Tensor keys = key_cache.slice(0, 0, position + 1).permuted(rows_first);
  const Tensor values = value_cache.slice(0, 0, position + 1).permuted(rows_first);
  ops::StepAttentionRows rows;
  rows.cache_of_key = &history;
  ops::step_attention(s.projected.slice(-1, 0, d), keys, values, rows, scale_, s.scores,
                      s.merged);
  o_(s.merged, out);
}

void MultiHeadAttention::step_cross(const Tensor& x, const Tensor& keys, const Tensor& values,
                                    const Tensor& sentence_of_row, const Tensor& source_lengths,
                                    AttentionScratch& s, Tensor& out) const {
  q_(x, s.projected);  // [B, 1, D]
  ops::StepAttentionRows rows;
  rows.cache_of_row = &sentence_of_row;
  rows.visible = &source_lengths;
  ops::step_attention(s.projected, keys, values, rows, scale_, s.scores, s.merged);
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
