// Deduplication (`s2s translate --dedup`): each distinct line is translated once per run and its
// result copied to every repeat. Localisation and web corpora repeat many lines ("OK", "Cancel",
// boilerplate), and a line's translation never depends on the other lines (translator.h), so a
// copy is the translation the repeat would have got. Sampling too: a line's samples are drawn
// from a seed made of --seed and the line's own source ids (search::sentence_seed), not its
// position, so a repeat samples the same as its first occurrence. Only the last digits of the
// scores that nbest and jsonl print can differ from a run without --dedup, as between batch
// sizes (docs/user-guide.md, "Guarantees"): the copy was scored in its first occurrence's batch.
//
// Two parts:
//   DedupCache        finished lines across windows: the line as the translator got it (exactly:
//                     a --prefix-file prefix attached, the byte order mark stripped) -> its
//                     Translation and InputNotes, least recently used evicted past a byte budget.
//   translate_deduplicated  one window: the cache's lines are done at once, each other distinct
//                     line translated once (repeats inside the window too), its result stored and
//                     done for every index holding the line.
// The notes are kept with the translation, so a warning about a line (invalid UTF-8, split) is
// printed for each repeat, naming its own line.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "s2s/pipeline/translator.h"

namespace s2s::pipeline {

// A translated line: what Translator::LineDone got for it.
struct FinishedLine {
  Translation translation;
  InputNotes notes;
};

// About the memory `line` and its result take in a DedupCache: the bytes of the line, of every
// string and vector in the result (token ids, scores, alignments, piece ends: their sizes, not
// capacities), the structs themselves, and a fixed guess for the list and hash table nodes. The
// allocator's own overhead is not counted.
std::size_t dedup_bytes(const std::string& line, const FinishedLine& result);

// Finished lines, least recently used first out once their bytes (dedup_bytes) pass the budget.
// Not thread-safe (Translator::translate_each calls `done` from one thread at a time).
class DedupCache {
 public:
  explicit DedupCache(std::size_t budget_bytes) : budget_(budget_bytes) {}
  DedupCache(const DedupCache&) = delete;
  DedupCache& operator=(const DedupCache&) = delete;

  // The result held for `line`, now the most recently used; nullptr when none is held. Valid
  // until the next put.
  const FinishedLine* find(const std::string& line);
  // Whether a result is held for `line` (recency unchanged).
  bool contains(const std::string& line) const { return index_.count(line) > 0; }

  // Holds `result` for `line` as the most recently used (replacing one held before), then evicts
  // the least recently used until the bytes fit the budget. A line whose own bytes exceed the
  // whole budget is not held (nothing is evicted for it).
  void put(const std::string& line, FinishedLine result);

  std::size_t size() const { return index_.size(); }
  std::size_t bytes() const { return bytes_; }  // of the lines held, as dedup_bytes counts
  std::size_t budget() const { return budget_; }

 private:
  struct Entry {
    std::string line;
    FinishedLine result;
    std::size_t bytes;
  };
  void erase(std::list<Entry>::iterator entry);

  std::size_t budget_;
  std::size_t bytes_ = 0;
  std::list<Entry> entries_;  // most recently used first; nodes never move
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // views of Entry::line
};

// One window's work (plan_window).
struct DedupPlan {
  // The window with "" in place of every line not to be translated (a repeat of an earlier line of
  // the window, or a line the cache holds): what the translator gets. A blank line costs nothing,
  // and the indices, so the line numbers of errors (--long-lines fail), stay the window's.
  std::vector<std::string> work;
  std::vector<bool> translate;  // work[i] is a line to translate (false for every placeholder)
  // For the first occurrence i of a line in the window: the later indices holding the same line.
  std::vector<std::vector<std::size_t>> repeats;
  // First occurrences whose result the cache holds: (index, a copy of the result).
  std::vector<std::pair<std::size_t, FinishedLine>> hits;
};

// Which lines of `lines` must be translated: the first occurrence of each line the cache does not
// hold. Looks the others up in the cache (which makes them its most recently used).
DedupPlan plan_window(const std::vector<std::string>& lines, DedupCache& cache);

// Translates `lines` (given to it, and its LineDone).
using TranslateLines =
    std::function<void(const std::vector<std::string>& lines, const Translator::LineDone& done)>;

// `translate` over one window with deduplication: `done` is called once per line of `lines` (its
// own index), as it would be without: the cache's lines at once, the others as `translate`
// finishes their first occurrence (stored in the cache then). Stopped, `translate` leaves lines
// undone, and so does this.
void translate_deduplicated(const std::vector<std::string>& lines, DedupCache& cache,
                            const TranslateLines& translate, const Translator::LineDone& done);

}  // namespace s2s::pipeline
