#include "s2s/model/shortlist.h"

#include <algorithm>

namespace s2s::model {

Shortlist Shortlist::marian(std::int32_t first, std::vector<std::vector<std::int32_t>> targets,
                            bool shared_vocabulary) {
  Shortlist s;
  s.kind_ = Kind::marian;
  s.first_ = first;
  s.targets_ = std::move(targets);
  s.shared_vocabulary_ = shared_vocabulary;
  return s;
}

Shortlist Shortlist::vocabulary_map(
    std::vector<std::map<std::vector<std::int32_t>, std::vector<std::int32_t>>> rules,
    std::vector<std::int32_t> always) {
  Shortlist s;
  s.kind_ = Kind::vocabulary_map;
  s.rules_ = std::move(rules);
  s.always_ = std::move(always);
  return s;
}

std::size_t Shortlist::entries() const {
  if (kind_ == Kind::marian)
    return static_cast<std::size_t>(
        std::count_if(targets_.begin(), targets_.end(), [](const auto& t) { return !t.empty(); }));
  std::size_t n = 0;
  for (const auto& rule : rules_) n += rule.size();
  return n;
}

std::vector<std::int32_t> Shortlist::candidates(
    const std::vector<std::vector<std::int32_t>>& sources,
    const std::vector<std::vector<std::int32_t>>& prefixes, std::int32_t vocab_size) const {
  return kind_ == Kind::marian ? marian_candidates(sources, vocab_size)
                               : map_candidates(sources, prefixes, vocab_size);
}

std::vector<std::int32_t> Shortlist::marian_candidates(
    const std::vector<std::vector<std::int32_t>>& sources, std::int32_t vocab_size) const {
  std::vector<char> chosen(static_cast<std::size_t>(vocab_size), 0);
  std::vector<char> seen(targets_.size(), 0);
  for (std::int32_t i = 0; i < std::min(first_, vocab_size); ++i) chosen[i] = 1;
  for (const std::vector<std::int32_t>& sentence : sources)
    for (std::int32_t s : sentence) {
      if (shared_vocabulary_ && s < vocab_size) chosen[s] = 1;
      if (s < 0 || static_cast<std::size_t>(s) >= targets_.size() || seen[s]) continue;
      seen[s] = 1;
      for (std::int32_t t : targets_[s]) chosen[t] = 1;
    }
  std::int64_t count = std::count(chosen.begin(), chosen.end(), 1);
  // Marian's multiple of 8 (for its integer products) changes which ids compete, so it is kept.
  for (std::int32_t i = first_; i < vocab_size && count % 8 != 0; ++i)
    if (!chosen[i]) {
      chosen[i] = 1;
      ++count;
    }
  std::vector<std::int32_t> ids;
  ids.reserve(static_cast<std::size_t>(count));
  for (std::int32_t i = 0; i < vocab_size; ++i)
    if (chosen[i]) ids.push_back(i);
  return ids;
}

std::vector<std::int32_t> Shortlist::map_candidates(
    const std::vector<std::vector<std::int32_t>>& sources,
    const std::vector<std::vector<std::int32_t>>& prefixes, std::int32_t vocab_size) const {
  std::vector<std::int32_t> ids = always_;
  std::vector<std::int32_t> key;
  for (const std::vector<std::int32_t>& sentence : sources)
    for (std::size_t i = 0; i < sentence.size(); ++i) {
      key.clear();
      for (std::size_t n = 0; n < rules_.size() && i + n < sentence.size(); ++n) {
        key.push_back(sentence[i + n]);
        const auto found = rules_[n].find(key);
        if (found != rules_[n].end())
          ids.insert(ids.end(), found->second.begin(), found->second.end());
      }
    }
  for (const std::vector<std::int32_t>& prefix : prefixes)
    ids.insert(ids.end(), prefix.begin(), prefix.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  ids.erase(std::remove_if(ids.begin(), ids.end(),
                           [&](std::int32_t id) { return id < 0 || id >= vocab_size; }),
            ids.end());
  return ids;
}

}  // namespace s2s::model
