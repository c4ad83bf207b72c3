// Where a run writes: a fresh output file (a journal an earlier --resume run left next to it is
// removed: it no longer describes the file), or with resume the output its journal continues
// (resume.h). Both commands write through this, so that the journal is committed the same way:
// a resume point only at a window boundary (windows.h), the lines written in between.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "s2s/corpus/files.h"
#include "s2s/corpus/resume.h"

namespace s2s::corpus {

class RunOutput {
 public:
  // `journal` makes this run's fresh journal; it is called only with `resume`.
  RunOutput(const std::string& path, bool resume, const std::function<pipeline::Journal()>& journal);

  int fd() const { return resumable_ ? resumable_->fd() : file_->fd(); }
  // With resume: the output was complete already (nothing to do).
  bool complete() const { return resumable_ && resumable_->complete(); }
  bool resumes() const { return resumable_ != nullptr; }
  // Where this run starts: records and bytes of the earlier runs it continues (0 without
  // resume), and with resume the input offset after their lines.
  std::size_t lines_start() const { return lines_start_; }
  std::uint64_t bytes_start() const { return bytes_start_; }
  std::uint64_t input_start() const { return input_start_; }

  // After a write: records and bytes this run has written; `boundary`: they end at a window
  // boundary, a resume point, whose input offset (absolute) is `input_offset`.
  void written(std::size_t records, std::uint64_t bytes, bool boundary,
               std::uint64_t input_offset);
  // At the end: stopped (resumable from the last boundary), or complete up to `input_end`.
  void stopped();
  void completed(std::size_t records, std::uint64_t bytes, std::uint64_t input_end);

 private:
  std::unique_ptr<ResumableOutput> resumable_;
  std::optional<File> file_;
  std::size_t lines_start_ = 0;
  std::uint64_t bytes_start_ = 0;
  std::uint64_t input_start_ = 0;
};

}  // namespace s2s::corpus
