// SearchWorkspace: the buffers a search reuses from one batch to the next. Its owner (one per
// worker: the Translator keeps a pool) passes it down to every search it runs; two searches never
// use one workspace at once. Nothing in it carries over between searches but allocated memory:
// the decoder state's key/value caches and the [rows, vocabulary] log-probabilities are tens of
// megabytes, which allocated per batch would be page-faulted in afresh every time.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

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
  std::vector<float> row_max;   // each row's largest logit, from the decoder step
  std::vector<std::int32_t> ids;  // a hypothesis' tokens, gathered from the search history
  std::vector<RowScratch> threads;  // one per OpenMP thread of the row loops (row_scratch)
};

// `workspace.threads` sized for the current OpenMP team, before a parallel row loop; inside it,
// each thread takes threads[omp_get_thread_num()].
void prepare_row_scratch(SearchWorkspace& workspace);
RowScratch& row_scratch(SearchWorkspace& workspace);

// Workspaces kept for reuse by the searches of one owner (a Translator): a worker takes one for a
// job and gives it back after, so that there are as many as searches ever ran at once, each
// keeping its buffers from one job to the next. Thread-safe.
class WorkspacePool {
 public:
  // A workspace taken from the pool, given back when the lease ends.
  class Lease {
   public:
    Lease(WorkspacePool& pool, std::unique_ptr<SearchWorkspace> workspace)
        : pool_(pool), workspace_(std::move(workspace)) {}
    ~Lease() { pool_.give_back(std::move(workspace_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    SearchWorkspace& operator*() const { return *workspace_; }

   private:
    WorkspacePool& pool_;
    std::unique_ptr<SearchWorkspace> workspace_;
  };

  // A free workspace, or a new one when all are taken.
  Lease take();

 private:
  void give_back(std::unique_ptr<SearchWorkspace> workspace);

  std::mutex mutex_;
  std::vector<std::unique_ptr<SearchWorkspace>> free_;
};

}  // namespace s2s::search
