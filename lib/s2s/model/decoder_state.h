// DecoderState: everything one batch's step-by-step decoding keeps between steps. The model is
// shared and immutable; this is per request. Beam search moves rows only through select_rows
// (reorder by beam origin, or keep the rows still alive).
// Shapes: B rows now, R most rows of any step, H heads, S source length, Dh head dim,
// N source sentences.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/layers/linear.h"
#include "s2s/model/layer_scratch.h"

namespace s2s::model {

// The caches hold float32, or bfloat16 with the int8 and bfloat16 precisions (Decoder).
struct LayerCache {
  // [limit, R, H, Dh], position-major: slab t holds the keys/values that the rows of step t
  // wrote, row by row. Row r's own history is slab j, row history_(r, j), for j <= t: when
  // beams reorder, only that small table moves, never the keys and values. Allocated for the
  // limit at once but written slab after slab, so the pages that are resident (and faulted in)
  // follow the length decoded so far; nothing is ever copied to grow.
  Tensor self_keys;
  Tensor self_values;
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
  // times (beam replication, up to the rows given to Decoder::start) and rows may be dropped
  // (finished sentences). Cost: B × step int32 entries of the history table; the caches of
  // keys and values never move.
  void select_rows(const std::vector<std::int32_t>& rows);

  // Word alignment: once asked (Decoder::keep_alignment, after Decoder::start, which turns it
  // off), every step keeps each row's cross-attention probabilities of the model's alignment
  // layer, head 0, over its source positions: alignment_row(r) holds source_length(r) floats
  // until the next step.
  const float* alignment_row(dim_t r) const { return alignment_.data<float>() + r * alignment_.dim(1); }
  dim_t source_length(dim_t r) const { return source_lengths_[static_cast<std::size_t>(r)]; }

 private:
  friend class Decoder;

  // Records that each row's position step_ is its own row of slab step_.
  void begin_step();

  dim_t step_ = 0;
  dim_t limit_ = 0;         // most steps this batch may take
  dim_t row_capacity_ = 0;  // R: rows each slab holds
  std::vector<std::int32_t> source_lengths_;  // of each row's source sentence
  std::vector<std::int32_t> origin_;  // the encoder row (source sentence) of each row
  std::vector<LayerCache> layers_;
  Tensor history_;  // int32 [B, limit_]: row r's position j is row history_[r, j] of slab j
  // Per-step temporaries.
  Tensor ids_;            // int32 [B, 1]
  Tensor x_;              // [B, 1, D]
  LayerScratch scratch_;
  bool keep_alignment_ = false;
  // Decoder::restrict_output: the candidate ids and the output layer of their rows, packed in
  // the model's precision; no candidates: the whole vocabulary.
  std::vector<std::int32_t> candidates_;
  layers::Linear candidate_output_;
  Tensor alignment_;  // [B, S] with keep_alignment_
  // Targets of the copies, swapped with what they replace (no allocation once large enough).
  Tensor spare_history_;
  std::vector<std::int32_t> spare_origin_;
  std::vector<std::int32_t> spare_lengths_;
};

}  // namespace s2s::model
