#include "s2s/pipeline/read_at.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "s2s/core/error.h"

namespace s2s::pipeline {

std::size_t read_at(int fd, char* buffer, std::size_t size, std::uint64_t offset,
                    const std::string& name) {
  while (true) {
    const ssize_t n = ::pread(fd, buffer, size, static_cast<off_t>(offset));
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) throw InputError(name + ": cannot read: " + std::strerror(errno));
  }
}

}  // namespace s2s::pipeline
