#include "interrupt.h"

#include <csignal>

namespace s2s::app {
namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_interrupt(int signal) {
  if (g_stop.load()) {  // the second one: do what it would have done without us
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_signal = signal;
  g_stop.store(true);
}

}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a read waiting for input returns EINTR
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return g_stop;
}

Interrupted::Interrupted(std::size_t lines_written)
    : std::runtime_error("interrupted: the first " + std::to_string(lines_written) + " line" +
                         (lines_written == 1 ? "" : "s") + " written, the rest not translated") {}

int Interrupted::exit_code() const { return 128 + (g_signal != 0 ? g_signal : SIGINT); }

}  // namespace s2s::app
