// The vocabularies of the fairseq multilingual families, numbered as transformers' tokenizers
// number them (model ids = these ids; docs/models.md):
//   NLLB-200 (tokenization_nllb.py): fairseq's dictionary over sentencepiece.bpe.model: <s> 0,
//     <pad> 1, </s> 2, <unk> 3, SentencePiece piece k (k >= 3) at k + 1 (fairseq_offset), then
//     the language tokens in order (sp_model_size + 1 + i), then <mask>.
//   M2M-100 (tokenization_m2m_100.py): vocab.json (fairseq's dict.txt, its own order), then the
//     language tokens __xx__ at len(vocab.json) + i.
// Both are padded to the model's vocab_size with madeupword0, madeupword1, ... as CTranslate2's
// M2M100Loader.get_vocabulary does (M2M-100's tokenizer counts its 8 num_madeup_words; NLLB's
// config has 2 rows more than its tokenizer).
#pragma once

#include <string>
#include <vector>

#include "s2s/core/shape.h"
#include "s2s/text/spm.h"
#include "s2s/text/vocab.h"

namespace s2s::text {

// `model_size`: the model's vocab_size (config.json); a tokenizer with more tokens than that is a
// ModelError naming `config_path`.
Vocabulary nllb_vocabulary(const SentencePiece& spm, const std::vector<std::string>& language_tokens,
                           dim_t model_size, const std::string& config_path);

Vocabulary m2m100_vocabulary(const std::string& vocab_json,
                             const std::vector<std::string>& language_tokens, dim_t model_size,
                             const std::string& config_path);

}  // namespace s2s::text
