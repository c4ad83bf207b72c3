// The in-order writer of a run and its progress: records arrive in any order (batches are
// sorted by length) and are written in input order, each as soon as it and every record before
// it are there, so that a stop or a crash loses only the lines in flight.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "s2s/pipeline/translator.h"

namespace s2s::corpus {

// "s2s: 1200 lines, 85.3 lines/s" on one rewritten stderr line, at most 4 times a second, only
// when `shown`; the final one is also the run's summary in the log file (log.h), shown or not.
// `callback`, when given, hears every update.
class Progress {
 public:
  using Callback = std::function<void(std::size_t records, bool final)>;
  Progress(bool shown, Callback callback)
      : shown_(shown), callback_(std::move(callback)), start_(Clock::now()), last_(start_) {}
  void update(std::size_t lines, bool final);

 private:
  using Clock = std::chrono::steady_clock;
  bool shown_;
  Callback callback_;
  Clock::time_point start_;
  Clock::time_point last_;
};

// Writes one window's records at a time in input order. The warnings of a line are made as it
// is written, in input order (so that a warning given once names the first line it applies to).
class InOrderWriter {
 public:
  using Warnings =
      std::function<std::vector<std::string>(std::size_t line_number, const pipeline::InputNotes&)>;
  // Called after each write: records and output bytes written by this writer so far, whether
  // that ends the window, and the input offset (as LineReader::line_ends counts) past the last
  // record written.
  using Written = std::function<void(std::size_t records, std::uint64_t input_end,
                                     std::uint64_t bytes, bool window_done)>;
  // `lines_before`: input lines before the first one written here (a shard's, or those of an
  // earlier run that this one resumes), so that warnings name lines of the whole input.
  InOrderWriter(int fd, Progress& progress, Warnings warnings, std::size_t lines_before,
                Written written)
      : fd_(fd),
        progress_(progress),
        warnings_(std::move(warnings)),
        lines_before_(lines_before),
        written_hook_(std::move(written)) {}

  // `line_ends`: LineReader::line_ends of the window.
  void start_window(std::size_t lines, const std::vector<std::uint64_t>& line_ends);

  // Returns false once the output's reader has gone (nothing more can be written).
  bool put(std::size_t index, std::string record, pipeline::InputNotes notes);

  std::size_t written() const { return written_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  struct Slot {
    std::string record;
    pipeline::InputNotes notes;
    bool ready = false;
  };
  int fd_;
  Progress& progress_;
  Warnings warnings_;
  std::size_t lines_before_;
  Written written_hook_;
  std::vector<Slot> slots_;
  std::vector<std::uint64_t> line_ends_;
  std::size_t next_ = 0;     // first slot not yet written
  std::size_t written_ = 0;  // records written over the whole run
  std::uint64_t bytes_ = 0;  // output bytes written over the whole run
  bool closed_ = false;
};

}  // namespace s2s::corpus
