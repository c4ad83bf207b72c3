// Multi-head scaled dot-product attention (docs/models.md, "Marian's forward pass"):
//   Q = x·Wq + bq, K = m·Wk + bk, V = m·Wv + bv; head h uses columns [h·Dh, (h+1)·Dh)
//   A_h = softmax(Q_h·K_hᵀ / sqrt(Dh)) over the visible keys;  out = concat_h(A_h·V_h)·Wo + bo
// With relative positions (max_distance K > 0; self-attention of OpenNMT-py models, §6.2) the
// scores also get q'·R_K[idx(i, j)] and the output Σ_j A[i, j]·R_V[idx(i, j)] (ops/relative_position.h).
// The projections are fused at load (Linear::concatenated): self-attention runs Q, K and V as one
// [D, 3D] product, cross-attention K and V as one [D, 2D] product, computed once per batch. Keys
// and values are written where the caller says (project_qkv/project_kv) so that it can keep them:
// the decoder writes one step at a time into its self-attention cache.
// Shapes: B batch, T queries, L keys, D model, H heads, Dh = D / H.
#pragma once

#include <string>

#include "s2s/layers/linear.h"

namespace s2s::layers {

// Temporaries of one attention call, kept by the caller so that steps reuse their buffers.
struct AttentionScratch {
  Tensor projected;  // [B, T or L, D]
  Tensor queries;    // [B, H, T, Dh]
  Tensor scores;     // [B, H, T, L]
  Tensor context;    // [B, H, T, Dh]
  Tensor merged;     // [B, T, D]: the heads' outputs side by side (the input of Wo)
  Tensor relative;   // [B, H, T, 2K+1]: query·R_Kᵀ, then attention mass per distance
  Tensor relative_context;  // [B, H, T, Dh]
  Tensor history_keys;      // [B, H, L, Dh]: a step's keys in row order (relative positions only)
  Tensor history_values;
  Tensor converted;  // [B, H, L, Dh] float32 keys or values on their way into a bfloat16 cache
};

enum class AttentionKind {
  self,   // queries, keys and values from the same input (project_qkv + attend_projected)
  cross,  // queries from x, keys and values from the encoder output (project_kv + attend)
};

class MultiHeadAttention {
 public:
  MultiHeadAttention() = default;
  // Takes `<prefix>/{q,k,v,o}/{weight,bias}`, and with relative_max_distance K > 0 also
  // `<prefix>/relative_keys` and `<prefix>/relative_values`, both [2K+1, Dh].
  MultiHeadAttention(WeightStore& weights, const std::string& prefix, AttentionKind kind,
                     dim_t d_model, dim_t heads, dim_t relative_max_distance = 0);

  // Self-attention: x [B, T, D] -> the queries (kept in s.queries for attend_projected) and
  // keys, values [B, H, T, Dh] (may be views: cache slots; float32, or bfloat16 for the caches
  // of the int8 and bfloat16 precisions).
  void project_qkv(const Tensor& x, Tensor& keys, Tensor& values, AttentionScratch& s) const;
  // The queries of the last project_qkv attend over keys/values [B, H, L, Dh] (views allowed).
  // visible: int32 counts [B, H, T] or nullptr (all L keys visible). out: [B, T, D].
  void attend_projected(const Tensor& keys, const Tensor& values, const Tensor* visible,
                        AttentionScratch& s, Tensor& out) const;

  // Cross-attention: memory [B, L, D] -> keys, values [B, H, L, Dh] (float32 or bfloat16,
  // whatever type they have; an empty tensor is float32).
  void project_kv(const Tensor& memory, Tensor& keys, Tensor& values, AttentionScratch& s) const;
  // x [B, T, D] attends over keys/values as attend_projected does.
  void attend(const Tensor& x, const Tensor& keys, const Tensor& values, const Tensor* visible,
              AttentionScratch& s, Tensor& out) const;

  // One decoder step (T = 1), through the fused ops::step_attention kernel; the caches are
  // float32 or bfloat16 (the new keys and values rounded to nearest even as they are written):
  // Self-attention: x [B, 1, D]. The caches are position-major [C, R, H, Dh] (see
  // DecoderState): this step's keys and values go to slab `position`, rows 0..B-1; then row b
  // attends over positions 0..position, reading position j from row history[b, j] of slab j
  // (history: int32 [B, > position]).
  void step_self(const Tensor& x, Tensor& key_cache, Tensor& value_cache, dim_t position,
                 const Tensor& history, AttentionScratch& s, Tensor& out) const;
  // Cross-attention: x [B, 1, D] over keys/values [N, H, S, Dh] of N source sentences; row b
  // reads sentence sentence_of_row[b] (int32 [B]) and its first source_lengths[b] positions, so
  // the hypotheses of a beam share one copy of their sentence's keys and values.
  void step_cross(const Tensor& x, const Tensor& keys, const Tensor& values,
                  const Tensor& sentence_of_row, const Tensor& source_lengths,
                  AttentionScratch& s, Tensor& out) const;

  dim_t heads() const { return heads_; }

  // The attention probabilities of the last call on `s` (step_*: T = 1; attend*: T queries)
  // for row b, head h, query t: L floats, the first (visible) ones meaningful.
  const float* probabilities(const AttentionScratch& s, dim_t b, dim_t h, dim_t t, dim_t queries,
                             dim_t keys) const {
    return s.scores.data<float>() + ((b * heads_ + h) * queries + t) * keys;
  }

 private:
  Linear q_;            // cross only
  Linear projections_;  // self: [Q K V], cross: [K V]
  Linear o_;
  dim_t d_model_ = 0;
  dim_t heads_ = 0;
  float scale_ = 1.0f;
  dim_t max_distance_ = 0;
  Tensor relative_keys_;
  Tensor relative_values_;
};

}  // namespace s2s::layers
