// Translator: lines in, translations out, in input order. Each line is cleaned first
// (text/clean.h: invalid UTF-8 -> U+FFFD, control characters -> space); blank lines give
// empty results without running the model; the rest are cut into sentences
// (TranslateOptions::sentence_split, text/segment.h), encoded, sorted by length into batches
// (batch/batcher.h), encoded once per batch, searched, and put back into their input slots.
//
// A line is translated as one unit, or as several (docs/real-text.md): its sentences, and the
// pieces of a sentence longer than the token limit (TranslateOptions::max_length, never more
// than a learned position table), which is split, truncated or refused as options.long_lines
// says (long_lines.h split_to_limit). The units of all lines are batched together; a line's
// units' hypotheses are joined into its results (Translation::units): target ids concatenated
// (each unit's </s> dropped but the last one's; a '▁' token put between two units when the next
// does not start a word), token scores likewise, score their sum, normalized score recomputed by
// the search rules. The n-th joined hypothesis joins each unit's n-th (its last when it has
// fewer). No translation is longer than the token limit either.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/model/shortlist.h"
#include "s2s/pipeline/alignment.h"
#include "s2s/pipeline/glossary.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"
#include "s2s/search/workspace.h"
#include "s2s/text/protect.h"
#include "s2s/text/segment.h"

namespace s2s::pipeline {

struct TranslateOptions {
  search::SearchOptions search;
  // A lexical shortlist (model/shortlist.h): each batch may only produce its candidates. The
  // model must keep its output rows (ops::Packing::keep_output_rows). Null: none.
  std::shared_ptr<const model::Shortlist> shortlist;
  dim_t batch_size = 32;   // sentences per batch
  dim_t batch_tokens = 0;  // if > 0: padded source tokens per batch instead of sentences
  // Most source tokens one sentence may have (language label and </s> included); the model's
  // learned position table lowers it. 256, not Marian's 1000: OPUS-MT models are trained on
  // sentences up to about that length, and decoding cost grows with the square of a sentence's
  // length (up to 3x its tokens of output), so a line of junk over 256 tokens is split at
  // sentence ends and costs time in proportion to its length (docs/performance.md, "Junk
  // lines"). Normal sentences are far shorter.
  dim_t max_length = 256;
  LongLines long_lines = LongLines::split;
  // Multilingual models: a >>xxx<< token put before every line (and every piece of a split
  // line). Without it, a line's own leading label is repeated before each of its pieces.
  std::string target_label;
  // Each line is "source<TAB>target prefix": the translation starts with the prefix (tokenized
  // with the target SentencePiece, search/prefix.h for the rules) and the search continues from
  // there. A line without a tab has no prefix; a split line's first piece gets it.
  bool target_prefix = false;
  // Target tokens every translation is forced to start with and that results leave out: the
  // target-language token of NLLB-200 / M2M-100 (HF's forced_bos_token_id, CTranslate2's
  // target_prefix). Scored 0 and counted in lengths, as target prefixes are (search/prefix.h).
  std::vector<std::int32_t> target_start;
  // Word alignment (--alignment): on, every hypothesis keeps its alignment rows
  // (Hypothesis::alignment; the search's alignment option follows this one). The model must
  // name its alignment layer (ModelConfig::alignment_layer): UsageError otherwise.
  AlignmentOutput alignment;
  // Terminology (--glossary FILE, pipeline/glossary.h): a line containing a source term must be
  // translated with its target term (constrained beam search, search/constraints.h). A line
  // whose constraints cannot be met within the length limit gets its unconstrained translation
  // (InputNotes::glossary_fallback); a line split into pieces gets no constraints. Not with
  // target_prefix or sampling (UsageError).
  std::string glossary_file;
  bool glossary_ignore_case = false;  // match source terms after ASCII lowercasing
  // Cut each line into sentences (ICU, text/segment.h) translated as units of the same batches
  // and joined with the whitespace that separated them: the source language whose abbreviations
  // segmentation knows ("Mr. Smith" is not cut), an ISO 639 code ("on" means "en"). "off": a
  // line is one unit unless it is over the token limit (Marian's and CTranslate2's whole-line
  // behaviour). Anything else is a UsageError.
  std::string sentence_split = "en";
  // A unit whose translation ended implausibly short (short_translation): "retry" searches it
  // again (wider beam, length normalisation), keeps the longer translation and notes it if still
  // short; "warn" only notes it; "off" checks nothing (the search alone, as marian-decoder).
  std::string short_translations = "retry";
  // Placeholders ({0}, %s, $HOME), e-mail addresses, URLs, paths and text the source vocabulary
  // cannot spell are masked before translation and put back after, each exactly once
  // (pipeline/protection.h); false: the model reads every line as it is.
  bool protect = true;
  // Each line is an HTML fragment (text/markup.h): its tags are taken out before translation and
  // put back around the words they enclosed; an ill-formed line is translated as text
  // (InputNotes::markup_problem).
  bool html = false;
};

// What was done to one input line before translation, for the caller's warnings.
struct InputNotes {
  std::size_t invalid_utf8 = 0;   // invalid UTF-8 sequences replaced with U+FFFD
  std::size_t sentences = 1;  // sentences the line was cut into (TranslateOptions::sentence_split)
  // A line (or, of a line cut into sentences, its longest sentence) over the limit: its token
  // count, and what was done to it.
  std::size_t source_tokens = 0;
  enum class LongLine { no, split, truncated } long_line = LongLine::no;
  std::size_t pieces = 0;  // split: how many pieces the line's units are in all
  std::size_t loops_cut = 0;  // split: pieces whose translation the loop guard cut (search/beam.h)
  // Language labels (multilingual models, ">>deu<<"), when no target label was given:
  std::string unknown_label;  // the line starts with a label the model does not know
  bool no_label = false;      // the model is multilingual and the line has no label
  // Glossary (TranslateOptions::glossary_file):
  std::size_t glossary_terms = 0;  // constraints the line got (or would get, when split)
  bool glossary_fallback = false;  // they could not be met: the unconstrained translation
  bool glossary_split = false;     // the line was split: no constraints applied
  std::vector<std::size_t> glossary_unknown;  // glossary lines whose target term has <unk>
  // Units whose translation stayed implausibly short for their source after a second search
  // (short_translation): content may be missing.
  struct ShortUnit {
    std::size_t unit = 0;  // 0-based, among the line's units (its sentences and pieces)
    std::size_t source_tokens = 0;
    std::size_t target_tokens = 0;
    bool searched_again = false;  // TranslateOptions::short_translations "retry"
  };
  std::vector<ShortUnit> short_units;
  // Protection (TranslateOptions::protect, html; pipeline/protection.h):
  std::size_t protected_spans = 0;  // spans masked and put back
  std::size_t spans_placed = 0;     // of them, placed by the alignment in the best translation
  std::vector<std::string> unspellable;  // characters the source vocabulary cannot spell
  std::string markup_problem;  // --html: why the line is no well-formed fragment (translated as text)
};

// The short-translation check: a unit of at least kShortMinSource source tokens (</s> and a
// language label not counted) whose best translation ended (</s>) with fewer than kShortRatio
// target tokens per source token (</s> not counted) probably lost content. Both figures come
// from the length ratios of the default model on its held-out sets (docs/real-text.md):
// sentences of 8 tokens or more have a median ratio of 1.1; 0.6 flags about one in a
// thousand, and those it flagged there had all lost words.
inline constexpr std::size_t kShortMinSource = 8;
inline constexpr double kShortRatio = 0.6;
bool short_translation(std::size_t source_tokens, std::size_t target_tokens);

// How one joined hypothesis of a line translated as several units is made of them.
struct JoinedUnits {
  // Where each unit's translation ends in the hypothesis' ids (</s> excluded), so that its text
  // is decoded unit by unit and joined with Translation::separators (SentencePiece would also need
  // a few hundred bytes per token to decode a huge line's translation at once).
  std::vector<std::size_t> ends;
  // With a hard alignment, the joined (source, target) pairs, sorted: each unit's pairs with its
  // source positions moved by the source ids of the units before it (AlignedSource::ids: the
  // units' ids one after another, each with its </s> and label) and its target positions moved
  // to where its tokens are in the joined ids (what jsonl "tokens" lists); the pairs of a unit's
  // </s> are left out, but the last unit's go to the joined </s> when there is one. Soft rows are
  // not joined: over a huge line they would grow with the square of its length.
  AlignmentPairs alignment;
};

// The result for one input line: the n-best list, best first (one entry unless n_best; empty
// for a blank line).
struct Translation {
  std::vector<search::Hypothesis> hypotheses;
  // With alignment: the source the model read, to map piece alignments to words and characters
  // (alignment.h AlignedSource); its text is empty for a truncated line (not all its words were
  // translated: no word mapping).
  AlignedSource source;
  // A line translated as several units (sentences, pieces of a long sentence): its hypotheses
  // are joined and have no alignment rows; `units` says how, one entry per hypothesis, and
  // `separators` holds the source whitespace before each unit ("" for the first; one space between
  // the pieces of a long sentence), which joins the units' texts.
  bool split = false;
  std::vector<JoinedUnits> units;
  std::vector<std::string> separators;
  // A line whose spans or tags were masked (pipeline/protection.h): each hypothesis' final text,
  // with them put back; empty for other lines, whose text is their ids' (joined_text).
  std::vector<std::string> texts;
  // With `texts` (not with --html): each hypothesis' word alignment as code point spans over the
  // cleaned line and texts[k] (text/protect.h), for jsonl "alignment_spans".
  std::vector<text::AlignmentSpans> text_alignment;
};

// The text of hypothesis k of `translation` made by `text_of` from ids: for a line translated as
// several units, each unit's text on its own, joined to the one before by its separator (or by
// `between` when given).
using TextOfIds = std::function<std::string(const std::vector<std::int32_t>&)>;
std::string joined_text(const Translation& translation, std::size_t k, const TextOfIds& text_of,
                        const char* between = nullptr);

class WorkerTeam;  // pipeline/worker_team.h

// Several translators at once on one model (`s2s translate --workers N`, translate_each).
struct ParallelOptions {
  int workers = 1;             // translators running at once
  int threads_per_worker = 1;  // compute (OpenMP) threads of each
  // Threads to run the workers on, kept across calls (of `workers` threads); null: a team of
  // new threads for this call only.
  WorkerTeam* team = nullptr;
};

class Translator {
 public:
  // UsageError when max_length leaves no room for text next to what the model adds.
  Translator(std::shared_ptr<const model::Model> model, TranslateOptions options);

  // Called for each input line (lines[index]) as soon as its translation is complete, in no
  // particular order, with what was done to the line (`notes`).
  using LineDone = std::function<void(std::size_t index, Translation translation,
                                      const InputNotes& notes)>;

  // Translates `lines`, calling `done` once per line as each one is finished: blank lines first,
  // then the lines of each batch as the batch ends, so that a caller can write out every line
  // whose predecessors are all finished without waiting for the rest. A line's result never
  // depends on the other lines.
  //
  // first_line_number: the 1-based number of lines[0] in the whole input, for error messages
  // (InputError naming the line for a long line with LongLines::fail, thrown before any line is
  // done). `stop`, when given, is checked between batches and decoder steps: once it is true the
  // batch in progress is abandoned and no further line is done (the call returns within one
  // decoder step).
  //
  // parallel.workers > 1: that many threads, each with parallel.threads_per_worker compute
  // threads, take the batches one at a time as they finish the last, so that none waits while
  // batches are left; the lines of each `workers` consecutive batches are dealt out among
  // `workers` batches so that batches running side by side are equally long. `done` is then
  // called from those threads, never from two at once. A line's text does not depend on the
  // batch it is in; its scores may differ in their last digits.
  void translate_each(const std::vector<std::string>& lines, const LineDone& done,
                      std::size_t first_line_number = 1, const std::atomic<bool>* stop = nullptr,
                      const ParallelOptions& parallel = {}) const;

  // translate_each, collected: one result per input line, same order. `notes`, when given,
  // receives what was done to each line, for warnings. When stopped, the result holds only the
  // lines before the first one not fully translated (fewer results than lines means stopped).
  std::vector<Translation> translate(const std::vector<std::string>& lines,
                                     std::size_t first_line_number = 1,
                                     std::vector<InputNotes>* notes = nullptr,
                                     const std::atomic<bool>* stop = nullptr) const;

  const model::Model& model() const { return *model_; }
  const TranslateOptions& options() const { return options_; }
  // The token limit in force: min(max_length, the model's max_positions when > 0).
  const TokenLimit& limit() const { return limit_; }

 private:
  std::shared_ptr<const model::Model> model_;
  TranslateOptions options_;
  TokenLimit limit_;
  bool multilingual_ = false;  // the source vocabulary has >>xxx<< language labels
  std::shared_ptr<const Glossary> glossary_;  // loaded from options.glossary_file, or none
  // Sentences for options.sentence_split, and for lines over the limit in any case.
  std::shared_ptr<const text::SentenceSplitter> splitter_;
  bool can_align_ = false;  // the model names an alignment layer (ModelConfig::alignment_layer)
  // The search buffers of the workers, kept from one call to the next (search/workspace.h).
  std::shared_ptr<search::WorkspacePool> workspaces_ = std::make_shared<search::WorkspacePool>();
};

// True when a line holds only whitespace (or nothing).
bool is_blank(const std::string& line);

// "line 7: 1523 tokens, more than the limit of 1000 (--max-length): split into 3 pieces,
// translated separately and joined" (or "truncated to its first 1000 tokens"); empty when the
// line was not too long.
std::string long_line_message(std::size_t line_number, const InputNotes& notes,
                              const TokenLimit& limit);

// "line 7: the translation of sentence 2 is much shorter than its source (3 tokens for 25):
// content may be missing", one per short unit; none when the line has none.
std::vector<std::string> short_messages(std::size_t line_number, const InputNotes& notes);

// The glossary warnings of one line ("line 7: ..."): constraints not met (unconstrained
// translation), not applied to a split line, target terms dropped for <unk>.
std::vector<std::string> glossary_messages(std::size_t line_number, const InputNotes& notes);

}  // namespace s2s::pipeline
