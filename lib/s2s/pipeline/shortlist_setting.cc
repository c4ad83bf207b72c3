#include "s2s/pipeline/shortlist_setting.h"

#include "s2s/core/error.h"
#include "s2s/formats/shortlist_files.h"
#include "s2s/pipeline/languages.h"

namespace s2s::pipeline {
namespace {

// The file and arguments the settings ask for; no path: none.
formats::ShortlistSpec chosen_shortlist(const TranslateSettings& settings,
                                        const std::string& model_folder) {
  const std::vector<std::string>& words = settings.shortlist;
  if (words.empty()) return {formats::folder_shortlist(model_folder), {}};
  if (words.front() == "off") {
    if (words.size() > 1) throw UsageError("--shortlist off takes nothing after it");
    return {};
  }
  return {words.front(), std::vector<std::string>(words.begin() + 1, words.end())};
}

}  // namespace

ops::Packing model_packing(const TranslateSettings& settings, const std::string& model_folder) {
  ops::Packing packing(settings.precision);
  packing.keep_output_rows = !chosen_shortlist(settings, model_folder).path.empty();
  return packing;
}

void attach_shortlist(const model::Model& model, const std::string& model_folder,
                      TranslateSettings& settings) {
  const formats::ShortlistSpec spec = chosen_shortlist(settings, model_folder);
  settings.translate.shortlist = spec.path.empty() ? nullptr : formats::read_shortlist(spec, model);
}

std::vector<std::int32_t> batch_candidates(const model::Model& model,
                                           const model::Shortlist& shortlist,
                                           const std::vector<std::vector<std::int32_t>>& sources,
                                           const search::Prefixes& prefixes) {
  std::vector<std::vector<std::int32_t>> given = sources;
  const std::int32_t eos = model.config().source_eos_id;
  if (shortlist.kind() == model::Shortlist::Kind::vocabulary_map && !has_language_tokens(model))
    for (auto& ids : given)
      if (!ids.empty() && ids.back() == eos) ids.pop_back();
  return shortlist.candidates(given, prefixes, model.config().target_vocab_size);
}

}  // namespace s2s::pipeline
