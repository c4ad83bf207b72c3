// Hugging Face MarianMT folders (docs/models.md, "Hugging Face MarianMT"): config.json,
// model.safetensors, vocab.json (+ target_vocab.json with separate vocabularies), source.spm / target.spm, optional
// generation_config.json. Loaded directly: the HF weight names become canonical names here, and
// HF's semantics (D/2 sinusoid, layer-norm eps 1e-5, decoder start from the zero pad row,
// final_logits_bias, pad never generated, <unk> not suppressed) become ModelConfig fields and
// search defaults.
#pragma once

#include <filesystem>

#include "s2s/formats/model_parts.h"

namespace s2s::formats {

// True when the folder has config.json and model.safetensors or pytorch_model.bin.
bool looks_like_hf_marian(const std::filesystem::path& folder);

ModelParts read_hf_marian(const std::filesystem::path& folder);

}  // namespace s2s::formats
