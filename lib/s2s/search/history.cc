#include "s2s/search/history.h"

#include <algorithm>

namespace s2s::search {

std::int32_t History::add(std::int32_t parent, std::int32_t token, float token_score,
                          const float* alignment, std::size_t alignment_size) {
  nodes_.push_back({parent, token, token_score, alignment_.size(), alignment_size});
  if (alignment_size > 0) alignment_.insert(alignment_.end(), alignment, alignment + alignment_size);
  return static_cast<std::int32_t>(nodes_.size() - 1);
}

void History::ids(std::int32_t node, std::vector<std::int32_t>& out, std::size_t most) const {
  out.clear();
  for (; node != kStart && out.size() < most; node = nodes_[node].parent)
    out.push_back(nodes_[node].token);
  std::reverse(out.begin(), out.end());
}

Hypothesis History::hypothesis(std::int32_t node, float score) const {
  std::vector<std::int32_t> path;  // its nodes, last first
  for (; node != kStart; node = nodes_[node].parent) path.push_back(node);
  Hypothesis h;
  h.score = score;
  for (auto n = path.rbegin(); n != path.rend(); ++n) {
    const Node& at = nodes_[*n];
    h.ids.push_back(at.token);
    h.token_scores.push_back(at.token_score);
    h.alignment.insert(h.alignment.end(), alignment_.begin() + at.alignment_at,
                       alignment_.begin() + at.alignment_at + at.alignment_size);
  }
  return h;
}

}  // namespace s2s::search
