#include "s2s/core/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace s2s::log {
namespace {
std::atomic<Level> g_level{Level::warning};

void write_line(const char* prefix, const std::string& message) {
  std::fprintf(stderr, "s2s: %s%s\n", prefix, message.c_str());
}
}  // namespace

void set_level(Level level) { g_level = level; }
Level level() { return g_level; }

void warning(const std::string& message) {
  if (g_level >= Level::warning) write_line("warning: ", message);
}

void info(const std::string& message) {
  if (g_level >= Level::info) write_line("", message);
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace s2s::log
