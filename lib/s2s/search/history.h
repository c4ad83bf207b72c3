// History: every token a search has chosen, as a tree. A hypothesis is a node that points to the
// node it extends, so a step adds one node per surviving extension (its token, its score and its
// alignment row) where copying each hypothesis would copy its whole past, step after step. The
// finished hypotheses are read back from their last node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "s2s/search/hypothesis.h"

namespace s2s::search {

class History {
 public:
  // The node of a hypothesis with no token yet (a start state).
  static constexpr std::int32_t kStart = -1;

  // A node for `token` (log-probability `token_score`) after node `parent`, with `alignment_size`
  // floats of alignment from `alignment` (none when 0).
  std::int32_t add(std::int32_t parent, std::int32_t token, float token_score,
                   const float* alignment, std::size_t alignment_size);

  // The tokens of `node` and its ancestors, oldest first; at most the last `most` of them.
  void ids(std::int32_t node, std::vector<std::int32_t>& out,
           std::size_t most = static_cast<std::size_t>(-1)) const;

  // The hypothesis that ends at `node`: its ids, token scores and alignment rows, with `score`
  // (normalized_score and cut_in_loop are left to the caller).
  Hypothesis hypothesis(std::int32_t node, float score) const;

 private:
  struct Node {
    std::int32_t parent;
    std::int32_t token;
    float token_score;
    std::size_t alignment_at;  // its row in alignment_
    std::size_t alignment_size;
  };
  std::vector<Node> nodes_;
  std::vector<float> alignment_;
};

}  // namespace s2s::search
