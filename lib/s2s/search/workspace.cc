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

}  // namespace s2s::search
