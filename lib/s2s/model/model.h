// Model: a loaded translation model = config + weights + encoder + decoder + text codec.
// Immutable once built and shared by every request (per-request state is DecoderState).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "s2s/model/decoder.h"
#include "s2s/model/encoder.h"
#include "s2s/model/workspace.h"
#include "s2s/text/codec.h"

namespace s2s::model {

// What a model is and where it came from, for `s2s info` and messages.
struct ModelInfo {
  std::string format;  // "marian", ...
  std::string folder;
  std::vector<std::pair<std::string, std::string>> files;  // role -> path
  dim_t parameters = 0;
  // Settings the model's own files give, as `s2s translate` option keys and text values: every
  // scalar of a Marian decoder.yml (the CLI keeps only the keys that change translations),
  // "beam-size" from a Hugging Face generation config, CTranslate2's decoding defaults. They rank
  // above built-in defaults and below --config and flags. `search_defaults_source` names where
  // they come from, for messages.
  std::vector<std::pair<std::string, std::string>> search_defaults;
  std::string search_defaults_source;
  // Files translation needs that the folder lacks, each with how to supply it; only a model
  // loaded for inspection (formats::LoadFor) can have any.
  std::vector<std::string> missing;
};

class Model {
 public:
  // Builds the encoder and decoder from the weights (which it keeps: embeddings and norms are
  // used in place). Fails with a ModelError if the weights do not fit the config, or if the file
  // holds tensors nothing uses.
  // `packing`: what the linear layers compute in, and how they pack (ops/precision.h).
  Model(ModelConfig config, layers::WeightStore weights, std::unique_ptr<text::TextCodec> codec,
        ModelInfo info, ops::Packing packing = {});

  const ModelConfig& config() const { return config_; }
  const Encoder& encoder() const { return *encoder_; }
  const Decoder& decoder() const { return *decoder_; }
  const text::TextCodec& codec() const { return *codec_; }
  const ModelInfo& info() const { return info_; }
  ops::Precision precision() const { return weights_.linear_precision(); }
  // Scratch for the workers that run this model (model/workspace.h): each job leases one.
  WorkspacePool& workspaces() const { return *workspaces_; }

 private:
  void check_vocabularies() const;

  ModelConfig config_;
  layers::WeightStore weights_;
  std::unique_ptr<text::TextCodec> codec_;
  ModelInfo info_;
  std::unique_ptr<Encoder> encoder_;
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<WorkspacePool> workspaces_ = std::make_unique<WorkspacePool>();
};

}  // namespace s2s::model
