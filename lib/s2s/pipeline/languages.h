// Language selection for the models that name both languages with tokens, NLLB-200 and M2M-100
// (text/languages.h): the source token is put before every line (the codec places it where the
// family wants it) and the target token is forced as the first target token and left out of
// the results (TranslateOptions::target_start), as HF's forced_bos_token_id and CTranslate2's
// target_prefix do.
#pragma once

#include <string>

#include "s2s/model/model.h"
#include "s2s/pipeline/settings.h"
#include "s2s/pipeline/translator.h"

namespace s2s::pipeline {

// True when the model takes --source-lang / --target-lang as language tokens.
bool has_language_tokens(const model::Model& model);

// Sets options.target_label (the source token) and options.target_start (the target token).
// UsageError when a code is missing or not the model's, listing the closest codes.
void choose_languages(const model::Model& model, const std::string& source_lang,
                      const std::string& target_lang, TranslateOptions& options);

// ">>deu<<" for "deu" (or ">>deu<<"), a multilingual Marian model's label; a UsageError listing
// the model's labels when it has none by that name.
std::string language_label(const model::Model& model, const std::string& lang);

// The languages a run asks for (settings.source_lang, settings.target_lang) made options of the
// translator: language tokens for NLLB-200 / M2M-100 (choose_languages), a >>xxx<< label for a
// multilingual Marian model; a UsageError for a language the model cannot take. What `s2s
// translate` and the library's Engine both do after reading their settings.
void apply_languages(const model::Model& model, TranslateSettings& settings);

// The same for `s2s score`: the language tokens as translation places them (ScoreOptions); a
// UsageError for --source-lang / --target-lang on other models, whose sources carry any label.
void apply_languages(const model::Model& model, ScoreSettings& settings);

}  // namespace s2s::pipeline
