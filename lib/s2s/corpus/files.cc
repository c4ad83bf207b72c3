#include "s2s/corpus/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "s2s/core/error.h"

namespace s2s::corpus {
namespace {

// The file `path` names, through links, or for "-" the one standard stream `std_fd` is open on;
// nullopt when there is none yet (an output about to be created).
std::optional<struct stat> file_behind(const std::string& path, int std_fd) {
  struct stat st {};
  const int rc = path == "-" ? ::fstat(std_fd, &st) : ::stat(path.c_str(), &st);
  if (rc != 0) return std::nullopt;
  return st;
}

std::string described(const std::string& path, const std::string& flag) {
  return path == "-" ? "standard " + flag : flag + " " + path;
}

}  // namespace

void refuse_output_over_input(const std::string& output, const std::vector<NamedInput>& inputs) {
  const std::optional<struct stat> out = file_behind(output, STDOUT_FILENO);
  // Only a regular file loses its text: /dev/null or a terminal can be both ends of a run.
  if (!out || !S_ISREG(out->st_mode)) return;
  for (const auto& [input, flag] : inputs) {
    if (input.empty()) continue;
    const std::optional<struct stat> in = file_behind(input, STDIN_FILENO);
    if (!in || in->st_dev != out->st_dev || in->st_ino != out->st_ino) continue;
    throw UsageError(described(output, output == "-" ? "output" : "-o") + " is the same file as " +
                     described(input, input == "-" ? "input" : flag) +
                     ": writing it would destroy the text before it is read; choose another "
                     "output file");
  }
}

void lock_output(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;  // l_start 0, l_len 0: the whole file, however long it grows
  if (::fcntl(fd, F_SETLK, &lock) == 0) return;
  // Only a lock held by another process stops the run; a file system without locks does not.
  if (errno != EACCES && errno != EAGAIN) return;
  struct flock holder = lock;
  const bool known = ::fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK &&
                     holder.l_pid > 0;
  throw Error(path + ": another process" +
              (known ? " (pid " + std::to_string(holder.l_pid) + ")" : std::string()) +
              " is writing this file; wait for it to end or choose another output (two --shard "
              "runs need -o FOLDER or a name with {shard})");
}

File::File(const std::string& path, bool for_output) {
  if (path == "-") {
    fd_ = for_output ? STDOUT_FILENO : STDIN_FILENO;
    return;
  }
  // An output is truncated only once it is locked: a refused second writer leaves it as it was.
  fd_ = for_output ? ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666)
                   : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const char* why = errno == EISDIR ? "is a directory" : std::strerror(errno);
    throw InputError(path + ": cannot open " + (for_output ? "output" : "input") + " file: " + why);
  }
  owned_ = true;
  if (for_output) {
    try {
      lock_output(fd_, path);
    } catch (...) {
      ::close(fd_);
      throw;
    }
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && ::ftruncate(fd_, 0) != 0) {
      const std::string why = std::strerror(errno);
      ::close(fd_);
      throw InputError(path + ": cannot truncate output file: " + why);
    }
    return;
  }
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

}  // namespace s2s::corpus
