#include "s2s/core/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "s2s/core/error.h"

namespace s2s::log {
namespace {
std::atomic<Level> g_level{Level::warning};

// Messages come from worker threads and from the signal watcher: one line at a time.
std::mutex g_mutex;
int g_file = -1;  // the --log file, or -1

// Appends one whole line with one write (O_APPEND: runs sharing a log do not interleave lines).
// A log that fails mid-run (disk full) is reported once on stderr and then left alone, so that
// the run itself goes on.
void append_to_file(const std::string& line) {
  if (g_file < 0) return;
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(g_file, line.data() + done, line.size() - done);
    if (n >= 0) {
      done += static_cast<std::size_t>(n);
    } else if (errno != EINTR) {
      std::fprintf(stderr, "s2s: warning: cannot write to the log file: %s; no longer logging\n",
                   std::strerror(errno));
      ::close(g_file);
      g_file = -1;
      return;
    }
  }
}

void write_line(const char* prefix, const std::string& message, bool to_stderr) {
  const std::string line = std::string("s2s: ") + prefix + message + "\n";
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (to_stderr) std::fputs(line.c_str(), stderr);
  append_to_file(line);
}
}  // namespace

void set_level(Level level) { g_level = level; }
Level level() { return g_level; }

void open_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) {
    const char* why = errno == EISDIR ? "is a directory" : std::strerror(errno);
    throw UsageError(path + ": cannot open log file: " + why);
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (g_file >= 0) ::close(g_file);
  g_file = fd;
}

void warning(const std::string& message) {
  write_line("warning: ", message, g_level >= Level::warning);
}

void info(const std::string& message) { write_line("", message, g_level >= Level::info); }

void error(const std::string& message) { write_line("error: ", message, true); }

void notice(const std::string& message) { write_line("", message, true); }

void progress(const std::string& message, bool final, bool shown) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (shown) {
    std::fprintf(stderr, "\rs2s: %s%s", message.c_str(), final ? "\n" : "");
    std::fflush(stderr);
  }
  if (final) append_to_file("s2s: " + message + "\n");
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace s2s::log
