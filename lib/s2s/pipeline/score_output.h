// ScoreFormatter: the records `s2s score` prints, one per input line, as marian-scorer does.
//   text   the (normalized) score, printed as marian-scorer prints it (std::to_string, six
//          decimals); with alignment followed by " ||| " and the alignment (alignment.h), with
//          word_scores by " ||| WordScores= s1 s2 ...".
//   jsonl  {"score", "normalized_score", "tokens", "token_scores"} (output.h, translate's keys);
//          with alignment also "piece_alignment", and for a hard one "alignment" and
//          "alignment_spans" over the pair's texts (output.h append_score_jsonl).
//   n-best input: the list's line with one more feature "NAME= score " in its third field.
//   summary: nothing per pair; finish() gives one corpus figure (cross-entropy = ce-mean,
//          ce-mean-words, ce-sum, perplexity) from every pair's −log p, as marian-scorer.
// A skipped line (PairReader's skip_bad) gives an empty line, or {"skipped":true} in jsonl, and
// is left out of the summary.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "s2s/pipeline/output.h"
#include "s2s/pipeline/pair_reader.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/text/codec.h"

namespace s2s::pipeline {

struct ScoreFormat {
  OutputFormat format = OutputFormat::text;  // text or jsonl
  bool word_scores = false;
  bool nbest = false;                  // the input is an n-best list, written back
  std::string nbest_feature = "Fscore";
  std::string summary;                 // a corpus figure instead of records, or ""
  AlignmentOutput alignment;           // text: " ||| " and the alignment after the score
};

// The corpus figures marian-scorer's --summary knows ("cross-entropy" = "ce-mean").
bool is_summary_kind(const std::string& kind);

class ScoreFormatter {
 public:
  ScoreFormatter(const text::TextCodec& codec, ScoreFormat format);

  // Appends one record per entry to `out`; `scores` holds the scores of the entries not
  // skipped, in order.
  void append(const std::vector<PairEntry>& entries, const std::vector<PairScore>& scores,
              std::string& out);

  // The summary record (with a summary), else "".
  std::string finish() const;

 private:
  const text::TextCodec& codec_;
  ScoreFormat format_;
  double cross_entropy_ = 0.0;
  std::size_t words_ = 0;  // target tokens incl. </s>
  std::size_t pairs_ = 0;
};

}  // namespace s2s::pipeline
