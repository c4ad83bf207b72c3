// The Transformer encoder: embeddings + positions, N self-attention/feed-forward layers, and
// the optional final norm. Runs once per batch.
// Shapes: B batch, S source length (padded), D model dim, H heads.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/layers/embedding.h"
#include "s2s/layers/feed_forward.h"
#include "s2s/layers/residual.h"
#include "s2s/model/config.h"
#include "s2s/model/layer_scratch.h"
#include "s2s/model/workspace.h"

namespace s2s::model {

struct EncoderOutput {
  Tensor memory;                      // [B, S, D]; rows past a sentence's length are padding
  std::vector<std::int32_t> lengths;  // [B] source lengths including </s>
};

class Encoder {
 public:
  Encoder(layers::WeightStore& weights, const ModelConfig& config, Tensor embeddings,
          Tensor positions);

  // ids: int32 [B, S], right-padded; lengths[b] <= S and >= 1. Temporaries in `workspace`.
  EncoderOutput forward(const Tensor& ids, const std::vector<std::int32_t>& lengths,
                        Workspace& workspace) const;

 private:
  // forward() for one group of sentences: x [B, S, D] (resized).
  void encode(const Tensor& ids, const std::vector<std::int32_t>& lengths, LayerScratch& s,
              Tensor& x) const;

  struct Layer {
    layers::Residual self_block;
    layers::MultiHeadAttention self_attention;
    layers::Residual ffn_block;
    layers::FeedForward ffn;
  };

  dim_t heads_;
  layers::Embedding embedding_;
  std::vector<Layer> layers_;
  bool has_final_norm_;
  layers::LayerNorm final_norm_;
};

}  // namespace s2s::model
