#include "serve_queue.h"

#include <algorithm>

namespace s2s::app {

BatchQueue::BatchQueue(QueueLimits limits, int workers) : limits_(limits) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { work(); });
}

BatchQueue::~BatchQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

bool BatchQueue::submit(const std::shared_ptr<Ticket>& ticket) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (items_.size() + ticket->lines.size() > limits_.max_queued) return false;
    ticket->results.assign(ticket->lines.size(), {});
    ticket->pending = ticket->lines.size();
    for (std::size_t i = 0; i < ticket->lines.size(); ++i) items_.push_back({ticket, i, now});
  }
  work_ready_.notify_all();
  return true;
}

bool BatchQueue::wait(const Ticket& ticket, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  return done_.wait_until(lock, deadline, [&] { return ticket.pending == 0; });
}

std::size_t BatchQueue::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return items_.size();
}

std::size_t BatchQueue::cancel(Ticket& ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  ticket.cancelled = true;
  const auto before = items_.size();
  items_.erase(std::remove_if(items_.begin(), items_.end(),
                              [&](const Item& item) { return item.ticket.get() == &ticket; }),
               items_.end());
  const std::size_t dropped = before - items_.size();
  ticket.pending -= dropped;
  cancelled_ += dropped;
  for (const Running& running : running_)
    if (std::all_of(running.batch->begin(), running.batch->end(),
                    [](const Item& item) { return item.ticket->cancelled; }))
      running.stop->store(true);
  return dropped;
}

std::size_t BatchQueue::cancelled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cancelled_;
}

std::pair<std::size_t, std::size_t> BatchQueue::batches_and_texts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {batches_, texts_};
}

// The oldest line's group, in arrival order, up to max_batch lines; waits until the oldest line
// has waited batch_wait or the batch is full (empty when closing with nothing queued).
std::vector<BatchQueue::Item> BatchQueue::take_batch(std::unique_lock<std::mutex>& lock) {
  work_ready_.wait(lock, [&] { return closing_ || !items_.empty(); });
  if (items_.empty()) return {};
  const auto same_group = [&](const Item& item) {
    return item.ticket->engine == items_.front().ticket->engine &&
           item.ticket->group == items_.front().ticket->group;
  };
  const auto full = [&] {
    return items_.empty() || closing_ ||
           static_cast<std::size_t>(std::count_if(items_.begin(), items_.end(), same_group)) >=
               limits_.max_batch;
  };
  while (!full()) {
    const auto due = items_.front().arrived + limits_.batch_wait;
    if (work_ready_.wait_until(lock, due, full) || std::chrono::steady_clock::now() >= due) break;
  }
  std::vector<Item> batch;
  if (items_.empty()) return batch;
  const Ticket* first = items_.front().ticket.get();
  const auto member = [&](const Item& item) {
    return item.ticket->engine == first->engine && item.ticket->group == first->group;
  };
  for (auto it = items_.begin(); it != items_.end() && batch.size() < limits_.max_batch;) {
    if (member(*it)) {
      batch.push_back(std::move(*it));
      it = items_.erase(it);
    } else {
      ++it;
    }
  }
  return batch;
}

void BatchQueue::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    std::vector<Item> batch = take_batch(lock);
    if (batch.empty()) {
      if (closing_ && items_.empty()) return;
      continue;
    }
    std::atomic<bool> stop{false};
    running_.push_back({&batch, &stop});
    lock.unlock();
    run_batch(batch, stop);
    lock.lock();
    running_.erase(std::find_if(running_.begin(), running_.end(),
                                [&](const Running& r) { return r.batch == &batch; }));
    if (stop) cancelled_ += batch.size();
    for (const Item& item : batch) --item.ticket->pending;
    ++batches_;
    texts_ += batch.size();
    done_.notify_all();
  }
}

// One engine call for lines of several requests (a line's translation does not depend on the
// other lines of its batch); an error goes to every request that had a line in it.
void BatchQueue::run_batch(std::vector<Item>& batch, const std::atomic<bool>& stop) {
  std::vector<std::string> lines;
  std::vector<std::string> prefixes;
  bool any_prefix = false;
  for (const Item& item : batch) {
    lines.push_back(item.ticket->lines[item.line]);
    const auto& given = item.ticket->options.target_prefix;
    prefixes.push_back(given.empty() ? std::string() : given[item.line]);
    any_prefix = any_prefix || !given.empty();
  }
  TranslationOptions options = batch.front().ticket->options;
  options.target_prefix = any_prefix ? prefixes : std::vector<std::string>{};
  options.cancel = &stop;
  try {
    std::vector<TranslationResult> results = batch.front().ticket->engine->translate_batch(lines, options);
    for (std::size_t i = 0; i < batch.size(); ++i)
      batch[i].ticket->results[batch[i].line] = std::move(results[i]);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Item& item : batch)
      if (!item.ticket->error) item.ticket->error = std::current_exception();
  }
}

}  // namespace s2s::app
