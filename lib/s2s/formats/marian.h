// Marian / OPUS-MT model folders (docs/models.md, "Marian / OPUS-MT"): a `.npz` checkpoint with its
// `special:model.yml`, vocabularies (`*.vocab.yml`, `.spm`, plain text), `source.spm` /
// `target.spm`, and an optional `decoder.yml` that names the files exactly as marian-decoder
// reads them. This is the border: Marian's parameter names stop here and become the canonical
// names of model/weights.h.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "s2s/formats/model_parts.h"
#include "s2s/layers/weights.h"
#include "s2s/model/config.h"

namespace s2s::formats {

// The files of a Marian model folder.
struct MarianFiles {
  std::filesystem::path model;           // the .npz
  std::filesystem::path source_vocab;    // .yml / .spm / plain text
  std::filesystem::path target_vocab;
  std::filesystem::path source_spm;      // splits text into pieces (same as the vocab if .spm)
  std::filesystem::path target_spm;
  std::filesystem::path decoder_yml;     // empty when the folder has none
  // decoder.yml's scalar entries (beam-size, normalize, ...), as text, in file order.
  std::vector<std::pair<std::string, std::string>> decoder_settings;
};

// True when the folder looks like a Marian model (a decoder.yml or a .npz).
bool looks_like_marian(const std::filesystem::path& folder);

// The parts of the model in a Marian folder: the files found below, special:model.yml's config
// and the weights. ModelError names the file and what is wrong.
ModelParts read_marian(const std::filesystem::path& folder);

// Finds the files: from decoder.yml's `models`/`vocabs` when present (relative to the yml when
// `relative-paths: true`), else by the usual OPUS-MT names. ModelError says what is missing.
MarianFiles find_marian_files(const std::filesystem::path& folder);

// Reads special:model.yml text into a ModelConfig (sizes, norms, activation, tying...). Special
// ids are not set here (they come from the vocabularies). Unsupported options are all listed in
// one ModelError. `source` names the file for messages.
model::ModelConfig marian_config(const std::string& model_yml, const std::string& source);

// Declares every Marian tensor the config implies, checks the archive against that list
// (missing and unexpected tensors are errors naming them) and moves them into `weights` under
// canonical names. `learned_positions_rows` is set from Wpos when present.
void load_marian_weights(const std::filesystem::path& npz, model::ModelConfig& config,
                         layers::WeightStore& weights);

}  // namespace s2s::formats
