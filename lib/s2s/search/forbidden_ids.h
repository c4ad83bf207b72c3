// The ids a search may not choose next, shared by beam search and sampling so that both exclude
// the same tokens.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/options.h"

namespace s2s::search {

// The ids a row may not choose next, sorted and ended by the vocabulary size (the end of the
// last run of allowed ids): <unk> (unless allowed) and the model's suppressed tokens, and in
// `too_short` also </s>, for hypotheses shorter than the minimum length. Fixed for a search.
struct ForbiddenIds {
  std::vector<std::int32_t> always;
  std::vector<std::int32_t> too_short;

  ForbiddenIds(const model::Model& model, const SearchOptions& options, dim_t vocab) {
    always = model.config().suppressed_ids;
    if (!options.allow_unk && model.config().unk_id >= 0) always.push_back(model.config().unk_id);
    too_short = always;
    too_short.push_back(model.config().eos_id);
    for (std::vector<std::int32_t>* ids : {&always, &too_short}) {
      std::sort(ids->begin(), ids->end());
      ids->push_back(static_cast<std::int32_t>(vocab));
    }
  }
};

}  // namespace s2s::search
