#include "s2s/s2s.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <list>
#include <mutex>
#include <optional>

#include "s2s/core/allocator.h"
#include "s2s/core/threads.h"
#include "s2s/corpus/warnings.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/pipeline/settings.h"
#include "s2s/pipeline/shortlist_setting.h"
#include "s2s/pipeline/translator.h"
#include "s2s/text/clean.h"

namespace s2s {
namespace {

// Settings that shape loading: given when the Engine is made, not per call.
bool shapes_loading(const std::string& key) {
  for (const char* k : {"threads", "cpu-threads", "precision", "workers", "source-spm",
                        "target-spm"})
    if (key == k) return true;
  return false;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// CTranslate2's sampling_topk / sampling_topp as s2s's "sampling" setting; "" when neither is
// given.
std::string sampling_setting(const TranslationOptions& o) {
  const bool topp = o.sampling_topp && *o.sampling_topp < 1.0f;
  const int k = o.sampling_topk.value_or(1);
  if (topp && k != 1 && k != 0)
    throw UsageError("sampling_topk " + std::to_string(k) + " and sampling_topp " +
                     number(*o.sampling_topp) + ": s2s samples with one rule; give one of them");
  if (topp) return "topp " + number(*o.sampling_topp);
  if (!o.sampling_topk) return o.sampling_topp ? "off" : "";
  if (k < 0) throw UsageError("sampling_topk " + std::to_string(k) + ": must be 0 or more");
  return k == 1 ? "off" : k == 0 ? "full" : "topk " + std::to_string(k);
}

// The one place TranslationOptions' fields become settings: each a row of the translate table
// (pipeline/settings.h), then the caller's own rows. A field added to TranslationOptions is
// added here.
Settings as_settings(const TranslationOptions& o) {
  Settings s;
  const auto put = [&](const char* key, const std::string& value) { s.emplace_back(key, value); };
  if (o.beam_size) put("beam-size", std::to_string(*o.beam_size));
  if (o.length_penalty) put("normalize", number(*o.length_penalty));
  if (o.word_penalty) put("word-penalty", number(*o.word_penalty));
  if (o.max_input_length) put("max-length", std::to_string(*o.max_input_length));
  if (o.max_length_factor) put("max-length-factor", number(*o.max_length_factor));
  if (o.min_decoding_length) put("min-length", std::to_string(*o.min_decoding_length));
  if (o.repetition_penalty) put("repetition-penalty", number(*o.repetition_penalty));
  if (o.no_repeat_ngram_size) put("no-repeat-ngram", std::to_string(*o.no_repeat_ngram_size));
  if (o.allow_unk) put("allow-unk", *o.allow_unk ? "true" : "false");
  if (const std::string sampling = sampling_setting(o); !sampling.empty()) put("sampling", sampling);
  if (o.sampling_temperature) put("temperature", number(*o.sampling_temperature));
  if (o.seed) put("seed", std::to_string(*o.seed));
  if (o.alignment) put("alignment", o.alignment->empty() ? "off" : *o.alignment);
  if (!o.target_prefix.empty()) put("prefix", "true");
  if (o.protect) put("protect", *o.protect ? "on" : "off");
  if (o.html) put("html", *o.html ? "true" : "false");
  s.insert(s.end(), o.settings.begin(), o.settings.end());
  return s;
}

// What a call runs with: its settings and, when they differ from the Engine's, its own
// Translator; the hypotheses kept per line.
struct Call {
  pipeline::TranslateSettings settings;
  std::shared_ptr<const pipeline::Translator> own;
  const pipeline::Translator* translator = nullptr;
  std::size_t keep = 1;  // hypotheses per line
};

// A line and its prefix as the Translator reads them with target_prefix: "source<TAB>prefix" (a
// tab in the source becomes a space: the first tab is the one before the prefix).
std::vector<std::string> with_prefixes(const std::vector<std::string>& lines,
                                       const std::vector<std::string>& prefixes) {
  if (prefixes.size() != lines.size())
    throw UsageError("target_prefix has " + std::to_string(prefixes.size()) +
                     " prefixes for " + std::to_string(lines.size()) +
                     " lines: give one per line (\"\" for none)");
  std::vector<std::string> joined(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    joined[i] = lines[i];
    for (char& c : joined[i])
      if (c == '\t') c = ' ';
    joined[i] += '\t' + prefixes[i];
  }
  return joined;
}

Span span(std::size_t begin, std::size_t end) { return Span{begin, end}; }

// Piece, soft and word alignment of a target, from the jsonl record's data.
template <typename Result>
void fill_alignment(const pipeline::TargetAlignment& a, Result& r) {
  r.alignment = a.pieces;
  r.soft_alignment = a.soft;
  if (!a.has_words) return;
  r.word_alignment = a.words.pairs;
  for (const auto& sp : a.words.spans) r.word_spans.emplace_back(span(sp[0], sp[1]), span(sp[2], sp[3]));
}

LineNotes line_notes(const pipeline::InputNotes& in, std::vector<std::string> warnings) {
  LineNotes notes;
  notes.sentences = in.sentences;
  notes.invalid_utf8 = in.invalid_utf8;
  notes.split_for_length = in.long_line == pipeline::InputNotes::LongLine::split;
  notes.truncated = in.long_line == pipeline::InputNotes::LongLine::truncated;
  notes.source_tokens = in.source_tokens;
  for (const pipeline::InputNotes::ShortUnit& unit : in.short_units)
    notes.short_units.push_back(unit.unit);
  notes.glossary_unmet = in.glossary_fallback;
  notes.protected_spans = in.protected_spans;
  notes.unspellable = in.unspellable;
  notes.markup_problem = in.markup_problem;
  notes.warnings = std::move(warnings);
  return notes;
}

// The Translators of the calls whose options differ from the Engine's, the most recent first:
// a server's clients repeat the same few options, and a Translator costs a sentence splitter and
// workspaces to make. Calls naming a glossary are not kept (its file may change).
class TranslatorCache {
 public:
  std::shared_ptr<const pipeline::Translator> get(
      const std::string& key,
      const std::function<std::shared_ptr<const pipeline::Translator>()>& make);

 private:
  static constexpr std::size_t kKept = 4;
  std::mutex mutex_;
  std::list<std::pair<std::string, std::shared_ptr<const pipeline::Translator>>> kept_;
};

std::shared_ptr<const pipeline::Translator> TranslatorCache::get(
    const std::string& key,
    const std::function<std::shared_ptr<const pipeline::Translator>()>& make) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->first == key) {
        kept_.splice(kept_.begin(), kept_, it);
        return it->second;
      }
  }
  std::shared_ptr<const pipeline::Translator> made = make();  // outside the lock: it takes a while
  const std::lock_guard<std::mutex> lock(mutex_);
  kept_.emplace_front(key, made);
  if (kept_.size() > kKept) kept_.pop_back();
  return made;
}

// What makes a call's settings differ from the Engine's, as text; empty when it is not to be kept.
std::string cache_key(const Settings& given, const TranslationOptions& options) {
  std::string key;
  for (const auto& [name, value] : given) {
    if (name == "glossary") return {};
    key += name + '=' + value + '\n';
  }
  key += "max_decoding_length=" + std::to_string(options.max_decoding_length.value_or(0)) +
         "\nnum_hypotheses=" + std::to_string(options.num_hypotheses.value_or(0));
  return key;
}

}  // namespace

struct Engine::Impl {
  std::shared_ptr<const model::Model> model;
  pipeline::TranslateSettings settings;
  std::unique_ptr<pipeline::Translator> translator;
  int threads =
      0;  // compute threads of every call, on whichever thread makes it (0: its own count)
  mutable TranslatorCache translators;

  Call call(const TranslationOptions& options) const;
  TranslationResult result(const Call& call, const pipeline::Translation& translation,
                           const pipeline::InputNotes& notes, std::vector<std::string> warnings) const;
  // Translates `lines` (their numbers from first_line), calling `done` for each as it finishes.
  void translate_each(const Call& call, const std::vector<std::string>& lines,
                      const TranslationOptions& options, std::size_t first_line,
                      const std::function<void(std::size_t, TranslationResult)>& done) const;
};

Call Engine::Impl::call(const TranslationOptions& options) const {
  Call call;
  call.settings = settings;
  const Settings given = as_settings(options);
  for (const auto& [key, value] : given) {
    if (shapes_loading(key))
      throw UsageError("'" + key + "' shapes how the model is loaded: give it when the Engine is "
                       "made, not per call");
    pipeline::set_option(key, value, call.settings);
  }
  if (options.max_decoding_length) {
    if (*options.max_decoding_length < 1)
      throw UsageError("max_decoding_length " + std::to_string(*options.max_decoding_length) +
                       ": must be 1 or more");
    call.settings.translate.search.max_length = *options.max_decoding_length;
  }
  search::SearchOptions& search = call.settings.translate.search;
  if (options.num_hypotheses) {
    const int n = *options.num_hypotheses;
    const bool sampling = search.sampling.kind != search::Sampling::Kind::off;
    if (n < 1) throw UsageError("num_hypotheses " + std::to_string(n) + ": must be 1 or more");
    if (!sampling && n > search.beam_size)
      throw UsageError("num_hypotheses " + std::to_string(n) + " is more than beam_size " +
                       std::to_string(search.beam_size) + ": a beam search returns at most its beam");
    search.n_best = n > 1;
    if (sampling && n > 1) search.beam_size = n;  // n samples
    call.keep = static_cast<std::size_t>(n);
  } else {
    call.keep = search.n_best ? static_cast<std::size_t>(-1) : 1;
  }
  const bool changed = !given.empty() || options.max_decoding_length || options.num_hypotheses;
  if (!changed) {
    call.translator = translator.get();
    return call;
  }
  pipeline::apply_languages(*model, call.settings);
  const auto make = [&]() -> std::shared_ptr<const pipeline::Translator> {
    return std::make_shared<pipeline::Translator>(model,
                                                  pipeline::translator_options(call.settings));
  };
  const std::string key = cache_key(given, options);
  call.own = key.empty() ? make() : translators.get(key, make);
  call.translator = call.own.get();
  return call;
}

TranslationResult Engine::Impl::result(const Call& call, const pipeline::Translation& translation,
                                       const pipeline::InputNotes& notes,
                                       std::vector<std::string> warnings) const {
  const text::TextCodec& codec = model->codec();
  const pipeline::OutputFormatter formatter(codec, pipeline::OutputFormat::text, true,
                                            pipeline::target_text(call.settings),
                                            call.settings.translate.alignment);
  TranslationResult r;
  r.notes = line_notes(notes, std::move(warnings));
  const std::size_t count = std::min(call.keep, translation.hypotheses.size());
  for (std::size_t k = 0; k < count; ++k) {
    const search::Hypothesis& h = translation.hypotheses[k];
    Hypothesis out;
    out.text = formatter.hypothesis_text(translation, k);
    text::repair_utf8(out.text);
    for (std::int32_t id : h.ids) out.tokens.push_back(codec.target_vocab().piece(id));
    out.token_scores = h.token_scores;
    out.score = h.score;
    out.normalized_score = h.normalized_score;
    if (formatter.alignment().on()) {
      fill_alignment(pipeline::target_alignment(
                         codec, formatter.alignment(), translation.source, h.ids, out.text,
                         h.alignment, translation.split ? &translation.units[k].alignment : nullptr),
                     out);
      // A line with masked spans: the spans over the line and the text with them put back.
      if (!translation.texts.empty() && !out.word_alignment.empty()) {
        out.word_spans.clear();
        if (k < translation.text_alignment.size())
          for (const auto& sp : translation.text_alignment[k])
            out.word_spans.emplace_back(span(sp[0], sp[1]), span(sp[2], sp[3]));
      }
      out.alignment_text = formatter.alignment_suffix(translation, k).substr(5);  // after " ||| "
    }
    r.hypotheses.push_back(std::move(out));
  }
  return r;
}

void Engine::Impl::translate_each(
    const Call& call, const std::vector<std::string>& lines, const TranslationOptions& options,
    std::size_t first_line,
    const std::function<void(std::size_t, TranslationResult)>& done) const {
  const ThreadCountScope compute_threads(threads);
  const std::vector<std::string> input =
      options.target_prefix.empty() ? lines : with_prefixes(lines, options.target_prefix);
  std::size_t finished = 0;
  call.translator->translate_each(
      input,
      [&](std::size_t i, pipeline::Translation translation, const pipeline::InputNotes& notes) {
        ++finished;
        // Each line's own label warning: the "said once" rule belongs to a whole run's output.
        corpus::LabelWarnings labels(*model);
        done(i, result(call, translation, notes,
                       corpus::input_warnings(first_line + i, notes, call.translator->limit(),
                                              labels)));
      },
      first_line, options.cancel, pipeline::parallel_options(call.settings));
  if (finished < lines.size())
    throw Cancelled("cancelled: " + std::to_string(finished) + " of " +
                    std::to_string(lines.size()) + " lines translated");
}

Engine::Engine(const std::string& model_folder, const Settings& settings)
    : impl_(std::make_unique<Impl>()) {
  // The settings first alone, so that a bad one is reported before the model loads and those
  // that shape loading (threads, precision, SentencePiece files) apply to it; then again above
  // the model's own, as `s2s translate` ranks them.
  pipeline::TranslateSettings early;
  for (const auto& [key, value] : settings) pipeline::set_option(key, value, early);
  set_num_threads(static_cast<int>(early.threads));
  impl_->threads = static_cast<int>(early.threads);
  impl_->model =
      formats::load_model(model_folder, formats::SpmPaths{early.source_spm, early.target_spm},
                          pipeline::model_packing(early, model_folder));
  pipeline::apply_model_defaults(impl_->model->info(), impl_->settings);
  for (const auto& [key, value] : settings) pipeline::set_option(key, value, impl_->settings);
  pipeline::apply_languages(*impl_->model, impl_->settings);
  pipeline::attach_shortlist(*impl_->model, model_folder, impl_->settings);
  impl_->translator =
      std::make_unique<pipeline::Translator>(impl_->model, pipeline::translator_options(impl_->settings));
}

Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

std::vector<TranslationResult> Engine::translate_batch(const std::vector<std::string>& lines,
                                                       const TranslationOptions& options) const {
  const Call call = impl_->call(options);
  std::vector<TranslationResult> results(lines.size());
  impl_->translate_each(call, lines, options, 1,
                        [&](std::size_t i, TranslationResult r) { results[i] = std::move(r); });
  return results;
}

std::size_t Engine::translate_iterable(const LineSource& next, const ResultSink& sink,
                                       const TranslationOptions& options) const {
  const Call call = impl_->call(options);
  const auto window = static_cast<std::size_t>(std::max<dim_t>(1, call.settings.maxi_batch));
  std::size_t delivered = 0;
  std::vector<std::string> lines;
  for (bool more = true; more;) {
    lines.clear();
    std::string line;
    while (lines.size() < window && (more = next(line))) lines.push_back(std::move(line));
    if (lines.empty()) break;
    // Results wait in their slots until every line before them is done.
    std::vector<std::optional<TranslationResult>> slots(lines.size());
    std::size_t first_waiting = 0;
    impl_->translate_each(call, lines, options, delivered + 1,
                          [&](std::size_t i, TranslationResult r) {
                            slots[i] = std::move(r);
                            for (; first_waiting < slots.size() && slots[first_waiting];
                                 ++first_waiting) {
                              sink(delivered + first_waiting, std::move(*slots[first_waiting]));
                              slots[first_waiting].reset();
                            }
                          });
    delivered += lines.size();
  }
  return delivered;
}

std::size_t Engine::translate_file(const std::string& input, const std::string& output,
                                   const TranslationOptions& options) const {
  std::ifstream in_file;
  if (input != "-") {
    in_file.open(input);
    if (!in_file) throw InputError(input + ": cannot open input file");
  }
  std::ofstream out_file;
  if (output != "-") {
    out_file.open(output, std::ios::trunc);
    if (!out_file) throw InputError(output + ": cannot open output file");
  }
  std::istream& in = input == "-" ? std::cin : in_file;
  std::ostream& out = output == "-" ? std::cout : out_file;
  const std::size_t lines = translate_iterable(
      [&](std::string& line) { return static_cast<bool>(std::getline(in, line)); },
      [&](std::size_t, TranslationResult r) {
        out << (r.hypotheses.empty() ? std::string() : r.hypotheses.front().text) << '\n';
      },
      options);
  out.flush();
  if (!out) throw Error(output + ": cannot write the output");
  return lines;
}

TranslationResult Engine::translate_tokens(const std::string& line, const TokenCallback& callback,
                                           const TranslationOptions& options) const {
  TranslationOptions one = options;
  // One unit, searched once: the tokens heard are the translation's.
  one.settings.insert(one.settings.end(), {{"sentence-split", "off"},
                                           {"long-lines", "fail"},
                                           {"short-translations", "off"},
                                           {"n-best", "false"}});
  if (!one.beam_size) one.beam_size = 1;
  one.num_hypotheses.reset();
  Call call = impl_->call(one);
  const search::SearchOptions& search = call.settings.translate.search;
  if (search.beam_size != 1 && search.sampling.kind == search::Sampling::Kind::off)
    throw UsageError("translate_tokens: beam_size " + std::to_string(search.beam_size) +
                     ": tokens are heard one at a time only from greedy search or sampling "
                     "(beam_size 1)");
  if (!call.settings.translate.glossary_file.empty())
    throw UsageError("translate_tokens: a glossary needs a beam search (translate_batch)");
  std::size_t step = 0;
  const search::SearchOptions::TokenHook hook = [&](std::size_t, std::int32_t id, float log_prob,
                                                    bool last) {
    return callback(TokenStep{step++, id, impl_->model->codec().target_vocab().piece(id),
                              log_prob, last});
  };
  pipeline::TranslateOptions heard = pipeline::translator_options(call.settings);
  heard.search.on_token = &hook;
  call.own = std::make_unique<pipeline::Translator>(impl_->model, heard);
  call.translator = call.own.get();
  TranslationResult result;
  impl_->translate_each(call, {line}, one, 1,
                        [&](std::size_t, TranslationResult r) { result = std::move(r); });
  return result;
}

std::vector<ScoringResult> Engine::score_batch(
    const std::vector<std::pair<std::string, std::string>>& pairs,
    const ScoringOptions& options) const {
  pipeline::ScoreOptions score_options;
  // NLLB-200 / M2M-100: the call's languages or the engine's, placed as translation places them.
  pipeline::TranslateSettings languages = impl_->settings;
  if (!options.source_lang.empty() || !options.target_lang.empty()) {
    if (!options.source_lang.empty()) languages.source_lang = options.source_lang;
    if (!options.target_lang.empty()) languages.target_lang = options.target_lang;
    pipeline::apply_languages(*impl_->model, languages);
  }
  score_options.source_label = languages.translate.target_label;
  score_options.target_start = languages.translate.target_start;
  score_options.normalize = options.length_penalty.value_or(impl_->settings.translate.search.normalize);
  score_options.batch_size = impl_->settings.translate.batch_size;
  score_options.batch_tokens = impl_->settings.translate.batch_tokens;
  if (options.alignment) {
    const std::optional<pipeline::AlignmentOutput> a = pipeline::parse_alignment(*options.alignment);
    if (!a) throw UsageError("alignment '" + *options.alignment + "': hard, soft or a threshold in (0, 1)");
    score_options.alignment = *a;
  }
  const text::TextCodec& codec = impl_->model->codec();
  const ThreadCountScope compute_threads(impl_->threads);
  const std::vector<pipeline::PairScore> scores =
      pipeline::Scorer(impl_->model, score_options).score(pairs, options.cancel);
  if (scores.size() != pairs.size()) throw Cancelled("cancelled: no pair scored");
  std::vector<ScoringResult> results;
  for (const pipeline::PairScore& s : scores) {
    ScoringResult r;
    r.score = s.score;
    r.normalized_score = s.normalized_score;
    for (std::int32_t id : s.target_ids) r.tokens.push_back(codec.target_vocab().piece(id));
    r.token_scores = s.token_scores;
    if (score_options.alignment.on())
      fill_alignment(pipeline::target_alignment(codec, score_options.alignment, s.source,
                                                s.target_ids, s.target_text, s.alignment, nullptr),
                     r);
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<std::vector<Candidate>> Engine::translate_n_best(
    const std::vector<std::string>& lines) const {
  std::vector<std::vector<Candidate>> lists;
  for (TranslationResult& r : translate_batch(lines)) {
    std::vector<Candidate>& list = lists.emplace_back();
    for (Hypothesis& h : r.hypotheses)
      list.push_back({std::move(h.text), h.score, h.normalized_score, std::move(h.alignment_text)});
  }
  return lists;
}

std::vector<std::string> Engine::translate(const std::vector<std::string>& lines) const {
  std::vector<std::string> texts;
  for (TranslationResult& r : translate_batch(lines))
    texts.push_back(r.hypotheses.empty() ? std::string() : std::move(r.hypotheses.front().text));
  return texts;
}

std::vector<ScoredPair> Engine::score(
    const std::vector<std::pair<std::string, std::string>>& pairs) const {
  std::vector<ScoredPair> scores;
  for (const ScoringResult& s : score_batch(pairs))
    scores.push_back({s.score, s.normalized_score, s.tokens.size()});
  return scores;
}

std::string Engine::default_model_folder() { return s2s::default_model_folder(); }

}  // namespace s2s
