// Hypothesis: one translation as target ids with its scores.
#pragma once

#include <cstdint>
#include <vector>

namespace s2s::search {

struct Hypothesis {
  std::vector<std::int32_t> ids;    // target tokens, ending in </s> unless cut by the length limit
  std::vector<float> token_scores;  // log-probability of each token
  float score = 0.0f;               // sum of token_scores (Marian's F0 model score)
  float normalized_score = 0.0f;    // (score - word_penalty·L) / L^normalize, L = ids.size()
  bool cut_in_loop = false;         // ended by beam_search's loop guard (search/beam.h)
  // With SearchOptions::alignment: for each token t, the attention of the step that chose it
  // over the source positions (the model's alignment layer, head 0; Marian's soft alignment),
  // row after row: ids.size() rows of (source length incl. </s>) floats. Empty otherwise.
  std::vector<float> alignment;
};

}  // namespace s2s::search
