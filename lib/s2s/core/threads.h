// The one place that sets how many threads the compute kernels use (oneDNN runs on OpenMP here).
#pragma once

namespace s2s {

// n > 0: exactly n threads. n <= 0: OMP_NUM_THREADS when it is set, else all cores.
// Call before translating; it applies to the whole process.
void set_num_threads(int n);
int num_threads();

}  // namespace s2s
