// The journal of a resumable run (`--resume`, issue 20): a small JSON file next to the output,
// `OUT.s2s-journal`, that says how much of OUT is final. A run writes output records in input
// order; every second or so it flushes the output to disk (fdatasync) and then replaces the
// journal atomically (a temporary file, fsync, rename, fsync of the folder). After a kill at any
// moment, the journal on disk names a prefix of the output that is on disk too: `lines_done`
// records in the first `output_bytes` bytes, produced from the input up to `input_offset`. A
// resumed run truncates the output there and reads on from `input_offset`.
//
// A journal also holds fingerprints of what produced the output (the input's byte range, the
// model's files, the options that change results), so that a run resumed with another input,
// model or options is refused instead of gluing two different outputs together. Fingerprints
// are sizes plus CRC-32s of the contents: they catch a changed or replaced file, not a forged one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace s2s::pipeline {

struct Journal {
  std::string command;  // "translate"
  std::string input;    // the paths as given, for `s2s progress`
  std::string output;
  std::string input_fingerprint;               // the byte range's contents (scan_range)
  std::string model_fingerprint;               // path_fingerprint of the model
  std::map<std::string, std::string> options;  // option key -> value, and fingerprints of the
                                               // files options name (glossary, prefix file)
  std::uint64_t range_begin = 0;  // the input bytes this output covers (a shard's, or all)
  std::uint64_t range_end = 0;
  std::size_t first_line = 1;   // 1-based number, in the whole input, of the line at range_begin
  std::size_t lines_total = 0;  // lines in the range
  // What is final:
  std::size_t lines_done = 0;
  std::uint64_t input_offset = 0;  // where the range's line lines_done + 1 starts (absolute)
  std::uint64_t output_bytes = 0;
  bool complete = false;
  // Lines in the output when the journal was written: lines_done and those written after the
  // last resume point (cut off on resume), for `s2s progress`.
  std::size_t lines_written = 0;
  // For an estimate of the time left: when this run started (Unix seconds), with how many lines
  // done, and when the journal was last written.
  double run_started = 0;
  std::size_t run_lines_at_start = 0;
  double updated = 0;
};

// "OUT.s2s-journal".
std::string journal_path(const std::string& output);

// The journal at `path`; nullopt when there is none. InputError when it cannot be read or is not
// a journal (names the file).
std::optional<Journal> read_journal(const std::string& path);

// Replaces the journal at `path` atomically and durably (see above). Error when it cannot.
void write_journal(const std::string& path, const Journal& journal);

// Why `saved` cannot be continued by a run that would write `now` ("" when it can): names the
// input, the model, the byte range or each option that differs.
std::string journal_mismatch(const Journal& saved, const Journal& now);

// What `s2s progress` says of a journal at Unix time `now`: the rate of the run that wrote it
// (lines written since it started over its time so far), the time left at that rate (negative when
// unknown: no line yet, or complete), and how long ago it was written.
struct JournalProgress {
  double lines_per_second = 0;
  double seconds_left = -1;
  double seconds_since_update = 0;
};
JournalProgress journal_progress(const Journal& journal, double now);

// One JSON object (one line, no newline) for `s2s progress --json`: output, input, lines_done
// (final: a resumed run continues after them), lines_written, lines_total, complete,
// lines_per_second, seconds_left (null when unknown), seconds_since_update; {"output": ...,
// "journal": null} when `journal` is null (none found).
std::string journal_progress_json(const std::string& output, const Journal* journal, double now);

// Bytes [begin, end) of the regular file open as `fd` (pread: its position is not used): their
// fingerprint and their number of lines, split as LineReader splits them (a last line without a
// newline counts). InputError naming `name` when reading fails.
struct RangeScan {
  std::string fingerprint;
  std::size_t lines = 0;
};
RangeScan scan_range(int fd, std::uint64_t begin, std::uint64_t end, const std::string& name);

// The fingerprint of a file, or of a folder's regular files (names, sizes and contents, not
// recursive: a model folder). InputError when it cannot be read.
std::string path_fingerprint(const std::string& path);

}  // namespace s2s::pipeline
