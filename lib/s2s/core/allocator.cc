#include "s2s/core/allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems
#include <map>
#include <mutex>
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace s2s {

namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Only huge-page blocks are kept: smaller ones (q, k and v of a base model, concatenated as they
// are packed) found few takers and raised the load's peak memory.
constexpr std::size_t kReusable = kHugePage;

// The blocks kept while a ReuseFreedBuffers exists. Never destroyed (a buffer may be freed
// during static destruction).
struct Kept {
  std::size_t size, alignment;
  void* block;
};
struct Pool {
  std::mutex mutex;
  int scopes = 0;
  std::multimap<std::size_t, Kept> kept;  // by size
};
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

// A kept block of at least `size` bytes (and at most a quarter more) with `alignment`, or null.
void* take_kept(std::size_t size, std::size_t alignment, std::size_t& block_size) {
  if (size < kReusable) return nullptr;
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  for (auto it = p.kept.lower_bound(size); it != p.kept.end() && it->first <= size + size / 4; ++it)
    if (it->second.alignment >= alignment) {
      void* block = it->second.block;
      block_size = it->second.size;
      p.kept.erase(it);
      return block;
    }
  return nullptr;
}

void release(void* block, std::size_t size, std::size_t alignment) {
  if (size >= kReusable) {
    Pool& p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    if (p.scopes > 0) {
      p.kept.emplace(size, Kept{size, alignment, block});
      return;
    }
  }
  std::free(block);
}

}  // namespace

std::shared_ptr<void> aligned_buffer(std::size_t bytes) {
  const bool huge = bytes >= kHugePage;
  const std::size_t alignment = huge ? kHugePage : kAlignment;
  std::size_t rounded = bytes == 0 ? kAlignment : round_up(bytes, alignment);
  void* p = take_kept(rounded, alignment, rounded);
  if (!p) {
    p = std::aligned_alloc(alignment, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: EINVAL where THP is not built in, and nothing changes.
    if (huge) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  }
  return std::shared_ptr<void>(p, [rounded, alignment](void* q) { release(q, rounded, alignment); });
}

ReuseFreedBuffers::ReuseFreedBuffers() {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  ++p.scopes;
}

ReuseFreedBuffers::~ReuseFreedBuffers() {
  std::multimap<std::size_t, Kept> left;
  {
    Pool& p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    if (--p.scopes == 0) left.swap(p.kept);
  }
  for (const auto& entry : left) std::free(entry.second.block);
}

void keep_large_allocations_mapped() {
#if defined(__GLIBC__)
  // Setting the threshold explicitly also turns off glibc's dynamic adjustment of it.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

}  // namespace s2s
