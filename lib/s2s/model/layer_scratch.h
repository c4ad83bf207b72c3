// Temporaries of one encoder or decoder layer call. Kept by the caller (the decoder state for
// step-by-step decoding) so that, once a batch has started, steps reuse the same buffers.
#pragma once

#include "s2s/layers/attention.h"
#include "s2s/layers/embedding.h"

namespace s2s::model {

struct LayerScratch {
  Tensor normed;     // pre-norm input of a sub-layer [B, T, D]
  Tensor sublayer;   // a sub-layer's output [B, T, D]
  Tensor keys;       // [B, H, T, Dh] (full-sequence self-attention)
  Tensor values;
  Tensor hidden;     // feed-forward hidden [B, T, F]
  Tensor hidden2;
  layers::AttentionScratch attention;
  layers::EmbeddingScratch embedding;
};

}  // namespace s2s::model
