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
// At most this much is kept at a time; what is freed beyond it goes back to the system. A load
// takes its kept blocks about as fast as it frees them (each packed weight takes the block of a
// raw one); the limit bounds what a scope could hold otherwise.
constexpr std::size_t kKeptLimit = std::size_t{64} << 20;

// The blocks kept while a ReuseFreedBuffers exists. Never destroyed (a buffer may be freed
// during static destruction).
struct Kept {
  std::size_t size, alignment;
  void* block;
};
struct Pool {
  std::mutex mutex;
  int scopes = 0;
  std::size_t kept_bytes = 0;
  std::multimap<std::size_t, Kept> kept;  // by size
};
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

// The smallest kept block of at least `size` bytes with `alignment`, or null. A block larger than
// asked gives its tail back to the system (bfloat16 and int8 weights pack into half or a quarter
// of their float32 read): the pages past `size` are dropped, and the whole block is freed with
// the buffer.
void* take_kept(std::size_t size, std::size_t alignment, std::size_t& block_size) {
  if (size < kReusable) return nullptr;
  void* block = nullptr;
  {
    Pool& p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    for (auto it = p.kept.lower_bound(size); it != p.kept.end(); ++it)
      if (it->second.alignment >= alignment) {
        block = it->second.block;
        block_size = it->second.size;
        p.kept_bytes -= block_size;
        p.kept.erase(it);
        break;
      }
  }
#if defined(__linux__) && defined(MADV_DONTNEED)
  if (block && block_size > size)  // size and block_size are multiples of the huge page
    madvise(static_cast<char*>(block) + size, block_size - size, MADV_DONTNEED);
#endif
  return block;
}

void release(void* block, std::size_t size, std::size_t alignment) {
  if (size >= kReusable) {
    Pool& p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    if (p.scopes > 0 && p.kept_bytes + size <= kKeptLimit) {
      p.kept.emplace(size, Kept{size, alignment, block});
      p.kept_bytes += size;
      return;
    }
  }
  std::free(block);
}

}  // namespace

std::shared_ptr<void> aligned_buffer(std::size_t bytes) {
  const bool huge = bytes >= kHugePage;
  const std::size_t alignment = huge ? kHugePage : kAlignment;
  const std::size_t rounded = bytes == 0 ? kAlignment : round_up(bytes, alignment);
  std::size_t block_size = rounded;  // a kept block may be larger
  void* p = take_kept(rounded, alignment, block_size);
  if (!p) {
    p = std::aligned_alloc(alignment, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: EINVAL where THP is not built in, and nothing changes.
    if (huge) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  }
  return std::shared_ptr<void>(p, [block_size, alignment](void* q) { release(q, block_size, alignment); });
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
    if (--p.scopes == 0) {
      left.swap(p.kept);
      p.kept_bytes = 0;
    }
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
