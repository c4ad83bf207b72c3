#include "s2s/model/config.h"

namespace s2s::model {

const char* activation_name(ops::Activation act) {
  switch (act) {
    case ops::Activation::identity: return "identity";
    case ops::Activation::relu: return "relu";
    case ops::Activation::swish: return "swish";
    case ops::Activation::gelu: return "gelu";
  }
  return "?";
}

layers::BlockSettings ModelConfig::block() const {
  return {d_model, pre_norm, post_ops, layer_norm_epsilon};
}

layers::EmbeddingSettings ModelConfig::embedding() const {
  return {d_model, positions, scale_embeddings, embedding_norm, layer_norm_epsilon, position_offset};
}

std::vector<std::string> ModelConfig::validate() const {
  std::vector<std::string> problems;
  auto need = [&](bool ok, const std::string& message) {
    if (!ok) problems.push_back(message);
  };
  need(d_model > 0, "model dimension must be positive, got " + std::to_string(d_model));
  need(heads > 0, "number of heads must be positive, got " + std::to_string(heads));
  if (heads > 0 && d_model > 0)
    need(d_model % heads == 0, "model dimension " + std::to_string(d_model) +
                                   " is not divisible by " + std::to_string(heads) + " heads");
  need(encoder_layers > 0, "encoder needs at least one layer");
  need(decoder_layers > 0, "decoder needs at least one layer");
  need(encoder_ffn_dim > 0 && decoder_ffn_dim > 0, "feed-forward dimension must be positive");
  need(encoder_ffn_depth >= 1 && decoder_ffn_depth >= 1, "feed-forward depth must be at least 1");
  need(source_vocab_size > 0 && target_vocab_size > 0, "vocabulary sizes must be positive");
  const bool sinusoid = positions == layers::PositionEncoding::sinusoid_marian ||
                        positions == layers::PositionEncoding::sinusoid_hf;
  need(!sinusoid || d_model % 2 == 0,
       "sinusoidal positions need an even model dimension");
  need(position_offset >= 0, "negative position offset");
  need(relative_max_distance >= 0, "negative maximum relative distance");
  need(positions != layers::PositionEncoding::learned || max_positions > 0,
       "learned positions need a table size");
  need(!shared_embeddings || source_vocab_size == target_vocab_size,
       "shared embeddings need equal vocabulary sizes, got " + std::to_string(source_vocab_size) +
           " and " + std::to_string(target_vocab_size));
  need(eos_id >= 0 && eos_id < target_vocab_size, "target </s> id " + std::to_string(eos_id) +
                                                      " outside the vocabulary");
  need(source_eos_id >= 0 && source_eos_id < source_vocab_size,
       "source </s> id " + std::to_string(source_eos_id) + " outside the vocabulary");
  need(unk_id < target_vocab_size, "target <unk> id outside the vocabulary");
  need(decoder_start_id < target_vocab_size, "decoder start id outside the vocabulary");
  for (std::int32_t id : suppressed_ids)
    need(id >= 0 && id < target_vocab_size,
         "suppressed token id " + std::to_string(id) + " outside the vocabulary");
  return problems;
}

}  // namespace s2s::model
