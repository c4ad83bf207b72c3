#include "s2s/pipeline/pair_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "s2s/core/error.h"
#include "s2s/core/log.h"
#include "s2s/pipeline/read_at.h"
#include "s2s/text/clean.h"

namespace s2s::pipeline {
namespace {

// A descriptor for reading `path`; InputError saying why it cannot be read.
int open_input(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  const char* why = fd < 0                                      ? std::strerror(errno)
                    : ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? "is a directory"
                                                                    : nullptr;
  if (why == nullptr) return fd;
  if (fd >= 0) ::close(fd);
  throw InputError(path + ": cannot open input file: " + why);
}

// Lines as LineReader splits them ('\n'; a last line without one counts) in the `max_bytes`
// bytes of fd from `offset`; stops early, with a count over `most`, once there are more.
std::size_t count_lines(int fd, const std::string& name, std::uint64_t offset = 0,
                        std::uint64_t max_bytes = LineReader::kNoLimit,
                        std::size_t most = static_cast<std::size_t>(-1)) {
  std::size_t lines = 0;
  bool open_line = false;
  std::vector<char> buffer(1 << 20);
  while (max_bytes > 0 && lines <= most) {
    const std::size_t want = static_cast<std::size_t>(
        std::min<std::uint64_t>(buffer.size(), max_bytes));
    const std::size_t n = read_at(fd, buffer.data(), want, offset, name);
    if (n == 0) break;
    lines += static_cast<std::size_t>(std::count(buffer.data(), buffer.data() + n, '\n'));
    open_line = buffer[n - 1] != '\n';
    offset += n;
    max_bytes -= n;
  }
  return lines + (open_line ? 1 : 0);
}

// Field k of "id ||| hypothesis ||| features ||| score", trimmed of spaces; npos when the line
// has fewer fields.
bool nbest_field(const std::string& line, int k, std::string& field) {
  std::size_t pos = 0;
  for (int i = 0; i < k; ++i) {
    pos = line.find("|||", pos);
    if (pos == std::string::npos) return false;
    pos += 3;
  }
  const std::size_t end = line.find("|||", pos);
  field = line.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  const std::size_t first = field.find_first_not_of(' '), last = field.find_last_not_of(' ');
  field = first == std::string::npos ? std::string() : field.substr(first, last - first + 1);
  return true;
}

}  // namespace

struct PairReader::Files {
  std::vector<int> fds;
  ~Files() {
    for (int fd : fds) ::close(fd);
  }
  int open(const std::string& path) {
    fds.push_back(open_input(path));
    return fds.back();
  }
};

PairReader::PairReader(Kind kind, std::string name, bool skip_bad)
    : kind_(kind), name_(std::move(name)), skip_bad_(skip_bad), files_(std::make_unique<Files>()) {}
PairReader::PairReader(PairReader&&) noexcept = default;
PairReader::~PairReader() = default;

ShardRange PairReader::open_first(int fd, const Shard* shard, const WindowSchedule* windows,
                                  const std::atomic<bool>* stop) {
  std::uint64_t limit = LineReader::kNoLimit;
  if (shard != nullptr) {
    range_ = seek_to_shard(fd, *shard, name_, windows);
    limit = range_.end - range_.begin;
    line_ = range_.lines_before();
  }
  first_fd_ = fd;
  stop_ = stop;
  first_start_ = offset_ = range_.begin;
  first_ = std::make_unique<LineReader>(fd, stop, limit);
  return range_;
}

void PairReader::skip_done(std::size_t lines, std::uint64_t offset) {
  if (::lseek(first_fd_, static_cast<off_t>(offset), SEEK_SET) < 0)
    throw InputError(name_ + ": cannot seek to the resume point: " + std::strerror(errno));
  first_ = std::make_unique<LineReader>(first_fd_, stop_, range_.end - offset);
  first_start_ = offset_ = offset;
  line_ = range_.lines_before() + lines;
  if (kind_ != Kind::parallel) return;
  if (!seek_to_line(target_fd_, line_ + 1, target_name_))
    throw InputError(target_name_ + " has fewer lines than " + name_ + " (it changed?)");
  second_ = std::make_unique<LineReader>(target_fd_, stop_);
}

PairReader PairReader::tab_separated(int fd, std::string name, bool skip_bad,
                                     const std::atomic<bool>* stop, const Shard* shard,
                                     const WindowSchedule* windows) {
  PairReader reader(Kind::tab_separated, std::move(name), skip_bad);
  reader.open_first(fd, shard, windows, stop);
  return reader;
}

PairReader PairReader::parallel(const std::string& source_path, const std::string& target_path,
                                const std::atomic<bool>* stop, const Shard* shard,
                                const WindowSchedule* windows) {
  PairReader reader(Kind::parallel, source_path, false);
  const int source = reader.files_->open(source_path);
  const int target = reader.files_->open(target_path);
  if (shard == nullptr) {
    const std::size_t s = count_lines(source, source_path), t = count_lines(target, target_path);
    if (s != t)
      throw InputError(source_path + " has " + std::to_string(s) + " lines but " + target_path +
                       " has " + std::to_string(t));
  }
  const ShardRange range = reader.open_first(source, shard, windows, stop);
  if (shard != nullptr) {  // the target file's lines of the same numbers
    const std::size_t lines =
        count_lines(source, source_path, range.begin, range.end - range.begin);
    const bool last = shard->index + 1 == shard->count;
    const bool found = seek_to_line(target, range.first_line, target_path);
    const std::uint64_t at = static_cast<std::uint64_t>(::lseek(target, 0, SEEK_CUR));
    const std::size_t t =
        found ? count_lines(target, target_path, at, LineReader::kNoLimit,
                            last ? static_cast<std::size_t>(-1) : lines)
              : 0;
    if (t < lines)
      throw InputError(target_path + " has fewer lines than " + source_path + " (shard " +
                       std::to_string(shard->index) + "/" + std::to_string(shard->count) +
                       " needs lines " + std::to_string(range.first_line) +
                       " to " + std::to_string(range.lines_before() + lines) + ")");
    if (last && t > lines)
      throw InputError(target_path + " has more lines than " + source_path + " (" +
                       std::to_string(range.lines_before() + lines) + ")");
  }
  reader.target_fd_ = target;
  reader.target_name_ = target_path;
  reader.second_ = std::make_unique<LineReader>(target, stop);
  return reader;
}

PairReader PairReader::nbest(int fd, std::string name, const std::string& sources_path,
                             bool skip_bad, const std::atomic<bool>* stop, const Shard* shard,
                             const WindowSchedule* windows) {
  PairReader reader(Kind::nbest, std::move(name), skip_bad);
  reader.sources_name_ = sources_path;
  LineReader sources(reader.files_->open(sources_path), stop);
  std::vector<std::string> window;
  while (sources.next_window(window, 4096))
    for (std::string& line : window) {
      if (reader.sources_.empty()) text::strip_bom(line);
      std::string cleaned;
      text::clean_text(line, cleaned);
      reader.sources_.push_back(std::move(cleaned));
    }
  reader.open_first(fd, shard, windows, stop);
  return reader;
}

bool PairReader::next(std::vector<PairEntry>& entries, std::size_t window) {
  entries.clear();
  if (!first_->next_window(lines_, window)) return false;
  offset_ = first_start_ + first_->line_ends().back();
  if (kind_ == Kind::parallel) {
    target_lines_.clear();
    std::vector<std::string> more;
    while (target_lines_.size() < lines_.size()) {
      if (!second_->next_window(more, lines_.size() - target_lines_.size()))
        throw InputError(name_ + " has more lines than its target file (it changed while read)");
      for (std::string& line : more) target_lines_.push_back(std::move(line));
    }
  }
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    PairEntry e;
    e.line = ++line_;
    if (line_ == 1) text::strip_bom(lines_[i]);
    const std::string line = clean(std::move(lines_[i]), line_);
    switch (kind_) {
      case Kind::tab_separated: read_tab_separated(line, e); break;
      case Kind::nbest: read_nbest(line, e); break;
      case Kind::parallel:
        if (line_ == 1) text::strip_bom(target_lines_[i]);
        e.source = line;
        e.target = clean(std::move(target_lines_[i]), line_);
        break;
    }
    entries.push_back(std::move(e));
  }
  return true;
}

void PairReader::read_tab_separated(const std::string& line, PairEntry& e) const {
  const std::size_t tab = line.find('\t');
  if (tab == std::string::npos) return skip_or_throw(e, where() + " has no tab between source and target");
  if (line.find('\t', tab + 1) != std::string::npos)
    return skip_or_throw(e, where() + " has more than two tab-separated fields (source<TAB>target)");
  e.source = line.substr(0, tab);
  e.target = line.substr(tab + 1);
}

void PairReader::read_nbest(const std::string& line, PairEntry& e) const {
  e.nbest_line = line;
  std::string features;
  if (!nbest_field(line, 1, e.target) || !nbest_field(line, 2, features))
    return skip_or_throw(e, where() + " is not an n-best line (id ||| text ||| ...)");
  const std::string id = line.substr(0, line.find("|||"));
  std::size_t k = 0;
  try {
    k = std::stoul(id);
  } catch (const std::exception&) {
    return skip_or_throw(e, where() + ": '" + id + "' is not a sentence number");
  }
  if (k >= sources_.size())
    return skip_or_throw(e, where() + ": sentence " + std::to_string(k) + " but " + sources_name_ +
                                " has " + std::to_string(sources_.size()) + " lines");
  e.source = sources_[k];
}

std::string PairReader::clean(std::string line, std::size_t line_number) const {
  std::string out;
  const text::CleanReport report = text::clean_text(line, out);
  if (report.invalid_utf8 > 0) log::warning(text::invalid_utf8_message(line_number, report.invalid_utf8));
  return out;
}

void PairReader::skip_or_throw(PairEntry& e, const std::string& problem) const {
  if (!skip_bad_) throw InputError(problem);
  log::warning(problem + "; its record is left empty (--skip-bad)");
  e.source.clear();
  e.target.clear();
  e.skipped = true;
}

std::string PairReader::where() const { return name_ + ": line " + std::to_string(line_); }

}  // namespace s2s::pipeline
