// Ctrl-C (SIGINT) and SIGTERM: the first one asks translate/score to stop after the batch in
// progress and write out every line finished so far, in order; a second one ends the process at
// once (the default action). Reads waiting for input are interrupted too (no SA_RESTART).
#pragma once

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace s2s::app {

// Installs the handlers; returns the flag they set.
const std::atomic<bool>& install_interrupt_handler();

// Thrown once the output is written, for main() to report and exit with 128 + the signal.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(std::size_t lines_written);
  int exit_code() const;
};

}  // namespace s2s::app
