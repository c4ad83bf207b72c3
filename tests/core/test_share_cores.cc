// share_cores (core/threads.h): with every core taken by other processes, the default thread
// count drops to one within the first 50 ms; a count the user chose is never changed.
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "s2s/core/threads.h"

namespace s2s {

TEST_CASE("share_cores: other processes on every core leave one thread", "[core]") {
  const int cores = omp_get_num_procs();
  if (cores < 2) return;  // nothing to share
  const int before = num_threads();
  const char* env = std::getenv("OMP_NUM_THREADS");
  const std::string saved = env ? env : "";
  unsetenv("OMP_NUM_THREADS");  // CTest sets it to 1; the shared mode is the default without it

  std::vector<pid_t> busy;
  for (int i = 0; i < cores; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (volatile unsigned long n = 0;; n = n + 1) {
      }
    }
    busy.push_back(pid);
  }
  set_num_threads(0);  // takes the first sample
  CHECK(num_threads() == cores);
  share_cores();  // too soon to compare: unchanged
  CHECK(num_threads() == cores);
  // The first decision comes 50 ms after set_num_threads(0), in time for the model's load.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  share_cores();
  const int shared = num_threads();
  for (pid_t pid : busy) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  CHECK(shared == 1);

  set_num_threads(2);  // the user's count: kept whatever the load
  share_cores();
  CHECK(num_threads() == 2);

  if (!saved.empty()) setenv("OMP_NUM_THREADS", saved.c_str(), 1);
  set_num_threads(before);
}

}  // namespace s2s
