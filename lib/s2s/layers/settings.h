// What layers take from a model's configuration: how a sub-layer is wrapped (norms, residual
// order) and how positions are encoded. model/config.h holds these in ModelConfig and hands
// them down (ModelConfig::block(), ::embedding()), so that no layer sees the whole config.
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/core/shape.h"

namespace s2s::layers {

// Post-processing steps after a sub-layer, in order (Marian's transformer-postprocess letters
// without the dropout 'd': "dan" -> {add, norm}, "da" -> {add}).
enum class PostOp : std::uint8_t { add, norm };

enum class PositionEncoding : std::uint8_t {
  sinusoid_marian,  // frequencies exp(-k·ln(1e4)/(D/2 - 1)), sin half then cos half
  sinusoid_hf,      // frequencies exp(-k·ln(1e4)/(D/2)), same layout (HF, CTranslate2)
  learned,          // a [max_positions, D] table (Marian Wpos)
  none,
};

const char* position_encoding_name(PositionEncoding pe);

// The block wrapper around every sub-layer (layers/residual.h).
struct BlockSettings {
  dim_t d_model = 0;
  bool pre_norm = false;
  std::vector<PostOp> post_ops = {PostOp::add, PostOp::norm};
  float layer_norm_epsilon = 1e-6f;
};

// Token embeddings and positions (layers/embedding.h).
struct EmbeddingSettings {
  dim_t d_model = 0;
  PositionEncoding positions = PositionEncoding::sinusoid_marian;
  bool scale_embeddings = true;  // × sqrt(d_model)
  bool embedding_norm = false;   // a layer norm after embedding + positions
  float layer_norm_epsilon = 1e-6f;
  // Sinusoids: token t takes the row of position t + position_offset (fairseq numbers positions
  // from padding_idx + 1: M2M-100 and NLLB use 2).
  dim_t position_offset = 0;
};

}  // namespace s2s::layers
