#include "s2s/formats/model_parts.h"

#include <utility>

namespace s2s::formats {

std::unique_ptr<text::TextCodec> load_codec(const ModelParts& parts) {
  return std::make_unique<text::TextCodec>(text::TextCodec::load(
      parts.source.spm.string(), parts.source.vocab.string(), parts.config.source_vocab_size,
      parts.target.spm.string(), parts.target.vocab.string(), parts.config.target_vocab_size));
}

std::shared_ptr<const model::Model> assemble_model(ModelParts parts, ops::Packing packing) {
  model::ModelConfig& config = parts.config;
  std::unique_ptr<text::TextCodec> codec = parts.codec ? std::move(parts.codec) : load_codec(parts);
  codec->set_add_source_eos(config.add_source_eos);
  const text::Vocabulary& target = codec->target_vocab();
  config.source_eos_id = codec->source_vocab().eos_id();
  if (parts.eos_token)
    config.eos_id = target.id_of(*parts.eos_token);
  else if (config.eos_id < 0)
    config.eos_id = target.eos_id();
  config.unk_id = parts.unk_token ? target.id_of(*parts.unk_token) : target.unk_id();
  if (parts.decoder_start_token) config.decoder_start_id = target.id_of(*parts.decoder_start_token);
  return std::make_shared<const model::Model>(std::move(config), std::move(parts.weights),
                                              std::move(codec), std::move(parts.info), packing);
}

}  // namespace s2s::formats
