// The columns of a step's log-probabilities (SearchWorkspace::log_probs): every target id, in
// order, or with a shortlist (SearchRequest::candidates) the batch's candidates alone, sorted.
// The decoder then computes C logits a row instead of V (model::Decoder::restrict_output), and
// the log-softmax, the top-k and the draws read those C columns: no pass over the vocabulary is
// left in a step. The search turns a chosen column into its token at once; the lists of ids it
// excludes (ForbiddenIds) are kept as columns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "s2s/core/tensor.h"

namespace s2s::search {

class Columns {
 public:
  // `candidates`: sorted target ids, or empty for the whole vocabulary of `vocab` ids.
  Columns(dim_t vocab, const std::vector<std::int32_t>& candidates)
      : vocab_(vocab), candidates_(candidates) {}

  dim_t size() const {
    return candidates_.empty() ? vocab_ : static_cast<dim_t>(candidates_.size());
  }
  std::int32_t token(std::int32_t column) const {
    return candidates_.empty() ? column : candidates_[static_cast<std::size_t>(column)];
  }
  // The column of `token`, or -1 when it is not one of the candidates.
  std::int32_t column(std::int32_t token) const {
    if (candidates_.empty()) return token;
    const auto at = std::lower_bound(candidates_.begin(), candidates_.end(), token);
    return at != candidates_.end() && *at == token
               ? static_cast<std::int32_t>(at - candidates_.begin())
               : -1;
  }
  // Sorted ids that end with the vocabulary size (ForbiddenIds' form) as the sorted columns of
  // those that are candidates, ended by size().
  std::vector<std::int32_t> columns_of(const std::vector<std::int32_t>& sorted_ids) const {
    if (candidates_.empty()) return sorted_ids;
    std::vector<std::int32_t> columns;
    for (std::int32_t id : sorted_ids)
      if (const std::int32_t c = column(id); c >= 0) columns.push_back(c);
    columns.push_back(static_cast<std::int32_t>(size()));
    return columns;
  }

 private:
  dim_t vocab_;
  const std::vector<std::int32_t>& candidates_;  // the request's, which outlives the search
};

}  // namespace s2s::search
