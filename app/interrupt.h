// Ctrl-C (SIGINT) and SIGTERM, received by one dedicated thread and never by a compute thread.
//
// Why a thread: the kernel delivers a process-directed signal to any thread that does not block
// it and writes the signal frame (several KB with the AVX-512 state) below that thread's stack
// pointer. oneDNN 2.6's generated f32 GEMM kernels point RSP into a heap workspace while they
// run, so a signal landing on a thread inside one overwrites the heap (oneDNN issue 4845, fixed
// upstream in 2026, not in Debian's 2.6): s2s died with "corrupted size vs. prev_size" or a
// segfault in about 1 interrupt of 10. Blocking the signals in every thread from the start of
// main, and taking them with sigwait(2) on a thread that runs no kernel, means no signal frame is
// ever pushed on a compute thread and no system call there is ever interrupted (EINTR).
//
// What a signal does:
//  - before stop_gracefully() (reading options, loading the model, opening the input): the
//    process ends at once, "s2s: interrupted before any output was written" (an -o file is not
//    opened yet: it keeps what it held), exit 128 + signal;
//  - after it: the first signal sets the flag that translate/score check between decoder steps,
//    batches and reads; the command writes what is finished and throws Interrupted;
//  - a second signal ends the process at once with the signal's default action.
// A signal the process inherited as ignored (SIG_IGN: a job started with `cmd &` from a
// non-interactive shell ignores SIGINT) stays ignored.
#pragma once

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace s2s::app {

// Blocks SIGINT/SIGTERM (those not ignored) in the calling thread, which every thread started
// afterwards inherits, and starts the thread that waits for them. Call first thing in main.
void start_signal_watcher();

// From now on a signal asks for a stop (the flag returned) instead of ending the process.
std::atomic<bool>& stop_gracefully();

// Asks for the same stop from inside the process (the output's reader went away); Interrupted is
// not thrown for it: stopped_by_signal() stays false.
void request_stop();
bool stopped_by_signal();

// Thrown once the output is written, for main() to report and exit with 128 + the signal.
class Interrupted : public std::runtime_error {
 public:
  // `rest`: what was not done to the other lines ("translated", "scored").
  explicit Interrupted(std::size_t lines_written, const char* rest = "translated");
  int exit_code() const;
};

// "interrupted: the first N lines written, the rest not translated" (or not `rest`)
std::string interrupted_message(std::size_t lines_written, const char* rest = "translated");

}  // namespace s2s::app
