#include "s2s/pipeline/dedup.h"

#include <iterator>

namespace s2s::pipeline {
namespace {

// A list node (two pointers), a hash table node (next pointer, cached hash, key view, iterator)
// and its bucket pointer, with some slack: a guess, the same for every line.
constexpr std::size_t kNodeBytes = 96;

template <typename T>
std::size_t vector_bytes(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

}  // namespace

std::size_t dedup_bytes(const std::string& line, const FinishedLine& result) {
  const Translation& t = result.translation;
  const InputNotes& notes = result.notes;
  std::size_t bytes = kNodeBytes + sizeof(FinishedLine) + line.size();
  for (const search::Hypothesis& h : t.hypotheses)
    bytes += sizeof h + vector_bytes(h.ids) + vector_bytes(h.token_scores) +
             vector_bytes(h.alignment);
  bytes += vector_bytes(t.source.ids) + t.source.text.size() + vector_bytes(t.source.pieces);
  for (const JoinedUnits& parts : t.units)
    bytes += sizeof parts + vector_bytes(parts.ends) + vector_bytes(parts.alignment);
  for (const std::string& separator : t.separators) bytes += sizeof separator + separator.size();
  bytes += vector_bytes(notes.glossary_unknown) + vector_bytes(notes.short_units) +
           notes.unknown_label.size();
  return bytes;
}

const FinishedLine* DedupCache::find(const std::string& line) {
  const auto found = index_.find(line);
  if (found == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, found->second);  // iterators stay valid
  return &found->second->result;
}

void DedupCache::erase(std::list<Entry>::iterator entry) {
  bytes_ -= entry->bytes;
  index_.erase(entry->line);
  entries_.erase(entry);
}

void DedupCache::put(const std::string& line, FinishedLine result) {
  if (const auto held = index_.find(line); held != index_.end()) erase(held->second);
  const std::size_t bytes = dedup_bytes(line, result);
  if (bytes > budget_) return;
  entries_.push_front(Entry{line, std::move(result), bytes});
  index_.emplace(entries_.front().line, entries_.begin());
  bytes_ += bytes;
  while (bytes_ > budget_) erase(std::prev(entries_.end()));
}

DedupPlan plan_window(const std::vector<std::string>& lines, DedupCache& cache) {
  DedupPlan plan;
  plan.work.resize(lines.size());
  plan.translate.assign(lines.size(), false);
  plan.repeats.resize(lines.size());
  std::unordered_map<std::string_view, std::size_t> first;  // line -> its first index
  first.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto [seen, added] = first.emplace(lines[i], i);
    if (!added) {
      plan.repeats[seen->second].push_back(i);
    } else if (const FinishedLine* held = cache.find(lines[i])) {
      plan.hits.emplace_back(i, *held);
    } else {
      plan.work[i] = lines[i];
      plan.translate[i] = true;
    }
  }
  return plan;
}

void translate_deduplicated(const std::vector<std::string>& lines, DedupCache& cache,
                            const TranslateLines& translate, const Translator::LineDone& done) {
  DedupPlan plan = plan_window(lines, cache);
  // A result for index i and for each repeat of line i; the last call takes it.
  const auto done_all = [&](std::size_t i, Translation translation, const InputNotes& notes) {
    for (std::size_t repeat : plan.repeats[i]) done(repeat, translation, notes);
    done(i, std::move(translation), notes);
  };
  for (auto& [i, held] : plan.hits) done_all(i, std::move(held.translation), held.notes);
  plan.hits.clear();
  translate(plan.work, [&](std::size_t i, Translation translation, const InputNotes& notes) {
    if (!plan.translate[i]) return;  // a placeholder
    cache.put(lines[i], FinishedLine{translation, notes});
    done_all(i, std::move(translation), notes);
  });
}

}  // namespace s2s::pipeline
