// Linked into the targets whose readers memory-map their file (formats::MappedFile): read-only
// private file mappings become heap buffers of exactly the file's size.
//
// Why: a real mapping is rounded up to whole pages and the bytes past the end of the file read as
// zeros, so a reader that runs a few bytes past the end would go unnoticed; ASan reports any read
// past the end of a heap buffer. Every other mapping is passed to the C library unchanged.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

namespace {

using MmapFn = void* (*)(void*, size_t, int, int, int, off_t);
using MunmapFn = int (*)(void*, size_t);

template <typename Fn>
Fn next_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

std::mutex& lock() {
  static std::mutex m;
  return m;
}
std::unordered_set<void*>& buffers() {
  static std::unordered_set<void*> set;
  return set;
}

}  // namespace

extern "C" void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (addr != nullptr || prot != PROT_READ || flags != MAP_PRIVATE || fd < 0 || offset != 0 ||
      length == 0) {
    static const MmapFn real = next_symbol<MmapFn>("mmap");
    return real(addr, length, prot, flags, fd, offset);
  }
  auto* buffer = static_cast<char*>(std::malloc(length));
  if (!buffer) {
    errno = ENOMEM;
    return MAP_FAILED;
  }
  for (size_t done = 0; done < length;) {
    const ssize_t n = pread(fd, buffer + done, length - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the file shrank or cannot be read: fail as mmap would on a bad descriptor
      std::free(buffer);
      errno = n < 0 ? errno : EINVAL;
      return MAP_FAILED;
    }
    done += static_cast<size_t>(n);
  }
  std::lock_guard<std::mutex> guard(lock());
  buffers().insert(buffer);
  return buffer;
}

extern "C" int munmap(void* addr, size_t length) {
  {
    std::lock_guard<std::mutex> guard(lock());
    if (buffers().erase(addr) == 1) {
      std::free(addr);
      return 0;
    }
  }
  static const MunmapFn real = next_symbol<MunmapFn>("munmap");
  return real(addr, length);
}
