#include "interrupt.h"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "s2s/core/log.h"

namespace s2s::app {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};  // the signal that asked for the stop, 0 if none did
std::atomic<bool> g_graceful{false};

// _exit, not exit: the main thread goes on running, and static destructors must not run under it.
// Nothing has been written then: an -o file is opened only once the model has loaded (so that a
// model that fails to load never truncates it), and a resumed run's output is as its journal left
// it. "the first 0 lines written" would read as an emptied file.
void end_now(int signal) {
  log::notice("interrupted before any output was written");
  ::_exit(128 + signal);
}

// The default action of `signal` (termination), taken by this thread alone.
void die_by(int signal) {
  std::signal(signal, SIG_DFL);
  sigset_t just;
  sigemptyset(&just);
  sigaddset(&just, signal);
  pthread_sigmask(SIG_UNBLOCK, &just, nullptr);
  std::raise(signal);
  ::_exit(128 + signal);  // not reached
}

void watch(sigset_t set) {
  while (true) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (!g_graceful.load()) end_now(signal);  // nothing written yet: nothing to save
    if (g_signal.load() != 0) die_by(signal);  // the second one
    g_signal.store(signal);
    g_stop.store(true);
  }
}

// SIGINT and SIGTERM, less those the process inherited as ignored.
sigset_t watched_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaddset(&set, signal);
  }
  return set;
}

// Blocked before main too: a signal that comes while the shared libraries initialise (a
// sanitizer build takes seconds there) then waits for the watcher instead of killing the process
// without a word. The executable's .preinit_array runs before every library's constructor.
void block_early(int, char**, char**) {
  const sigset_t set = watched_signals();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}
__attribute__((section(".preinit_array"), used)) void (*const block_signals_early)(int, char**,
                                                                                 char**) =
    block_early;

}  // namespace

void start_signal_watcher() {
  const sigset_t set = watched_signals();
  if (sigisemptyset(&set)) return;
  // Blocked since .preinit_array in the s2s executable; this is for programs whose preinit did
  // not run it (a test binary that calls the watcher), and costs nothing otherwise.
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(watch, set).detach();
}

std::atomic<bool>& stop_gracefully() {
  g_graceful.store(true);
  return g_stop;
}

void request_stop() { g_stop.store(true); }

bool stopped_by_signal() { return g_signal.load() != 0; }

std::string interrupted_message(std::size_t lines_written, const char* rest) {
  return "interrupted: the first " + std::to_string(lines_written) + " line" +
         (lines_written == 1 ? "" : "s") + " written, the rest not " + rest;
}

Interrupted::Interrupted(std::size_t lines_written, const char* rest)
    : std::runtime_error(interrupted_message(lines_written, rest)) {}

int Interrupted::exit_code() const {
  const int signal = g_signal.load();
  return 128 + (signal != 0 ? signal : SIGINT);
}

}  // namespace s2s::app
