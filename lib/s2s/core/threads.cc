#include "s2s/core/threads.h"

#include <omp.h>

#include <cstdlib>

namespace s2s {

void set_num_threads(int n) {
  if (n > 0) {
    omp_set_num_threads(n);
  } else if (const char* env = std::getenv("OMP_NUM_THREADS"); !env || !*env) {
    omp_set_num_threads(omp_get_num_procs());
  }  // else OpenMP has already taken OMP_NUM_THREADS as its default
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace s2s
