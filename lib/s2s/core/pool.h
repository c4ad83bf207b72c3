// Pool<T>: objects kept for reuse by whoever runs jobs on several threads. lease() hands out a free
// one (a new one, default-constructed, when all are in use) and takes it back when the lease ends,
// so that as many exist as jobs ever ran at once and each keeps what it allocated from one job to
// the next. The workspaces of a model (model/workspace.h) and of a Translator's searches
// (search/workspace.h) are kept this way: their buffers are tens of MB at batch 32, which made
// per batch would be page-faulted in afresh every time. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace s2s {

template <typename T>
class Pool {
 public:
  class Lease {
   public:
    Lease(Pool& pool, std::unique_ptr<T> object) : pool_(&pool), object_(std::move(object)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (object_) pool_->give_back(std::move(object_));
    }
    T& operator*() const { return *object_; }
    T* operator->() const { return object_.get(); }

   private:
    Pool* pool_;
    std::unique_ptr<T> object_;
  };

  Lease lease() {
    std::unique_ptr<T> object;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        object = std::move(free_.back());
        free_.pop_back();
      }
    }
    return Lease(*this, object ? std::move(object) : std::make_unique<T>());
  }

 private:
  void give_back(std::unique_ptr<T> object) {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(object));
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> free_;
};

}  // namespace s2s
