#include "s2s/corpus/resume.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "s2s/corpus/files.h"
#include "s2s/core/error.h"
#include "s2s/core/log.h"

namespace s2s::corpus {
namespace {

// At most this long between commits: what a kill -9 can cost.
constexpr std::chrono::milliseconds kCommitInterval{1000};

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

void resume_notice(const std::string& message) {
  if (log::level() >= log::Level::warning) log::notice(message);
}

void check_resumable(const std::string& input, const char* input_flag, const std::string& output) {
  if (input == "-" || input.empty())
    throw UsageError(std::string("--resume needs the input as a file (") + input_flag +
                     "): standard input cannot be read again");
  struct stat st {};
  if (::stat(input.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UsageError("--resume needs the input as a regular file: " + input +
                     " (a pipe or terminal cannot be read again)");
  if (output == "-") throw UsageError("--resume needs an output file (-o FILE) to continue");
}

pipeline::Journal fresh_journal(const std::string& command, const std::string& input,
                                int input_fd, const std::string& output,
                                const pipeline::ShardRange& range,
                                const std::string& model_folder) {
  pipeline::Journal journal;
  journal.command = command;
  journal.input = input;
  journal.output = output;
  const pipeline::RangeScan scan = pipeline::scan_range(input_fd, range.begin, range.end, input);
  journal.input_fingerprint = scan.fingerprint;
  journal.lines_total = scan.lines;
  journal.model_fingerprint = pipeline::path_fingerprint(model_folder);
  journal.range_begin = range.begin;
  journal.range_end = range.end;
  journal.first_line = range.first_line;
  return journal;
}

ResumableOutput::ResumableOutput(const std::string& output, pipeline::Journal now)
    : path_(pipeline::journal_path(output)), journal_(std::move(now)) {
  journal_.lines_done = 0;
  journal_.input_offset = journal_.range_begin;
  journal_.output_bytes = 0;
  journal_.complete = false;
  if (const std::optional<pipeline::Journal> saved = pipeline::read_journal(path_)) {
    const std::string mismatch = pipeline::journal_mismatch(*saved, journal_);
    if (!mismatch.empty())
      throw UsageError("--resume: " + output + " cannot be continued: " + mismatch + "; remove " +
                       path_ + " to start again");
    journal_.lines_done = saved->lines_done;
    journal_.input_offset = saved->input_offset;
    journal_.output_bytes = saved->output_bytes;
    journal_.complete = saved->complete;
  }
  fd_ = ::open(output.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0)
    throw InputError(output + ": cannot open output file: " +
                     (errno == EISDIR ? "is a directory" : std::strerror(errno)));
  try {
    lock_output(fd_, output);  // before anything is cut off (io.h)
  } catch (...) {
    ::close(fd_);
    throw;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw UsageError("--resume: " + output + " is not a regular file");
  }
  if (static_cast<std::uint64_t>(st.st_size) < journal_.output_bytes) {
    ::close(fd_);
    throw InputError("--resume: " + output + " has " + std::to_string(st.st_size) +
                     " bytes, fewer than the " + std::to_string(journal_.output_bytes) +
                     " its journal says are final (was it replaced?); remove " + path_ +
                     " to start again");
  }
  // What a killed run wrote after its last commit is cut off here and written again.
  if (::ftruncate(fd_, static_cast<off_t>(journal_.output_bytes)) != 0 ||
      ::lseek(fd_, 0, SEEK_END) < 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw InputError(output + ": cannot truncate the output to its resume point: " + why);
  }
  journal_.run_started = unix_seconds();
  journal_.run_lines_at_start = journal_.lines_written = journal_.lines_done;
  if (journal_.complete)
    resume_notice("--resume: " + output + " is complete (" + std::to_string(journal_.lines_done) +
                  " lines): nothing to do");
  else if (journal_.lines_done > 0)
    resume_notice("--resume: " + output + ": continuing after line " +
                  std::to_string(journal_.first_line - 1 + journal_.lines_done) + " (" +
                  std::to_string(journal_.lines_done) + " of " +
                  std::to_string(journal_.lines_total) + " lines done)");
  commit();  // `s2s progress` sees the run from its start
}

ResumableOutput::~ResumableOutput() {
  if (fd_ >= 0) ::close(fd_);
}

void ResumableOutput::written(std::size_t lines_written) {
  journal_.lines_written = lines_written;
  if (std::chrono::steady_clock::now() - last_commit_ >= kCommitInterval) commit();
}

void ResumableOutput::reached_boundary(std::size_t lines_done, std::uint64_t input_offset,
                                       std::uint64_t output_bytes) {
  journal_.lines_done = journal_.lines_written = lines_done;
  journal_.input_offset = input_offset;
  journal_.output_bytes = output_bytes;
  if (std::chrono::steady_clock::now() - last_commit_ >= kCommitInterval) commit();
}

void ResumableOutput::finish() { commit(); }

void ResumableOutput::finish_complete(std::size_t lines_done, std::uint64_t input_offset,
                                      std::uint64_t output_bytes) {
  journal_.lines_done = journal_.lines_written = lines_done;
  journal_.input_offset = input_offset;
  journal_.output_bytes = output_bytes;
  journal_.complete = true;
  commit();
}

void ResumableOutput::commit() {
  // The output first: the journal must never name bytes that are not on disk.
  if (::fdatasync(fd_) != 0)
    throw Error(journal_.output + ": cannot flush the output: " + std::strerror(errno));
  journal_.updated = unix_seconds();
  pipeline::write_journal(path_, journal_);
  last_commit_ = std::chrono::steady_clock::now();
}

}  // namespace s2s::corpus
