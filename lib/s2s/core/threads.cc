#include "s2s/core/threads.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>

namespace s2s {
namespace {

// The calling thread's mode: true after set_num_threads with a count above one, or 0 without
// OMP_NUM_THREADS; t_cores is the most threads it may then use. These are thread_local because
// OpenMP's thread count they steer is itself a per-thread setting (omp_set_num_threads): each
// worker thread has its own count, and so its own samples.
thread_local bool t_shared = false;
thread_local int t_cores = 1;

// One look at the machine: when, its busy CPU seconds, this process's CPU seconds.
struct Sample {
  std::chrono::steady_clock::time_point when;
  double busy = 0.0;
  double own = 0.0;
};
thread_local Sample t_last;
thread_local bool t_have_last = false;
thread_local bool t_decided = false;  // a count has been set from two samples

// The first decision comes soon after set_num_threads(0), while the model loads (beside two busy
// loops the base model's load took 0.94-1.68 s on two threads, 0.72 s on one); later ones at most
// twice a second.
// 10 ms /proc/stat ticks on every core make even 50 ms enough to tell a busy core from an idle one.
constexpr auto kFirstInterval = std::chrono::milliseconds(50);
constexpr auto kInterval = std::chrono::milliseconds(500);

// Busy seconds of all cores since boot from /proc/stat's first line (user nice system idle iowait
// irq softirq steal ...; steal counts as busy: another guest had our core). False if unreadable.
bool machine_busy_seconds(double& seconds) {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                     steal = 0;
  if (!(stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
      cpu != "cpu")
    return false;
  static const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  seconds = static_cast<double>(user + nice + system + irq + softirq + steal) * tick;
  return true;
}

double own_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

void set_num_threads(int n) {
  t_shared = false;
  if (n <= 0) {
    if (const char* env = std::getenv("OMP_NUM_THREADS"); env && *env)
      return;  // OpenMP has already taken OMP_NUM_THREADS as its default
    n = omp_get_num_procs();
  }
  t_cores = n;
  t_shared = n > 1;
  t_have_last = false;
  t_decided = false;
  omp_set_num_threads(n);
  share_cores();  // the first sample, to compare with at the first call after kFirstInterval
}

int num_threads() { return omp_get_max_threads(); }

void share_cores() {
  if (!t_shared) return;
  const auto now = std::chrono::steady_clock::now();
  if (t_have_last && now - t_last.when < (t_decided ? kInterval : kFirstInterval)) return;
  Sample sample{now, 0.0, own_cpu_seconds()};
  if (!machine_busy_seconds(sample.busy)) {
    t_shared = false;  // no /proc: keep every core
    return;
  }
  if (t_have_last) {
    const double wall = std::chrono::duration<double>(now - t_last.when).count();
    const double others = std::max(0.0, (sample.busy - t_last.busy) - (sample.own - t_last.own)) / wall;
    const double cores = omp_get_num_procs();
    const int free_cores = static_cast<int>(std::lround(cores - others));
    omp_set_num_threads(std::clamp(free_cores, 1, t_cores));
    t_decided = true;
  }
  t_last = sample;
  t_have_last = true;
}

ThreadCountScope::ThreadCountScope(int n) {
  if (n <= 0 || (n == omp_get_max_threads() && !t_shared)) return;
  saved_ = omp_get_max_threads();
  saved_shared_ = std::exchange(t_shared, false);
  omp_set_num_threads(n);
}

ThreadCountScope::~ThreadCountScope() {
  if (saved_ == 0) return;
  omp_set_num_threads(saved_);
  t_shared = saved_shared_;
}

}  // namespace s2s
