// Output records: one input line's Translation as the text `s2s translate` prints
// (docs/user-guide.md, "Guarantees": one record per line, in order).
//
//   text   the best hypothesis, detokenized; a blank input line gives an empty line.
//   nbest  Marian's n-best format, one line per hypothesis (all with n_best, else the best):
//            id ||| translation ||| F0= score ||| normalized-score
//          id is the 0-based input line number; floats are printed as marian-decoder's
//          OutputPrinter prints them, through a default std::ostream (printf "%g", 6 digits).
//          A blank input line gives "id |||  ||| F0= 0 ||| 0".
//   jsonl  one JSON object per input line:
//            {"translation", "score", "normalized_score", "tokens", "token_scores"}
//          of the best hypothesis, plus "n_best": [ the same five fields per hypothesis ] with
//          n_best. "tokens" holds the vocabulary piece of every target id, </s> included, so
//          that it lines up with "token_scores" (one log-probability per id). A blank input
//          line gives an empty translation, scores 0 and empty lists.
// With TargetText::pieces (--no-spm-decode) every translation is printed as its target pieces
// separated by spaces, </s> left out, instead of detokenized text: what marian-decoder
// --no-spm-decode prints. "tokens" in jsonl is unchanged.
// Every record ends with '\n'. `s2s score --format jsonl` prints its records with the same keys
// (less "translation") and numbers: append_score_jsonl, append_summary_jsonl.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "s2s/pipeline/alignment.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/pipeline/translator.h"
#include "s2s/text/codec.h"

namespace s2s::pipeline {

enum class OutputFormat { text, nbest, jsonl };

// The names used by --format and YAML, in enum order.
inline constexpr const char* kOutputFormatNames[] = {"text", "nbest", "jsonl"};
static_assert(std::size(kOutputFormatNames) == static_cast<std::size_t>(OutputFormat::jsonl) + 1,
              "one name per OutputFormat");

const char* output_format_name(OutputFormat format);
std::optional<OutputFormat> parse_output_format(const std::string& name);

// Marian's float format for n-best lists: what `std::ostream << value` prints by default.
std::string marian_float(float value);

// score's jsonl record of one pair: {"score", "normalized_score", "tokens", "token_scores"}.
// With alignment on, also "piece_alignment", and for a hard alignment "alignment" and
// "alignment_spans" (over the pair's source and target text), as translate's jsonl has them.
void append_score_jsonl(const text::TextCodec& codec, const PairScore& score, std::string& out,
                        const AlignmentOutput& alignment = {});
// score's jsonl record of a corpus figure: {"summary": kind, "value": value}.
void append_summary_jsonl(const std::string& kind, float value, std::string& out);
// The alignment of one target (a hypothesis, or a scored pair's target) as data: what jsonl's
// "piece_alignment", "alignment" and "alignment_spans" print, and the library returns.
struct TargetAlignment {
  AlignmentPairs pieces;                  // hard: (source, target) piece pairs, </s> included
  std::vector<std::vector<float>> soft;   // soft: one row of source weights per target piece
  bool has_words = false;                 // hard, with a source whose words are known
  WordAlignment words;                    // (source word, target word) pairs and their spans
};

// The alignment of `target_ids`, printed as `target_text`, to `source`: from `rows` (a translated
// or scored sentence), or from `pairs` (a split line, whose rows are not kept:
// JoinedUnits::alignment).
TargetAlignment target_alignment(const text::TextCodec& codec, const AlignmentOutput& alignment,
                                 const AlignedSource& source,
                                 const std::vector<std::int32_t>& target_ids,
                                 const std::string& target_text, const std::vector<float>& rows,
                                 const AlignmentPairs* pairs);

// How a translation's text is printed: detokenized by SentencePiece, or as its pieces.
enum class TargetText { decoded, pieces };

class OutputFormatter {
 public:
  // all_hypotheses: print the whole n-best list (--n-best), not only the best.
  // alignment: with --alignment, text and nbest records get " ||| " and the alignment after
  // the translation (pipeline/alignment.h), and jsonl records a "piece_alignment" list: [[s, t],
  // ...] piece positions (</s> included), or with soft alignment one weight list per target piece.
  // word_scores: text and nbest records get " ||| WordScores=" and each target token's
  // log-probability (</s> included) after the translation and alignment, as marian-decoder
  // --word-scores prints them (" %.5f" each); jsonl has them anyway ("token_scores").
  OutputFormatter(const text::TextCodec& codec, OutputFormat format, bool all_hypotheses,
                  TargetText target_text = TargetText::decoded, AlignmentOutput alignment = {},
                  bool word_scores = false);

  // Appends the record of input line `line_id` (0-based) to `out`. With `notes`, a jsonl record
  // also says which of the line's units may have lost content ("short": [{"part", "source_tokens",
  // "target_tokens"}], left out when none; InputNotes::short_units).
  void append(const Translation& translation, std::size_t line_id, std::string& out,
              const InputNotes* notes = nullptr) const;

  // The printed text of target ids (up to the first </s>).
  std::string translation_text(const std::vector<std::int32_t>& ids) const;
  // The printed text of hypothesis `k` of `translation`: for a line translated as several units
  // (Translation::split), each unit's text on its own (no decoder sees more than a sentence's
  // tokens at once) joined with the source whitespace between the units.
  std::string hypothesis_text(const Translation& translation, std::size_t k) const;
  // " ||| " and the alignment of hypothesis `k` of `translation` as marian-decoder prints it
  // (a split line's: JoinedUnits::alignment); "" without --alignment.
  std::string alignment_suffix(const Translation& translation, std::size_t k) const;
  const AlignmentOutput& alignment() const { return alignment_; }
  // What follows hypothesis `k`'s text: alignment_suffix, then " ||| WordScores= ..." when on.
  std::string suffixes(const Translation& translation, std::size_t k) const;

 private:
  void append_nbest(const Translation& translation, std::size_t line_id, std::string& out) const;
  void append_jsonl(const Translation& translation, const InputNotes* notes,
                    std::string& out) const;

  const text::TextCodec& codec_;
  OutputFormat format_;
  bool all_hypotheses_;
  TargetText target_text_;
  AlignmentOutput alignment_;
  bool word_scores_;
};

}  // namespace s2s::pipeline
