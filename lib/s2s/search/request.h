// SearchRequest: what one search of a batch is asked for, beyond the encoded source. Every
// per-sentence list is either empty (no sentence has any) or holds one entry per row of the batch
// (a shorter list: the rows past its end have none).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "s2s/search/constraints.h"
#include "s2s/search/options.h"
#include "s2s/search/prefix.h"

namespace s2s::search {

struct SearchRequest {
  SearchOptions options;
  // Checked before every decoder step: once true the search is abandoned and its result is
  // empty (no row's result is kept). Null: never stopped.
  const std::atomic<bool>* stop = nullptr;
  // Beam search only: nonzero rows get the loop guard (search/beam.h).
  std::vector<char> guard_loops;
  // Forced starts (search/prefix.h); an empty prefix = none.
  Prefixes prefixes;
  // Beam search only: terminology constraints (search/constraints.h); empty = none, and such a
  // row is searched exactly as without them.
  std::vector<Constraints> constraints;
  // Sampling only: one seed per row (sentence_seed, search/sampling.h).
  std::vector<std::uint64_t> seeds;
  // The batch's shortlist candidates (model/shortlist.h): sorted target ids, the only ones the
  // search may produce; empty = the whole vocabulary.
  std::vector<std::int32_t> candidates;

  SearchRequest() = default;
  // A request of these options and nothing else. Implicit: a plain search reads as
  // beam_search(model, encoded, options).
  SearchRequest(const SearchOptions& search_options) : options(search_options) {}  // NOLINT

  bool guarded(std::size_t row) const { return row < guard_loops.size() && guard_loops[row] != 0; }
  // The constraints of `row`, or nullptr when it has none.
  const Constraints* constraints_of(std::size_t row) const {
    return row < constraints.size() && !constraints[row].empty() ? &constraints[row] : nullptr;
  }
};

}  // namespace s2s::search
