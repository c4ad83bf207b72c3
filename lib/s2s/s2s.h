// The public C++ API of the s2s library: load a model folder, translate lines, score pairs.
// Installed headers: this one, s2s/settings.h (the settings table, the shipped model and
// configs), s2s/corpus/run.h (runs over files: what the s2s command does), s2s/core/error.h (the
// error kinds) and s2s/core/log.h (where messages go). Everything else under s2s/ is the
// engine's inside and may change between releases.
//
//   s2s::Engine engine("opus-mt-en-de", {{"precision", "int8"}});
//   s2s::TranslationOptions options;
//   options.beam_size = 4;
//   options.num_hypotheses = 2;
//   for (const s2s::TranslationResult& r : engine.translate_batch({"Hello world.", ""}, options))
//     for (const s2s::Hypothesis& h : r.hypotheses) std::cout << h.text << ' ' << h.score << '\n';
//
// Settings: the names of `s2s translate` and its --config files (`s2s translate --help`;
// Marian's names such as "mini-batch" and "cpu-threads" too), ranked above the model's own (its
// decoder.yml). Those that shape loading ("threads", "precision", "workers", "source-spm",
// "target-spm") are given when the Engine is made; every other one can also be given per call
// (TranslationOptions), above the Engine's.
// Errors are exceptions: UsageError (a bad setting or option), ModelError (the folder),
// InputError (a line that cannot be translated as asked), Cancelled (a call stopped by its flag).
//
// Threads: the engine computes with OpenMP threads and sets their number for the process
// ("threads", 0 = every core, shared with other programs). An Engine may be used from several
// threads at once (each call has its own decoder state). SIGINT/SIGTERM should be blocked in the
// threads that call the engine (oneDNN's kernels move the stack pointer into the heap; a signal
// handler running there corrupts it): block them before creating threads and wait for them in
// one thread of your own with sigwait, then set a call's `cancel` flag, as the s2s command does.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "s2s/core/error.h"
#include "s2s/settings.h"

namespace s2s {

// (name, value) pairs, applied in order.
using Settings = std::vector<std::pair<std::string, std::string>>;

// A call stopped by its TranslationOptions::cancel flag before it was done.
class Cancelled : public Error {
 public:
  using Error::Error;
};

// Options of one call, above the Engine's settings; an option left unset keeps them. The names
// follow CTranslate2's translate_batch where it has the option.
struct TranslationOptions {
  std::optional<int> beam_size;       // 1: greedy search
  // Hypotheses returned per line, best first (CTranslate2's num_hypotheses): at most beam_size
  // with beam search; with sampling, that many samples. Default 1 (the setting "n-best" on: the
  // whole beam).
  std::optional<int> num_hypotheses;
  std::optional<float> length_penalty;  // rank by score / length^this ("normalize")
  std::optional<float> word_penalty;    // subtracted once per target token
  std::optional<int> max_input_length;  // most source tokens a sentence is given ("max-length")
  std::optional<int> max_decoding_length;  // most target tokens, </s> included
  std::optional<float> max_length_factor;  // most target tokens, times the source's
  std::optional<int> min_decoding_length;  // no </s> before this many tokens
  std::optional<float> repetition_penalty;
  std::optional<int> no_repeat_ngram_size;
  std::optional<bool> allow_unk;
  // Random sampling (CTranslate2's meaning): top-k 1 is no sampling, 0 the whole distribution,
  // k > 1 the k most likely tokens; top-p < 1 the smallest set holding that probability.
  std::optional<int> sampling_topk;
  std::optional<float> sampling_topp;
  std::optional<float> sampling_temperature;
  std::optional<unsigned> seed;  // a line's samples depend only on it and the line's text
  // Target prefixes, one per line ("" none): each translation starts with its line's prefix
  // (target text) and the search goes on from there (CTranslate2's target_prefix). Empty: none.
  std::vector<std::string> target_prefix;
  // Word alignment: "hard" (each target piece's most attended source piece), a threshold in
  // (0, 1) (every pair above it) or "soft" (every weight); "" or "off": none.
  std::optional<std::string> alignment;
  // Placeholders ({0}, %s), addresses, URLs, paths and characters the model cannot spell kept
  // exactly: masked before translation and put back after ("protect", on by default).
  std::optional<bool> protect;
  // Each line is an HTML fragment: its tags taken out and put back around the words they
  // enclosed ("html").
  std::optional<bool> html;
  // Any other translate setting by name, for this call (e.g. {"sentence-split", "off"},
  // {"glossary", "terms.tsv"}, {"target-lang", "deu"}); applied after the fields above.
  Settings settings;
  // When set to true (by another thread), the call stops within a decoder step and throws
  // Cancelled; streaming calls have then delivered every result before the stop.
  const std::atomic<bool>* cancel = nullptr;
};

// Characters [begin, end) of a text, counted in code points.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// One translation of a line.
struct Hypothesis {
  std::string text;                 // detokenized (the setting "no-spm-decode": its pieces)
  std::vector<std::string> tokens;  // target SentencePiece pieces, </s> included
  std::vector<float> token_scores;  // log-probability of each token (a prefix's score 0)
  float score = 0.0f;               // their sum (Marian's F0 score)
  float normalized_score = 0.0f;    // what the search ranks by (length penalty, word penalty)
  // With alignment:
  std::vector<std::pair<std::size_t, std::size_t>> alignment;  // (source, target) piece
                                                               // positions, </s> included
  std::vector<std::vector<float>> soft_alignment;  // "soft": a row of source weights per token
  // "hard" or a threshold: the same pairs as words (a piece with SentencePiece's '▁' and the
  // pieces after it), and per pair the two words' characters in the line as given and in `text`
  // (empty when a side's words do not match its whitespace-separated tokens, e.g. a truncated
  // line).
  std::vector<std::pair<std::size_t, std::size_t>> word_alignment;
  std::vector<std::pair<Span, Span>> word_spans;
  std::string alignment_text;  // as marian-decoder prints it after " ||| "
};

// What was done to a line on its way through the engine.
struct LineNotes {
  std::size_t sentences = 1;      // the sentences it was cut into, translated as units
  std::size_t invalid_utf8 = 0;   // invalid UTF-8 sequences replaced with U+FFFD
  bool split_for_length = false;  // a sentence over the token limit was cut into pieces
  bool truncated = false;         // ... or truncated to the limit ("long-lines")
  std::size_t source_tokens = 0;  // then: the tokens of the longest one
  // Sentences (0-based among its units) whose translation stayed implausibly short for their
  // source: content may be missing.
  std::vector<std::size_t> short_units;
  bool glossary_unmet = false;    // its glossary terms could not all be placed
  std::size_t protected_spans = 0;  // spans masked and put back ("protect", "html")
  std::vector<std::string> unspellable;  // characters the model's vocabulary cannot spell
  std::string markup_problem;  // "html": why the line is no well-formed fragment (translated as text)
  // The warnings the s2s command prints for the line ("line N: ...", N counted in the call).
  std::vector<std::string> warnings;
};

struct TranslationResult {
  std::vector<Hypothesis> hypotheses;  // best first; none for a blank line
  LineNotes notes;
};

// Backward-compatible shapes of the first API.
struct Candidate {
  std::string text;
  float score = 0.0f;             // log-probability of the target tokens (Marian's F0 score)
  float normalized_score = 0.0f;  // what the search ranks by (normalize, word-penalty)
  std::string alignment;          // with the setting "alignment": as marian-decoder prints it
};

// The log-probability of a target given its source, as `s2s score` and marian-scorer give it.
struct ScoredPair {
  float score = 0.0f;             // sum over the target tokens, </s> included
  float normalized_score = 0.0f;  // score / tokens^normalize
  std::size_t target_tokens = 0;  // </s> included
};

struct ScoringOptions {
  std::optional<float> length_penalty;    // normalized_score = score / tokens^this
  std::optional<std::string> alignment;   // as TranslationOptions::alignment (teacher-forced)
  // NLLB-200 / M2M-100: this call's pair, as the "source-lang" / "target-lang" settings take them
  // (empty: the Engine's), placed as translation places them.
  std::string source_lang, target_lang;
  const std::atomic<bool>* cancel = nullptr;  // checked between batches; Cancelled
};

struct ScoringResult {
  float score = 0.0f;
  float normalized_score = 0.0f;
  std::vector<std::string> tokens;  // target pieces, </s> included
  std::vector<float> token_scores;
  std::vector<std::pair<std::size_t, std::size_t>> alignment;  // as Hypothesis
  std::vector<std::vector<float>> soft_alignment;
  std::vector<std::pair<std::size_t, std::size_t>> word_alignment;
  std::vector<std::pair<Span, Span>> word_spans;  // over the pair's source and target
};

// The next input line into `line`; false at the end.
using LineSource = std::function<bool(std::string& line)>;
// A finished line's result, called in input order (`index` 0-based over the whole stream).
using ResultSink = std::function<void(std::size_t index, TranslationResult result)>;
// One token chosen by the search (translate_tokens): its piece, id and log-probability. Return
// false to stop the translation there.
struct TokenStep {
  std::size_t step = 0;
  std::int32_t id = 0;
  std::string token;
  float log_prob = 0.0f;
  bool is_last = false;  // </s>, or the length limit
};
using TokenCallback = std::function<bool(const TokenStep& step)>;

class Engine {
 public:
  // Loads the model in `model_folder`: a Marian / OPUS-MT folder, a Hugging Face MarianMT or
  // M2M-100/NLLB folder, or a CTranslate2 folder. ModelError when it cannot; UsageError for a
  // bad setting.
  explicit Engine(const std::string& model_folder, const Settings& settings = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;

  // One result per line, in order (CTranslate2's translate_batch). Blank lines give no
  // hypothesis; lines are cleaned, cut into sentences, and split, truncated or refused when too
  // long as the settings say, and `notes` say so.
  std::vector<TranslationResult> translate_batch(const std::vector<std::string>& lines,
                                                 const TranslationOptions& options = {}) const;

  // Lines from `next` until it returns false, read a window at a time ("maxi-batch" lines, or
  // fewer when `next` has no more); each result goes to `sink` in input order as soon as it and
  // every line before it are done. Returns the lines translated.
  std::size_t translate_iterable(const LineSource& next, const ResultSink& sink,
                                 const TranslationOptions& options = {}) const;

  // Every line of the file `input` ("-": standard input) translated into `output` ("-":
  // standard output), the best hypothesis' text per line. Returns the lines translated.
  std::size_t translate_file(const std::string& input, const std::string& output,
                             const TranslationOptions& options = {}) const;

  // One line, greedy or sampled (beam_size 1), its tokens handed to `callback` as the search
  // chooses them (CTranslate2's generate_tokens), for interactive use. The line is one unit
  // (no sentence splitting; UsageError when it is over the token limit).
  TranslationResult translate_tokens(const std::string& line, const TokenCallback& callback,
                                     const TranslationOptions& options = {}) const;

  // One result per (source, target) pair, in order, with token scores (CTranslate2's
  // score_batch; `s2s score`).
  std::vector<ScoringResult> score_batch(
      const std::vector<std::pair<std::string, std::string>>& pairs,
      const ScoringOptions& options = {}) const;

  // The first API, kept: the best text per line; the n-best list per line (the whole beam with
  // the setting "n-best"); one score per pair ("normalize" applies).
  std::vector<std::string> translate(const std::vector<std::string>& lines) const;
  std::vector<std::vector<Candidate>> translate_n_best(const std::vector<std::string>& lines) const;
  std::vector<ScoredPair> score(const std::vector<std::pair<std::string, std::string>>& pairs) const;

  // The folder of the model s2s ships: settings.h default_model_folder().
  static std::string default_model_folder();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What `s2s info` prints about a model folder: format, files, architecture, sizes, vocabulary
// coverage, languages, the model's own settings, and what translation would miss (a folder that
// lacks only that is still described). SentencePiece files for folders without them.
std::string describe_model(const std::string& model_folder, const std::string& source_spm = "",
                           const std::string& target_spm = "");

// glibc: serve every allocation above 1 MB with its own mapping, given back when freed (peak
// memory of a long run 687 MB -> 421 MB on a base model). Affects the whole process; call once
// at startup (the s2s command does). No-op with other C libraries.
void keep_large_allocations_mapped();

}  // namespace s2s
