#include "s2s/pipeline/worker_team.h"

#include <algorithm>
#include <utility>

#include "s2s/core/threads.h"

namespace s2s::pipeline {

WorkerTeam::WorkerTeam(int workers, int threads_per_worker)
    : threads_per_worker_(std::max(threads_per_worker, 1)) {
  for (int w = 0; w < std::max(workers, 1); ++w) threads_.emplace_back([this] { serve(); });
}

WorkerTeam::~WorkerTeam() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerTeam::serve() {
  set_num_threads(threads_per_worker_);  // OpenMP's setting is per thread
  std::uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    start_.wait(lock, [&] { return quit_ || round_ != seen; });
    if (quit_) return;
    seen = round_;
    const std::function<void()>* task = task_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*task)();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (--running_ == 0) finished_.notify_all();
  }
}

void WorkerTeam::run(const std::function<void()>& task) {
  const std::lock_guard<std::mutex> turn(turn_);
  std::unique_lock<std::mutex> lock(mutex_);
  task_ = &task;
  running_ = size();
  error_ = nullptr;
  ++round_;
  start_.notify_all();
  finished_.wait(lock, [&] { return running_ == 0; });
  task_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace s2s::pipeline
