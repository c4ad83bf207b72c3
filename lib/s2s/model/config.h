// ModelConfig: everything that decides the math of a loaded model, resolved once by a format
// loader (formats/*). Layers read typed fields only; no layer ever sees a format's option names.
// Where Marian and Hugging Face differ (docs/models.md, "Where the formats compute differently")
// the difference is a field here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "s2s/core/shape.h"
#include "s2s/layers/settings.h"
#include "s2s/ops/elementwise.h"

namespace s2s::model {

const char* activation_name(ops::Activation act);

struct ModelConfig {
  std::string architecture = "transformer";
  dim_t d_model = 0;
  dim_t heads = 0;
  dim_t encoder_layers = 0;
  dim_t decoder_layers = 0;
  dim_t encoder_ffn_dim = 0;
  dim_t decoder_ffn_dim = 0;
  int encoder_ffn_depth = 2;  // number of linears in a feed-forward block
  int decoder_ffn_depth = 2;
  ops::Activation activation = ops::Activation::swish;
  dim_t source_vocab_size = 0;
  dim_t target_vocab_size = 0;

  // The block wrapper around every sub-layer: y = f(pre_norm ? LN(x) : x), then post_ops with
  // 'add' meaning + x. Post-norm: pre_norm false, {add, norm}. Pre-norm: true, {add}.
  bool pre_norm = false;
  std::vector<layers::PostOp> post_ops = {layers::PostOp::add, layers::PostOp::norm};
  bool embedding_norm = false;  // layer norm after embedding + positions
  bool final_norm = false;      // layer norm on each stack's output
  float layer_norm_epsilon = 1e-6f;

  layers::PositionEncoding positions = layers::PositionEncoding::sinusoid_marian;
  dim_t max_positions = 0;       // 0 = unlimited (sinusoids); rows of the learned table otherwise
  dim_t position_offset = 0;     // sinusoids: token t sits at position t + offset (fairseq: 2)
  bool scale_embeddings = true;  // token embeddings × sqrt(d_model)
  // Relative position representations in every self-attention (OpenNMT-py
  // max_relative_positions K; 0 = none): clipped distances, one table for keys, one for values.
  dim_t relative_max_distance = 0;

  bool shared_embeddings = false;  // encoder and decoder use one matrix
  bool tied_output = false;        // output layer = decoder embedding transposed
  bool output_bias = true;

  // Target-side special ids, read from the vocabulary, never assumed.
  std::int32_t eos_id = -1;
  std::int32_t unk_id = -1;
  std::int32_t source_eos_id = -1;
  // First decoder input: -1 = an all-zero vector (Marian); otherwise this token's embedding.
  std::int32_t decoder_start_id = -1;
  // Target tokens the search never produces (Hugging Face's pad, which it bans).
  std::vector<std::int32_t> suppressed_ids;
  // Whether </s> is appended to the source (Marian, HF: yes; OpenNMT-py via CTranslate2: no).
  bool add_source_eos = true;
  // Word alignment (--alignment): head 0 of this decoder layer's cross-attention, 0-based
  // (Marian's transformer-guided-alignment-layer, 1-based or "last" there); -1 when the model
  // does not say which, and alignment_note says why.
  dim_t alignment_layer = -1;
  std::string alignment_note;

  dim_t head_dim() const { return heads > 0 ? d_model / heads : 0; }
  // What the layers take from this config (layers/settings.h).
  layers::BlockSettings block() const;
  layers::EmbeddingSettings embedding() const;

  // Every problem with the configuration, one message each; empty when it is sound.
  std::vector<std::string> validate() const;
};

}  // namespace s2s::model
