// PairReader: the (source, target) pairs of `s2s score`, in windows, from one of three inputs
// (marian-scorer's, plus tab-separated lines):
//   tab_separated  "source<TAB>target" lines (a file or standard input);
//   parallel       a source file and a target file, line by line (the same line counts);
//   nbest          a Marian/Moses n-best list "k ||| target ||| features ||| score" whose
//                  sentence k is line k (0-based) of a sources file.
// Lines are read by LineReader (so an interactive writer gets its scores per window) and cleaned
// as translate cleans them (text/clean.h): invalid UTF-8 becomes U+FFFD with a warning naming the
// line, control characters become spaces, a byte order mark starting the input is dropped.
// A line that cannot be read (no tab, a third field, not an n-best line) is an InputError naming
// the file and line, or with skip_bad a warning and an entry marked skipped.
// Given a shard (shard.h), a reader reads only that shard of its input (tab-separated lines, the
// n-best list, or the source file, with the same lines of the target file); its line numbers are
// those of the whole input. With the run's window schedule (windows.h) the shard's cuts move to
// window boundaries, so that the shards batch their pairs as one whole run does. A resumed run
// (`s2s score --resume`) continues a reader from a line and its byte offset in the first file
// (skip_done).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "s2s/pipeline/line_reader.h"
#include "s2s/pipeline/shard.h"

namespace s2s::pipeline {

// One input line: the pair to score, or a line that could not be read (skip_bad).
struct PairEntry {
  std::size_t line = 0;  // 1-based input line number
  std::string source, target;
  std::string nbest_line;  // nbest input: the (cleaned) line, written back with a feature
  bool skipped = false;
};

class PairReader {
 public:
  // `name` is what messages call the input ("standard input" or the file). Descriptors are
  // borrowed. `stop`, when true, ends the input as LineReader's does. `shard`, when given, is
  // the part of the input read (fd must then be a regular file; it is moved to the shard), cut
  // at `windows`' boundaries when given.
  static PairReader tab_separated(int fd, std::string name, bool skip_bad,
                                  const std::atomic<bool>* stop = nullptr,
                                  const Shard* shard = nullptr,
                                  const WindowSchedule* windows = nullptr);
  // InputError when the two files have different line counts (checked before any is scored;
  // for a shard: when the target file lacks one of the shard's lines, or, for the last shard,
  // has more).
  static PairReader parallel(const std::string& source_path, const std::string& target_path,
                             const std::atomic<bool>* stop = nullptr,
                             const Shard* shard = nullptr,
                             const WindowSchedule* windows = nullptr);
  // The shard is a part of the n-best list; the sources file is read whole.
  static PairReader nbest(int fd, std::string name, const std::string& sources_path,
                          bool skip_bad, const std::atomic<bool>* stop = nullptr,
                          const Shard* shard = nullptr, const WindowSchedule* windows = nullptr);

  PairReader(PairReader&&) noexcept;
  ~PairReader();

  // Replaces `entries` with the next 1..window lines; false (and none) at the end of input.
  bool next(std::vector<PairEntry>& entries, std::size_t window);

  // The first file is the one a shard cuts: the tab-separated input, the n-best list or the
  // source file. Its byte range read (a shard's; for a reader made without a shard [0, 0)).
  const ShardRange& range() const { return range_; }
  // The absolute offset in the first file just past the last line next() gave (range().begin
  // before the first).
  std::uint64_t offset() const { return offset_; }
  // Continues after the first `lines` lines of range(), which end at `offset` of the first file
  // (a journal's resume point, journal.h); the target file, if any, moves to the same line.
  // Only before next() and for a reader made with a shard (Shard{} for the whole file).
  // InputError when a file cannot be read there.
  void skip_done(std::size_t lines, std::uint64_t offset);

 private:
  enum class Kind { tab_separated, parallel, nbest };
  PairReader(Kind kind, std::string name, bool skip_bad);
  // first_ on fd: the whole input, or the shard's lines (fd moved to its start).
  ShardRange open_first(int fd, const Shard* shard, const WindowSchedule* windows,
                        const std::atomic<bool>* stop);

  void read_tab_separated(const std::string& line, PairEntry& e) const;
  void read_nbest(const std::string& line, PairEntry& e) const;
  std::string clean(std::string line, std::size_t line_number) const;
  void skip_or_throw(PairEntry& e, const std::string& problem) const;
  std::string where() const;  // "FILE: line N"

  Kind kind_;
  std::string name_;
  bool skip_bad_;
  struct Files;  // the descriptors this reader opened, closed with it
  std::unique_ptr<Files> files_;
  std::unique_ptr<LineReader> first_, second_;
  const std::atomic<bool>* stop_ = nullptr;
  int first_fd_ = -1, target_fd_ = -1;
  std::string target_name_;
  ShardRange range_;
  std::uint64_t first_start_ = 0;  // where first_ started reading (its line_ends() count from it)
  std::uint64_t offset_ = 0;
  std::vector<std::string> sources_;  // nbest: the sentences the list's ids point to
  std::string sources_name_;
  std::size_t line_ = 0;
  std::vector<std::string> lines_, target_lines_;  // scratch for one window
};

}  // namespace s2s::pipeline
