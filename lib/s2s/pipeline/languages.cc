#include "s2s/pipeline/languages.h"

#include "s2s/core/error.h"
#include "s2s/core/strings.h"

namespace s2s::pipeline {

bool has_language_tokens(const model::Model& model) {
  return !model.codec().languages().empty();
}

void choose_languages(const model::Model& model, const std::string& source_lang,
                      const std::string& target_lang, TranslateOptions& options) {
  const text::LanguageTokens& languages = model.codec().languages();
  for (const auto& [flag, code] : {std::pair{"--source-lang", &source_lang}, {"--target-lang", &target_lang}})
    if (code->empty())
      throw UsageError(std::string("this model translates between ") +
                       std::to_string(languages.tokens.size()) + " languages: give " + flag +
                       " (e.g. " + languages.code_of(languages.tokens.front()) +
                       "; s2s info lists them)");
  options.target_label = languages.resolve(source_lang, "--source-lang");
  const std::string target = languages.resolve(target_lang, "--target-lang");
  options.target_start = {model.codec().target_vocab().id_of(target)};
}

std::string language_label(const model::Model& model, const std::string& lang) {
  const std::string label = lang.rfind(">>", 0) == 0 ? lang : ">>" + lang + "<<";
  if (model.codec().source_vocab().contains(label)) return label;
  const std::string known = join(model.codec().source_vocab().language_tokens(), " ");
  throw UsageError("--target-lang " + lang + ": the model has no " + label + " token (" +
                   (known.empty() ? "it is not multilingual" : "it knows " + known) + ")");
}

void apply_languages(const model::Model& model, TranslateSettings& settings) {
  if (has_language_tokens(model))  // NLLB-200, M2M-100
    choose_languages(model, settings.source_lang, settings.target_lang, settings.translate);
  else if (!settings.source_lang.empty())
    throw UsageError("--source-lang: only NLLB-200 and M2M-100 models take a source language");
  else if (!settings.target_lang.empty())
    settings.translate.target_label = language_label(model, settings.target_lang);
}

void apply_languages(const model::Model& model, ScoreSettings& settings) {
  if (!has_language_tokens(model)) {
    if (!settings.source_lang.empty() || !settings.target_lang.empty())
      throw UsageError(std::string(settings.source_lang.empty() ? "--target-lang" : "--source-lang") +
                       ": score takes languages for NLLB-200 and M2M-100 models only (other "
                       "multilingual models read a >>xxx<< label in the source text)");
    return;
  }
  TranslateOptions chosen;
  choose_languages(model, settings.source_lang, settings.target_lang, chosen);
  settings.score.source_label = chosen.target_label;
  settings.score.target_start = chosen.target_start;
}

}  // namespace s2s::pipeline
