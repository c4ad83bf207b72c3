// Token embedding + positions: out = E[id] · (sqrt(D) if scaled) + PE(position), then an optional
// layer norm. An id of -1 stands for the all-zero vector Marian feeds as the first decoder input.
#pragma once

#include <string>

#include "s2s/layers/norm.h"
#include "s2s/layers/settings.h"
#include "s2s/layers/weights.h"

namespace s2s::layers {

// Rows first..first+count-1 of a sinusoidal table: [count, d], sin half then cos half.
// Computed in float32 as Marian does (HF uses D/2 instead of D/2-1: docs/models.md, "Where the
// formats compute differently").
void sinusoid_positions(PositionEncoding kind, dim_t first, dim_t count, dim_t d, Tensor& out);

// Temporaries of one embedding call, kept by the caller between steps.
struct EmbeddingScratch {
  Tensor lookup_ids;  // int32 [B·T]: ids with the zero-vector start (-1) mapped to row 0
  Tensor position_rows;  // int32 [T]: learned-table rows
  Tensor positions;   // [T, D]
};

class Embedding {
 public:
  Embedding() = default;
  // `table` is the [vocab, D] embedding; `positions` the learned [P, D] table when the config
  // says so (else ignored); the norm is taken as `<stack>/emb_norm` when the config has one.
  Embedding(WeightStore& weights, const std::string& stack, Tensor table, Tensor positions,
            const EmbeddingSettings& settings);

  // ids: int32 [B, T]; token t of every row sits at position first_position + t. out: [B, T, D].
  void operator()(const Tensor& ids, dim_t first_position, EmbeddingScratch& s, Tensor& out) const;

  const Tensor& table() const { return table_; }

 private:
  Tensor table_;
  Tensor learned_positions_;
  PositionEncoding kind_ = PositionEncoding::none;
  float scale_ = 1.0f;
  dim_t position_offset_ = 0;  // sinusoids only (EmbeddingSettings)
  bool has_norm_ = false;
  LayerNorm norm_;
};

}  // namespace s2s::layers
