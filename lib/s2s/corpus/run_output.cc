#include "s2s/corpus/run_output.h"

#include <cstdio>

namespace s2s::corpus {

RunOutput::RunOutput(const std::string& path, bool resume,
                     const std::function<pipeline::Journal()>& journal) {
  if (resume) {
    resumable_ = std::make_unique<ResumableOutput>(path, journal());
    lines_start_ = resumable_->journal().lines_done;
    bytes_start_ = resumable_->journal().output_bytes;
    input_start_ = resumable_->journal().input_offset;
    return;
  }
  file_.emplace(path, true);
  // A journal left by an earlier --resume run no longer describes the output just truncated.
  if (path != "-") std::remove(pipeline::journal_path(path).c_str());
}

void RunOutput::written(std::size_t records, std::uint64_t bytes, bool boundary,
                        std::uint64_t input_offset) {
  if (!resumable_) return;
  // Only a window boundary is a resume point: a resumed run then cuts the same windows.
  if (boundary)
    resumable_->reached_boundary(lines_start_ + records, input_offset, bytes_start_ + bytes);
  else
    resumable_->written(lines_start_ + records);
}

void RunOutput::stopped() {
  if (resumable_) resumable_->finish();
}

void RunOutput::completed(std::size_t records, std::uint64_t bytes, std::uint64_t input_end) {
  if (resumable_)
    resumable_->finish_complete(lines_start_ + records, input_end, bytes_start_ + bytes);
}

}  // namespace s2s::corpus
