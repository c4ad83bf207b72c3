// Error kinds of s2s. The library throws; app/main.cc catches once, prints one line and maps the
// kind to an exit code (usage 2, everything else 1).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace s2s {

// Messages are always one line (docs/user-guide.md, "Guarantees"): line breaks in text quoted
// from a file (an npy header, a YAML parser's message, a tensor name) are written as \n and \r.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(one_line(message)) {}

 private:
  static std::string one_line(const std::string& message) {
    std::string line;
    for (const char c : message) line += c == '\n' ? "\\n" : c == '\r' ? "\\r" : std::string(1, c);
    return line;
  }
};

// The caller asked for something that makes no sense (bad option value, unknown flag).
class UsageError : public Error {
 public:
  using Error::Error;
};

// The input data cannot be processed (bad TSV line, unreadable input file).
class InputError : public Error {
 public:
  using Error::Error;
};

// A model folder or file is missing, broken or unsupported. The message names the file.
class ModelError : public Error {
 public:
  using Error::Error;
};

// A broken internal contract: a bug in s2s, never the user's fault.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
}  // namespace detail

}  // namespace s2s

// S2S_CHECK(cond, parts...): throws InternalError("file:line: parts...") when cond is false.
// The parts should say what was expected and what was found.
#define S2S_CHECK(cond, ...)                                                              \
  do {                                                                                    \
    if (!(cond))                                                                          \
      throw ::s2s::InternalError(::s2s::detail::concat(__FILE__, ":", __LINE__, ": ",     \
                                                       "check failed (" #cond "): ",      \
                                                       __VA_ARGS__));                     \
  } while (false)
