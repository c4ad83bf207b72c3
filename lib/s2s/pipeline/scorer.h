// Scorer: (source, target) pairs -> log-probabilities, like marian-scorer. Shares the codec,
// batcher and encoder with translation; one teacher-forced decoder pass per batch
// (Decoder::target_log_probs). Results come back in input order.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/pipeline/alignment.h"
#include "s2s/search/options.h"

namespace s2s::pipeline {

struct ScoreOptions {
  float normalize = 0.0f;  // divide by (target length incl. </s>)^normalize
  dim_t batch_size = 32;   // pairs per batch
  dim_t batch_tokens = 0;  // if > 0: padded target tokens per batch instead
  // Word alignment of each pair (marian-scorer --alignment; PairScore::alignment). The model
  // must name its alignment layer: UsageError otherwise.
  AlignmentOutput alignment;
  // NLLB-200 / M2M-100 (pipeline/languages.h apply_languages): the source-language token put
  // before every source, and the target-language token the decoder is given first. It is not
  // scored (translation forces it, scored 0) but counts in the length that --normalize divides
  // by, as in translation.
  std::string source_label;
  std::vector<std::int32_t> target_start;
};

struct PairScore {
  std::vector<std::int32_t> target_ids;  // incl. </s>
  std::vector<float> token_scores;       // log p of each target token
  float score = 0.0f;                    // sum of token_scores
  float normalized_score = 0.0f;         // score / length^normalize
  // Source or target longer than a learned position table (ModelConfig::max_positions): scored
  // with the positions past the table clamped to its last row, as Marian does.
  bool beyond_positions = false;
  // With ScoreOptions::alignment: one row per target token over the source positions (</s>
  // included), as Hypothesis::alignment, from the teacher-forced pass; and to map them to words
  // and characters (alignment.h word_alignment) the source as Translation::source has it (its
  // ids, and its text as given to score(): `s2s score` gives the lines cleaned as translate
  // cleans them) and the target's text.
  std::vector<float> alignment;
  AlignedSource source;
  std::string target_text;
};

class Scorer {
 public:
  Scorer(std::shared_ptr<const model::Model> model, ScoreOptions options);

  // One result per pair. An empty source or target is scored as it is ([</s>] alone). `stop`,
  // when given, is checked between batches: once it is true the call returns nothing.
  std::vector<PairScore> score(const std::vector<std::pair<std::string, std::string>>& pairs,
                               const std::atomic<bool>* stop = nullptr) const;

  const model::Model& model() const { return *model_; }

 private:
  std::shared_ptr<const model::Model> model_;
  ScoreOptions options_;
};

}  // namespace s2s::pipeline
