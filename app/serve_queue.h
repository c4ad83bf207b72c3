// The queue between `s2s serve`'s HTTP threads and its engine workers: every request's lines go
// in as one ticket; a worker takes the oldest line's group (same engine, same options) up to a
// batch of lines, after waiting a short while for more to arrive, so that concurrent one-line
// requests are translated in one batch. Oldest first, bounded batches: no request waits behind a
// huge one for more than one batch per worker.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "s2s/s2s.h"

namespace s2s::app {

// One request's lines, translated with the same options; filled in by the workers.
struct Ticket {
  const Engine* engine = nullptr;
  TranslationOptions options;  // target_prefix: one per line, or empty
  std::string group;           // requests of the same group may share a batch
  std::vector<std::string> lines;
  std::vector<TranslationResult> results;  // one per line once done
  std::exception_ptr error;                // the first batch error of its lines
  std::size_t pending = 0;                 // lines not translated yet
  bool cancelled = false;                  // its client has gone (guarded by the queue's mutex)
};

struct QueueLimits {
  std::chrono::milliseconds batch_wait{5};  // how long a worker waits for a batch to fill
  std::size_t max_batch = 32;               // most lines per engine call
  std::size_t max_queued = 1024;            // most lines waiting; more is refused
};

class BatchQueue {
 public:
  BatchQueue(QueueLimits limits, int workers);
  ~BatchQueue();  // finishes what is queued, then joins the workers

  // Queues every line of `ticket`; false (nothing queued) when they do not fit.
  bool submit(const std::shared_ptr<Ticket>& ticket);
  // Until every line of `ticket` is done, or `deadline`; false on time-out.
  bool wait(const Ticket& ticket, std::chrono::steady_clock::time_point deadline);
  std::size_t queued() const;
  // The client of `ticket` has gone: its queued lines are dropped, and a batch being translated
  // is stopped when every line in it is a cancelled request's. Returns the lines dropped.
  std::size_t cancel(Ticket& ticket);
  std::size_t cancelled() const;
  // Engine calls made and the texts they held (texts / batches: how well requests are merged).
  std::pair<std::size_t, std::size_t> batches_and_texts() const;

 private:
  struct Item {
    std::shared_ptr<Ticket> ticket;
    std::size_t line;
    std::chrono::steady_clock::time_point arrived;
  };
  void work();
  std::vector<Item> take_batch(std::unique_lock<std::mutex>& lock);
  void run_batch(std::vector<Item>& batch, const std::atomic<bool>& stop);
  struct Running {
    const std::vector<Item>* batch;
    std::atomic<bool>* stop;
  };

  QueueLimits limits_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable done_;
  std::deque<Item> items_;
  bool closing_ = false;
  std::size_t batches_ = 0;
  std::size_t texts_ = 0;
  std::size_t cancelled_ = 0;      // lines dropped or stopped because their client had gone
  std::vector<Running> running_;  // the batches being translated
  std::vector<std::thread> workers_;
};

}  // namespace s2s::app
