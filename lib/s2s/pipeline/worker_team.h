// The threads that Translator::translate_each's workers (`--workers N`) run on, kept from one call
// to the next, so that the threads (and the OpenMP pools under them) are not made again for every
// window of the input (docs/performance.md, "Windows and workers"). Their buffers are the
// workspaces the Translator leases to each job (model/workspace.h, search/workspace.h).
//
// Usage (the CLI keeps one team for the whole input):
//   pipeline::WorkerTeam team(workers, threads_per_worker);
//   team.run([&] { ... });  // on every thread of the team at once; returns when all are done
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace s2s::pipeline {

class WorkerTeam {
 public:
  // `workers` threads (at least 1), each running its compute kernels on `threads_per_worker`
  // OpenMP threads.
  WorkerTeam(int workers, int threads_per_worker);
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }

  // Runs `task` on every thread of the team at once and returns when all have finished it; the
  // first exception a thread's task threw is rethrown here. Calls from several threads take
  // their turns.
  void run(const std::function<void()>& task);

 private:
  void serve();

  int threads_per_worker_;
  std::mutex turn_;  // one run at a time
  std::mutex mutex_;
  std::condition_variable start_, finished_;
  const std::function<void()>* task_ = nullptr;
  std::uint64_t round_ = 0;  // counts runs: a thread starts a task when it sees a new round
  int running_ = 0;
  bool quit_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace s2s::pipeline
