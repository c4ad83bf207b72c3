// SearchWorkspace: the buffers a search reuses from one batch to the next. Its owner (one per
// worker: the Translator keeps a pool) passes it down to every search it runs; two searches never
// use one workspace at once. Nothing in it carries over between searches but allocated memory:
// the decoder state's key/value caches and the [rows, vocabulary] log-probabilities are tens of
// megabytes, which allocated per batch would be page-faulted in afresh every time.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "s2s/core/pool.h"
#include "s2s/core/tensor.h"
#include "s2s/model/decoder.h"

namespace s2s::search {

// Scratch of one OpenMP thread inside a search's row loops.
struct RowScratch {
  std::vector<std::pair<float, std::int32_t>> scored;  // wide beams: a row's (score, id) pairs
  std::vector<std::int32_t> ids;                       // sampling: the ids that may be drawn
  std::vector<double> weights;                         // sampling: their cumulative weights
};

struct SearchWorkspace {
  model::DecoderState state;
  Tensor log_probs;    // the step's logits, then (in place) their log-softmax
  Tensor top_values;   // beam search: each row's best extensions
  Tensor top_indices;
  std::vector<std::int32_t> ids;  // a hypothesis' tokens, gathered from the search history
  std::vector<RowScratch> threads;  // one per OpenMP thread of the row loops (row_scratch)
};

// `workspace.threads` sized for the current OpenMP team, before a parallel row loop; inside it,
// each thread takes threads[omp_get_thread_num()].
void prepare_row_scratch(SearchWorkspace& workspace);
RowScratch& row_scratch(SearchWorkspace& workspace);

// The workspaces of one owner's searches (a Translator's): a worker takes one for a job and gives
// it back after (core/pool.h).
using WorkspacePool = Pool<SearchWorkspace>;

}  // namespace s2s::search
