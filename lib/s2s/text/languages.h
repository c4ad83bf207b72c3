// Language tokens of the multilingual fairseq families (NLLB-200 and M2M-100): which tokens a
// model has, where the source-language token goes, and how a user's --source-lang /
// --target-lang names one.
//
// As transformers does it (docs/models.md cites the lines):
//   NLLB-200 (tokenization_nllb.py): tokens are the codes themselves ("eng_Latn", FAIRSEQ_LANGUAGE_
//     CODES); set_src_lang_special_tokens gives a source of [src_lang] text </s>, or with
//     legacy_behaviour text </s> [src_lang].
//   M2M-100 (tokenization_m2m_100.py): the token of code "en" is "__en__" (get_lang_token); the
//     source is [__src__] text </s>.
//   Both: generation starts the decoder from </s> (decoder_start_token_id) and forces the target
//     language token first (forced_bos_token_id); CTranslate2 users pass it as target_prefix.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace s2s::text {

enum class LanguageFamily { nllb, m2m100 };

// The built-in code lists, in the tokenizers' order (FAIRSEQ_LANGUAGE_CODES): used when a folder
// does not list its language tokens itself.
const std::vector<std::string>& nllb_language_codes();
const std::vector<std::string>& m2m100_language_codes();

struct LanguageTokens {
  LanguageFamily family = LanguageFamily::nllb;
  std::vector<std::string> tokens;  // as the vocabulary holds them: "eng_Latn", "__en__"
  bool source_after_eos = false;    // NLLB legacy_behaviour: text </s> [src_lang]

  bool empty() const { return tokens.empty(); }
  bool contains(const std::string& token) const;
  // The family's token for a code: "de" -> "__de__" (M2M-100); NLLB tokens are their codes.
  std::string token_of(const std::string& code) const;
  // The code a user types for a token: "__de__" -> "de", "deu_Latn" -> "deu_Latn".
  std::string code_of(const std::string& token) const;
  // The token `given` means: a token or code of the model, or (NLLB) an ISO 639-1 code whose
  // language the model has in exactly one script ("de" -> "deu_Latn"). UsageError naming `flag`
  // and listing the closest codes otherwise.
  std::string resolve(const std::string& given, const std::string& flag) const;
  // Every code, space-separated (for `s2s info` and messages).
  std::string codes() const;
};

// The language tokens of a vocabulary that lists them itself, as CTranslate2's converter writes
// NLLB-200 / M2M-100 vocabularies (M2M100Loader.get_vocabulary appends the tokenizer's
// additional_special_tokens): the tokens shaped as the family's codes (NLLB "eng_Latn", M2M-100
// "__en__"; so a fine-tune's added languages count too) that `is_text_piece` does not claim, in
// id order. The family is the one with some of its built-in codes in `tokens`; empty tokens when
// neither has any.
LanguageTokens languages_in_vocabulary(const std::vector<std::string>& tokens,
                                       const std::function<bool(const std::string&)>& is_text_piece);

}  // namespace s2s::text
