// aligned_buffer and ReuseFreedBuffers: what a model's load reuses, and what it does not keep.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>

#include "s2s/core/allocator.h"

using namespace s2s;

namespace {

constexpr std::size_t kMB = std::size_t{1} << 20;

// A block's first bytes marked, to tell it again: a fresh mapping reads as zeros, and the
// same address alone proves nothing (mmap often hands an unmapped range back).
void mark(const std::shared_ptr<void>& buffer) { std::memset(buffer.get(), 0xab, 4096); }
bool marked(const std::shared_ptr<void>& buffer) {
  return static_cast<const unsigned char*>(buffer.get())[4095] == 0xab;
}

bool aligned_to(const std::shared_ptr<void>& buffer, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(buffer.get()) % alignment == 0;
}

}  // namespace

TEST_CASE("aligned_buffer aligns small buffers to 64 bytes and large ones to 2 MB", "[core]") {
  const auto small = aligned_buffer(1000);
  const auto large = aligned_buffer(3 * kMB);
  CHECK(aligned_to(small, 64));
  CHECK(aligned_to(large, 2 * kMB));
  std::memset(large.get(), 1, 3 * kMB);  // all of it usable (ASan checks the size)
}

TEST_CASE("while ReuseFreedBuffers exists a freed large buffer serves the next request", "[core]") {
  const ReuseFreedBuffers reuse;
  auto first = aligned_buffer(8 * kMB);
  void* const block = first.get();
  mark(first);
  std::memset(static_cast<unsigned char*>(first.get()) + 4 * kMB, 0xab, 4096);
  first.reset();
  SECTION("of the same size") {
    const auto next = aligned_buffer(8 * kMB);
    CHECK(next.get() == block);
    CHECK(marked(next));
    std::memset(next.get(), 2, 8 * kMB);
  }
  SECTION("of a smaller size, giving back the pages past it") {
    const auto next = aligned_buffer(4 * kMB);
    CHECK(next.get() == block);
    CHECK(marked(next));
    // The rest of the block was dropped: it reads as fresh zeros (and is not resident).
    CHECK(static_cast<const unsigned char*>(next.get())[4 * kMB] == 0);
  }
  SECTION("but not of a larger size") {
    const auto larger = aligned_buffer(10 * kMB);
    CHECK(larger.get() != block);
    const auto same = aligned_buffer(8 * kMB);  // still kept for this one
    CHECK(same.get() == block);
    CHECK(marked(same));
  }
}

TEST_CASE("small buffers are never kept, and nested scopes keep blocks until the last ends",
          "[core]") {
  std::shared_ptr<void> held;
  {
    const ReuseFreedBuffers outer;
    auto large = aligned_buffer(4 * kMB);
    void* const block = large.get();
    mark(large);
    {
      const ReuseFreedBuffers inner;
      auto small = aligned_buffer(64 * 1024);
      small.reset();  // freed at once: small blocks have no pool (nothing to see but ASan)
      large.reset();  // kept
    }
    held = aligned_buffer(4 * kMB);  // `inner` has ended; `outer` still keeps the block
    CHECK(held.get() == block);
    CHECK(marked(held));
  }
  // Freed after every scope ended: returned to the system (ASan/valgrind see no leak either way).
  held.reset();
}
