// The ids a search may not choose next, shared by beam search and sampling so that both exclude
// the same tokens.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/columns.h"
#include "s2s/search/options.h"

namespace s2s::search {

// The ids a row may not choose next, as the sorted columns of the step's log-probabilities
// (search/columns.h) ended by the column count (the end of the last run of allowed columns):
// <unk> (unless allowed) and the model's suppressed tokens, and in `too_short` also </s>, for
// hypotheses shorter than the minimum length. Fixed for a search.
struct ForbiddenIds {
  std::vector<std::int32_t> always;
  std::vector<std::int32_t> too_short;

  ForbiddenIds(const model::Model& model, const SearchOptions& options, const Columns& columns) {
    const dim_t vocab = model.config().target_vocab_size;
    always = model.config().suppressed_ids;
    if (!options.allow_unk && model.config().unk_id >= 0) always.push_back(model.config().unk_id);
    too_short = always;
    too_short.push_back(model.config().eos_id);
    for (std::vector<std::int32_t>* ids : {&always, &too_short}) {
      std::sort(ids->begin(), ids->end());
      ids->push_back(static_cast<std::int32_t>(vocab));
      *ids = columns.columns_of(*ids);
    }
  }
};

}  // namespace s2s::search
