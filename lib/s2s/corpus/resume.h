// --resume (issue 20): a translate run that can be killed at any moment (Ctrl-C, SIGTERM from a
// scheduler's time limit, kill -9, a lost node) and continued by the same command line, with
// output byte-identical to an uninterrupted run. The journal (s2s/pipeline/journal.h) says how
// much of the output is final; this class keeps it: it checks an existing journal against the
// run about to continue it, opens the output at the resume point, and commits (fdatasync of the
// output, then the journal) at most a second apart and at the end.
//
// Usage (cmd_translate.cc):
//   ResumableOutput out(path, journal_of_this_run);   // UsageError when the run differs
//   if (out.complete()) return;                       // nothing left to do
//   seek the input to out.journal().input_offset, skip out.journal().lines_done lines...
//   out.written(lines) after each write; out.reached_boundary(...) after a window
//   out.finish() when stopped, out.finish_complete(...) at the end
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "s2s/pipeline/journal.h"
#include "s2s/pipeline/shard.h"

namespace s2s::corpus {

// A message about resuming ("continuing after line N"): not a warning, shown unless --quiet.
void resume_notice(const std::string& message);

// UsageError unless a run can be resumed: its input a regular file (`input_flag` says how it is
// given, e.g. "-i FILE"; standard input, a pipe or a terminal cannot be read again) and its
// output a file.
void check_resumable(const std::string& input, const char* input_flag, const std::string& output);

// What every command's fresh journal holds: the command, the paths, the fingerprint and line
// count of the input's byte range (`input_fd`: the input, read with pread), the model's
// fingerprint and the range. The caller adds its options.
pipeline::Journal fresh_journal(const std::string& command, const std::string& input,
                                int input_fd, const std::string& output,
                                const pipeline::ShardRange& range,
                                const std::string& model_folder);

class ResumableOutput {
 public:
  // `now`: what this run would write into a fresh journal (fingerprints, range, lines_total).
  // With a journal at journal_path(output), continues it: UsageError saying what differs when
  // the input, model, shard or options changed, InputError when the output is shorter than the
  // journal says. Without one, starts from the range's beginning (a stale output is truncated).
  // Opens the output either way. Says so (resume_notice) when it continues a run or finds the
  // output complete.
  ResumableOutput(const std::string& output, pipeline::Journal now);
  ~ResumableOutput();
  ResumableOutput(const ResumableOutput&) = delete;
  ResumableOutput& operator=(const ResumableOutput&) = delete;

  int fd() const { return fd_; }
  // Where this run starts: lines_done, input_offset and output_bytes of the journal.
  const pipeline::Journal& journal() const { return journal_; }
  bool complete() const { return journal_.complete; }

  // After records were written: the lines in the output now. Commits (the last resume point, with
  // this count for `s2s progress`) when the last commit is a second old.
  void written(std::size_t lines_written);
  // After a window that ends at a window boundary (windows.h) was written: a resume point, the
  // totals so far (the output bytes include what earlier runs wrote) and the absolute input
  // offset past the window. Commits when the last commit is a second old.
  void reached_boundary(std::size_t lines_done, std::uint64_t input_offset,
                        std::uint64_t output_bytes);
  // Commits the last point given to written(): a stopped run resumes from there.
  void finish();
  // Commits the end: everything in the range was written.
  void finish_complete(std::size_t lines_done, std::uint64_t input_offset,
                       std::uint64_t output_bytes);

 private:
  void commit();

  std::string path_;
  pipeline::Journal journal_;
  int fd_ = -1;
  std::chrono::steady_clock::time_point last_commit_;
};

}  // namespace s2s::corpus
