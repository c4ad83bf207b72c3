#include "s2s/search/workspace.h"

#include <omp.h>

namespace s2s::search {

void prepare_row_scratch(SearchWorkspace& workspace) {
  const auto threads = static_cast<std::size_t>(omp_get_max_threads());
  if (workspace.threads.size() < threads) workspace.threads.resize(threads);
}

RowScratch& row_scratch(SearchWorkspace& workspace) {
  return workspace.threads[static_cast<std::size_t>(omp_get_thread_num())];
}

WorkspacePool::Lease WorkspacePool::take() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (free_.empty()) return Lease(*this, std::make_unique<SearchWorkspace>());
  std::unique_ptr<SearchWorkspace> workspace = std::move(free_.back());
  free_.pop_back();
  return Lease(*this, std::move(workspace));
}

void WorkspacePool::give_back(std::unique_ptr<SearchWorkspace> workspace) {
  const std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(workspace));
}

}  // namespace s2s::search
