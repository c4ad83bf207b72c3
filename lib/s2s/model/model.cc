#include "s2s/model/model.h"

#include "s2s/core/problems.h"

namespace s2s::model {

// The model doctor's load-time part: a SentencePiece model most of whose pieces have no id in
// the vocabulary belongs to another model, and would turn most text into <unk>.
void Model::check_vocabularies() const {
  const struct {
    const char* side;
    text::VocabCoverage coverage;
  } sides[] = {{"source", codec_->source_coverage()}, {"target", codec_->target_coverage()}};
  for (const auto& s : sides) {
    if (s.coverage.spm_pieces > 0 && 2 * s.coverage.missing > s.coverage.spm_pieces)
      throw ModelError(info_.folder + ": the " + s.side + " SentencePiece model does not belong " +
                       "to this vocabulary: " + std::to_string(s.coverage.missing) + " of its " +
                       std::to_string(s.coverage.spm_pieces) + " pieces have no id");
  }
}

Model::Model(ModelConfig config, layers::WeightStore weights,
             std::unique_ptr<text::TextCodec> codec, ModelInfo info, ops::Packing packing)
    : config_(std::move(config)),
      weights_(std::move(weights)),
      codec_(std::move(codec)),
      info_(std::move(info)) {
  throw_if_problems<ModelError>(weights_.source() + ": invalid model", config_.validate());
  check_vocabularies();
  weights_.set_linear_packing(packing);
  const dim_t d = config_.d_model;
  info_.parameters = weights_.parameter_count();
  Tensor positions;
  if (config_.positions == layers::PositionEncoding::learned)
    positions = weights_.take("positions", {config_.max_positions, d});
  encoder_ = std::make_unique<Encoder>(
      weights_, config_, weights_.take("encoder/embeddings", {config_.source_vocab_size, d}),
      positions.view());
  decoder_ = std::make_unique<Decoder>(
      weights_, config_, weights_.take("decoder/embeddings", {config_.target_vocab_size, d}),
      positions.view());
  const std::vector<std::string> unused = weights_.untaken();
  if (!unused.empty())
    throw ModelError(weights_.source() + ": tensors not used by the model: " + join(unused, ", "));
}

}  // namespace s2s::model
