// The one place that sets how many threads the compute kernels use (oneDNN runs on OpenMP here),
// and ThreadCountScope, through which a call runs on a chosen count (an op on a single thread).
#pragma once

namespace s2s {

// n > 0: at most n threads; n <= 0: exactly OMP_NUM_THREADS when it is set, else at most all
// cores. Up to n, as many as the machine's other work leaves cores free (share_cores). OpenMP
// keeps the count per thread: call it on the thread that translates (and before starting threads
// that should inherit it).
void set_num_threads(int n);
int num_threads();

// On a thread whose count came from set_num_threads (a count above one, or 0 without
// OMP_NUM_THREADS): first 50 ms after set_num_threads (weight packing calls it, so that the load
// shares too), then at most twice a second, measures how much CPU time other processes took since
// the last look (the machine's busy time in /proc/stat less this process's own) and sets the
// thread's OpenMP count to the cores they left free, at least one and at most the count asked
// for. Elsewhere (one thread, OMP_NUM_THREADS, ThreadCountScope) it does nothing.
//
// Why: libgomp's threads wait for each other at every barrier, so a team of two on two cores
// beside one busy process runs at the pace of whichever member the scheduler leaves out, and
// spins while it waits. Measured (bench/contention.sh, shipped model, 120 lines, one busy loop on
// 2 cores): 2 threads kept 0.26 of their quiet speed, 1 thread 0.58 of the 2-thread quiet speed.
// An explicit count is no exception: beside a 2-thread PyTorch training on 2 cores, one beam-4
// line of a Transformer-base model took 36 s instead of 0.6 s with --threads 2, the team's
// threads spinning at libgomp's barriers for the member the scheduler had left out.
// The search calls it before every decoder step, PackedMatmul's constructor before packing each
// weight; results do not depend on the thread count (PackedMatmul runs the products whose sums
// oneDNN would split between threads on one thread).
void share_cores();

// While alive, the calling thread's OpenMP count is n when n > 0 (that thread's setting only: the
// --workers threads keep theirs), and share_cores leaves it alone; the count and mode before are
// restored after. n <= 0 changes nothing. For an Engine called from a thread of the caller's
// (libgomp gives a thread it has not seen the process's initial count, not the count set on the
// thread that made the Engine), for an op too small for a parallel region
// (ops/primitive_cache_dnnl.cc) and for products whose sums oneDNN would split between threads,
// so that their last bits depend on the count (ops/packed_matmul_dnnl.cc).
class ThreadCountScope {
 public:
  explicit ThreadCountScope(int n);
  ~ThreadCountScope();
  ThreadCountScope(const ThreadCountScope&) = delete;
  ThreadCountScope& operator=(const ThreadCountScope&) = delete;

 private:
  int saved_ = 0;  // the count to restore; 0: nothing was changed
  bool saved_shared_ = false;
};

}  // namespace s2s
