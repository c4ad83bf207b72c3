// CTranslate2 model folders (docs/models.md, "CTranslate2"): model.bin (a TransformerSpec,
// version ≤ 6), config.json, shared_vocabulary.json or source_/target_vocabulary.json, and SentencePiece
// models found in the folder (source.spm/target.spm) or given by the caller. Covers OpenNMT-py
// conversions (pre-norm, relative positions) and Marian conversions; float32/float16/int8
// weights (int8 rows are dequantised with their weight_scale at load).
#pragma once

#include <filesystem>
#include <string>

#include "s2s/formats/model_parts.h"

namespace s2s::formats {

// SentencePiece models for folders that do not hold them (CTranslate2 does not store them).
struct SpmPaths {
  std::string source;
  std::string target;
};

// What a model is loaded for. For translation every file must be there (one ModelError naming
// each missing file); for inspection (`s2s info`) a folder without its SentencePiece models is
// still described, and ModelInfo::missing lists what translation would need.
enum class LoadFor { translation, inspection };

bool looks_like_ct2(const std::filesystem::path& folder);

ModelParts read_ct2(const std::filesystem::path& folder, const SpmPaths& spm,
                    LoadFor purpose = LoadFor::translation);

}  // namespace s2s::formats
