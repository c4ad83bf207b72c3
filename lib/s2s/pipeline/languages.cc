#include "s2s/pipeline/languages.h"

#include "s2s/core/error.h"

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

}  // namespace s2s::pipeline
