#include "io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "s2s/core/error.h"
#include "s2s/core/log.h"

namespace s2s::app {

File::File(const std::string& path, bool for_output) {
  if (path == "-") {
    fd_ = for_output ? STDOUT_FILENO : STDIN_FILENO;
    return;
  }
  fd_ = for_output ? ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)
                   : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const char* why = errno == EISDIR ? "is a directory" : std::strerror(errno);
    throw InputError(path + ": cannot open " + (for_output ? "output" : "input") + " file: " + why);
  }
  owned_ = true;
  // open() reads a directory without complaint; read() would fail later with a bare EISDIR.
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd_);
    throw InputError(path + ": cannot open input file: is a directory");
  }
}

File::~File() {
  if (owned_) ::close(fd_);
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n >= 0) {
      done += static_cast<std::size_t>(n);
    } else if (errno == EPIPE) {
      return false;
    } else if (errno != EINTR) {
      throw Error(std::string("cannot write output: ") + std::strerror(errno));
    }
  }
  return true;
}

void Progress::update(std::size_t lines, bool final) {
  const auto now = Clock::now();
  if (!final && (!shown_ || now - last_ < std::chrono::milliseconds(250))) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  char text[96];
  std::snprintf(text, sizeof text, "%zu lines, %.1f lines/s", lines,
                seconds > 0 ? static_cast<double>(lines) / seconds : 0.0);
  log::progress(text, final, shown_);
}

}  // namespace s2s::app
