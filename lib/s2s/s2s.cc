#include "s2s/s2s.h"

#include "s2s/core/threads.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/pipeline/settings.h"
#include "s2s/pipeline/translator.h"

namespace s2s {

struct Engine::Impl {
  std::shared_ptr<const model::Model> model;
  pipeline::TranslateSettings settings;
  std::unique_ptr<pipeline::Translator> translator;
};

Engine::Engine(const std::string& model_folder, const Settings& settings)
    : impl_(std::make_unique<Impl>()) {
  // The settings first alone, so that a bad one is reported before the model loads and those
  // that shape loading (threads, precision, SentencePiece files) apply to it; then again above
  // the model's own, as `s2s translate` ranks them.
  pipeline::TranslateSettings early;
  for (const auto& [key, value] : settings) pipeline::set_option(key, value, early);
  set_num_threads(static_cast<int>(early.threads));
  impl_->model = formats::load_model(model_folder, formats::SpmPaths{early.source_spm, early.target_spm},
                                     early.precision);
  pipeline::apply_model_defaults(impl_->model->info(), impl_->settings);
  for (const auto& [key, value] : settings) pipeline::set_option(key, value, impl_->settings);
  pipeline::apply_languages(*impl_->model, impl_->settings);
  impl_->translator =
      std::make_unique<pipeline::Translator>(impl_->model, pipeline::translator_options(impl_->settings));
}

Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

std::vector<std::vector<Candidate>> Engine::translate_n_best(
    const std::vector<std::string>& lines) const {
  std::vector<std::vector<Candidate>> results(lines.size());
  // Only its text conversion is used: detokenized, or pieces with "no-spm-decode".
  const pipeline::OutputFormatter formatter(impl_->model->codec(), pipeline::OutputFormat::text,
                                            true, pipeline::target_text(impl_->settings),
                                            impl_->settings.translate.alignment);
  impl_->translator->translate_each(
      lines,
      [&](std::size_t i, pipeline::Translation translation, const pipeline::InputNotes&) {
        for (std::size_t k = 0; k < translation.hypotheses.size(); ++k) {
          const search::Hypothesis& h = translation.hypotheses[k];
          results[i].push_back({formatter.hypothesis_text(translation, k), h.score,
                                h.normalized_score,
                                formatter.alignment().on()
                                    ? formatter.alignment_suffix(translation, k).substr(5)  // after " ||| "
                                    : std::string()});
        }
      },
      1, nullptr, pipeline::parallel_options(impl_->settings));
  return results;
}

std::vector<std::string> Engine::translate(const std::vector<std::string>& lines) const {
  std::vector<std::string> texts;
  for (std::vector<Candidate>& list : translate_n_best(lines))
    texts.push_back(list.empty() ? std::string() : std::move(list.front().text));
  return texts;
}

std::vector<ScoredPair> Engine::score(
    const std::vector<std::pair<std::string, std::string>>& pairs) const {
  pipeline::ScoreOptions options;
  options.normalize = impl_->settings.translate.search.normalize;
  options.batch_size = impl_->settings.translate.batch_size;
  options.batch_tokens = impl_->settings.translate.batch_tokens;
  std::vector<ScoredPair> scores;
  for (const s2s::pipeline::PairScore& s : pipeline::Scorer(impl_->model, options).score(pairs))
    scores.push_back({s.score, s.normalized_score, s.target_ids.size()});
  return scores;
}

std::string Engine::default_model_folder() {
  return formats::default_model_path("/proc/self/exe");
}

}  // namespace s2s
