// What every format reader gives back: a plain description of the model's parts (its math, its
// weights under canonical names, its text files, and what `s2s info` says about it). The Model
// is built from it in one place, assemble_model(), which also loads the vocabularies and takes the
// special ids from them, so that the readers differ only where the formats do.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "s2s/layers/weights.h"
#include "s2s/model/config.h"
#include "s2s/model/model.h"

namespace s2s::formats {

// One side's text files: the SentencePiece model that splits text into pieces, and the
// vocabulary that numbers them (the same file when the vocabulary is a .spm).
struct TextFiles {
  std::filesystem::path spm;
  std::filesystem::path vocab;
};

struct ModelParts {
  // source_eos_id, eos_id and unk_id are set by assemble_model (see the token names below).
  model::ModelConfig config;
  layers::WeightStore weights;
  TextFiles source, target;
  // A reader that numbers the vocabulary itself (the fairseq families, text/fairseq_vocab.h)
  // gives the codec ready; otherwise it is loaded from `source` and `target`.
  std::unique_ptr<text::TextCodec> codec;
  // Target tokens a format names by their text (CTranslate2's config.json). Without a name, </s>
  // is config.eos_id when the format gave one, else the vocabulary's; <unk> is the vocabulary's;
  // the decoder starts from config.decoder_start_id.
  std::optional<std::string> eos_token, unk_token, decoder_start_token;
  model::ModelInfo info;
};

// The codec of `parts.source` and `parts.target` (vocabularies checked against the config's
// sizes): what assemble_model uses when the reader gave none.
std::unique_ptr<text::TextCodec> load_codec(const ModelParts& parts);

// Loads the vocabularies (checked against the config's sizes), sets the special ids and builds
// the Model, which checks the weights against the config.
std::shared_ptr<const model::Model> assemble_model(ModelParts parts, ops::Packing packing);

}  // namespace s2s::formats
