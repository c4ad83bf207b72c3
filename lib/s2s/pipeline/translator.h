// Translator: lines in, translations out, in input order. Each line is cleaned first
// (text/clean.h: invalid UTF-8 -> U+FFFD, control characters -> space); blank lines give
// empty results without running the model; the rest are encoded, sorted by length into batches
// (batch/batcher.h), encoded once per batch, searched, and put back into their input slots.
//
// A line longer than the token limit (TranslateOptions::max_length, never more than a learned
// position table) is split, truncated or refused as options.long_lines says; no translation is
// longer than that limit either. Split: its pieces
// (long_lines.h split_to_limit) are translated as separate sentences, batched with every other
// line, and their best hypotheses joined into the line's one result: target ids concatenated
// (the pieces' </s> dropped but the last one's; a '▁' token put between two pieces when the next
// does not start a word, so the text is joined with one space), token scores likewise, score
// their sum, normalized score recomputed by the search rules. A split line has one hypothesis
// even with n_best.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/pipeline/alignment.h"
#include "s2s/pipeline/glossary.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"

namespace s2s::pipeline {

struct TranslateOptions {
  search::SearchOptions search;
  dim_t batch_size = 32;   // sentences per batch
  dim_t batch_tokens = 0;  // if > 0: padded source tokens per batch instead of sentences
  // Most source tokens one sentence may have (language label and </s> included); the model's
  // learned position table lowers it. 256, not Marian's 1000: OPUS-MT models are trained on
  // sentences up to about that length, and decoding cost grows with the square of a sentence's
  // length (up to 3x its tokens of output), so a line of junk over 256 tokens is split at
  // sentence ends and costs time in proportion to its length (bench/README.md, worst inputs:
  // 2,000 characters without spaces 19.5 s -> 2.9 s). Normal sentences are far shorter.
  dim_t max_length = 256;
  LongLines long_lines = LongLines::split;
  // Multilingual models: a >>xxx<< token put before every line (and every piece of a split
  // line). Without it, a line's own leading label is repeated before each of its pieces.
  std::string target_label;
  // Each line is "source<TAB>target prefix": the translation starts with the prefix (tokenized
  // with the target SentencePiece, search/prefix.h for the rules) and the search continues from
  // there. A line without a tab has no prefix; a split line's first piece gets it.
  bool target_prefix = false;
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
};

// What was done to one input line before translation, for the caller's warnings.
struct InputNotes {
  std::size_t invalid_utf8 = 0;   // invalid UTF-8 sequences replaced with U+FFFD
  std::size_t source_tokens = 0;  // when the line was over the limit: its token count
  enum class LongLine { no, split, truncated } long_line = LongLine::no;
  std::size_t pieces = 0;  // split: how many pieces were translated
  std::size_t loops_cut = 0;  // split: pieces whose translation the loop guard cut (search/beam.h)
  // split: where each piece's translation ends in the joined hypothesis' ids (</s> excluded), so
  // that a caller can decode a huge line piece by piece (SentencePiece needs a few hundred bytes
  // per token to decode at once).
  std::vector<std::size_t> piece_ends;
  // Language labels (multilingual models, ">>deu<<"), when no target label was given:
  std::string unknown_label;  // the line starts with a label the model does not know
  bool no_label = false;      // the model is multilingual and the line has no label
  // Glossary (TranslateOptions::glossary_file):
  std::size_t glossary_terms = 0;  // constraints the line got (or would get, when split)
  bool glossary_fallback = false;  // they could not be met: the unconstrained translation
  bool glossary_split = false;     // the line was split: no constraints applied
  std::vector<std::size_t> glossary_unknown;  // glossary lines whose target term has <unk>
};

// The result for one input line: the n-best list, best first (one entry unless n_best; empty
// for a blank line).
struct Translation {
  std::vector<search::Hypothesis> hypotheses;
  // With alignment: the source the model read, to map piece alignments to words and characters
  // (alignment.h AlignedSource); its text is empty for a truncated line (not all its words were
  // translated: no word mapping).
  AlignedSource source;
  // A line split into pieces (InputNotes::piece_ends): its one hypothesis is the pieces' joined
  // and has no alignment rows; with a hard alignment, split_alignment is its (source, target)
  // pairs, sorted: each piece's pairs with its source positions moved by the source ids of the
  // pieces before it (AlignedSource::ids: the pieces' ids one after another, each with its </s>
  // and label) and its target positions moved to where its tokens are in the joined hypothesis'
  // ids (what jsonl "tokens" lists); the pairs of a piece's </s> are left out, but the last
  // piece's go to the joined </s> when there is one. Soft rows are not joined (empty): over the
  // joined source they would grow with the square of the line's length.
  bool split = false;
  AlignmentPairs split_alignment;
};

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
};

// True when a line holds only whitespace (or nothing).
bool is_blank(const std::string& line);

// "line 7: 1523 tokens, more than the limit of 1000 (--max-length): split into 3 pieces,
// translated separately and joined" (or "truncated to its first 1000 tokens"); empty when the
// line was not too long.
std::string long_line_message(std::size_t line_number, const InputNotes& notes,
                              const TokenLimit& limit);

// The glossary warnings of one line ("line 7: ..."): constraints not met (unconstrained
// translation), not applied to a split line, target terms dropped for <unk>.
std::vector<std::string> glossary_messages(std::size_t line_number, const InputNotes& notes);

}  // namespace s2s::pipeline
