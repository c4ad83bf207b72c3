// Hugging Face folders of M2M100ForConditionalGeneration: NLLB-200 and M2M-100 (docs/models.md).
//   config.json               model_type "m2m_100" (configuration_m2m_100.py)
//   model.safetensors         or model.safetensors.index.json and its shards
//   sentencepiece.bpe.model   the SentencePiece model (both families)
//   vocab.json                M2M-100 only: fairseq's dictionary (NLLB numbers the SentencePiece
//                             pieces instead: text/fairseq_vocab.h)
//   tokenizer_config.json, special_tokens_map.json   optional: tokenizer class, legacy_behaviour,
//                             language codes, added_tokens_decoder (checked against the numbering)
// The math (modeling_m2m_100.py): pre-norm layers, a final layer norm on each stack, token
// embeddings × sqrt(d_model) when scale_embedding, fairseq sinusoids (ln(1e4)/(D/2 - 1), sin half
// then cos half) from position padding_idx + 1, layer norms with eps 1e-5, output tied to the
// shared embedding unless tie_word_embeddings is false, no output bias, the decoder starting from
// decoder_start_token_id (</s>).
#pragma once

#include <filesystem>

#include "s2s/formats/model_parts.h"

namespace s2s::formats {

// True when the folder's config.json says model_type "m2m_100".
bool looks_like_hf_m2m100(const std::filesystem::path& folder);

ModelParts read_hf_m2m100(const std::filesystem::path& folder);

}  // namespace s2s::formats
