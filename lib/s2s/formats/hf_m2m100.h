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
#include "s2s/text/languages.h"
#include "s2s/text/vocab.h"

namespace s2s::formats {

// Why --alignment is not available on these models (s2s info and the --alignment error say it).
inline constexpr const char* kFairseqNoAlignment =
    "M2M-100 and NLLB-200 were trained without guided alignment: no attention head of theirs is "
    "an alignment";

// True when the folder's config.json says model_type "m2m_100".
bool looks_like_hf_m2m100(const std::filesystem::path& folder);

ModelParts read_hf_m2m100(const std::filesystem::path& folder);

// The languages of a CTranslate2 conversion of NLLB-200 / M2M-100 (formats/ct2.h), which its
// vocabulary lists (text::languages_in_vocabulary; the pieces of the SentencePiece model at
// `spm_path`, when there is one, are not languages). The source token goes where the tokenizer
// files say when they were copied beside model.bin (tokenizer_config.json legacy_behaviour), else
// first, as NLLB's current tokenizer puts it. No tokens for other models.
text::LanguageTokens converted_languages(const std::filesystem::path& folder,
                                         const text::Vocabulary& vocab,
                                         const std::filesystem::path& spm_path);

}  // namespace s2s::formats
