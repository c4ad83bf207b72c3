// DecoderState: everything one batch's step-by-step decoding keeps between steps. The model is
// shared and immutable; this is per request. Beam search moves rows only through select_rows
// (reorder by beam origin, or keep the rows still alive).
// Shapes: B rows, H heads, C step capacity, S source length, Dh head dim.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/model/layer_scratch.h"

namespace s2s {

struct LayerCache {
  Tensor self_keys;     // [B, H, C, Dh]: positions 0..step-1 are filled, C = capacity
  Tensor self_values;   // [B, H, C, Dh]
  // [N, H, S, Dh], one per source sentence (not per row: the hypotheses of a beam share it):
  // the encoder output projected once per batch; rows find theirs through DecoderState::origin_.
  Tensor cross_keys;
  Tensor cross_values;
};

class DecoderState {
 public:
  dim_t batch_size() const { return static_cast<dim_t>(source_lengths_.size()); }
  dim_t step() const { return step_; }
  dim_t limit() const { return limit_; }

  // Row i of the new state is row rows[i] of the old one. The same row may appear several
  // times (beam replication) and rows may be dropped (finished sentences).
  // Cost: the self-attention caches' filled positions only (not their capacity); the
  // cross-attention keys/values never move (rows only change which sentence they point at).
  void select_rows(const std::vector<std::int32_t>& rows);

 private:
  friend class Decoder;

  // Makes room in the self-attention caches for position step_: capacity doubles (up to
  // limit_) when full, so that memory follows the length decoded so far, not the limit
  // (3 x the longest source), at the cost of copying the filled positions log2(limit) times.
  void reserve_next_step();

  dim_t step_ = 0;
  dim_t limit_ = 0;     // most steps this batch may take
  dim_t capacity_ = 0;  // positions the self-attention caches hold now
  std::vector<std::int32_t> source_lengths_;  // of each row's source sentence
  std::vector<std::int32_t> origin_;  // the encoder row (source sentence) of each row
  std::vector<LayerCache> layers_;
  // Per-step temporaries.
  Tensor ids_;            // int32 [B, 1]
  Tensor x_;              // [B, 1, D]
  LayerScratch scratch_;
  // Targets of the copies in select_rows, swapped with what they replace (no allocation once
  // they are large enough).
  Tensor spare_;
  std::vector<std::int32_t> spare_origin_;
  std::vector<std::int32_t> spare_lengths_;
};

}  // namespace s2s
