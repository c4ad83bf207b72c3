#include "s2s/pipeline/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "s2s/core/error.h"
#include "s2s/pipeline/read_at.h"

namespace s2s::pipeline {

// The journal's JSON object: these fields by name, plus "s2s_journal": the format's version.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Journal, command, input, output, input_fingerprint,
                                   model_fingerprint, options, range_begin, range_end, first_line,
                                   lines_total, lines_done, input_offset, output_bytes, complete,
                                   lines_written, run_started, run_lines_at_start, updated)

namespace {

constexpr int kJournalVersion = 1;
constexpr std::size_t kBlock = 1 << 20;

std::string why() { return std::strerror(errno); }

// "size:crc32" of everything added.
class Crc {
 public:
  void add(const char* data, std::size_t size) {
    crc_ = crc32_z(crc_, reinterpret_cast<const Bytef*>(data), size);
    size_ += size;
  }
  std::string text() const {
    char out[48];
    std::snprintf(out, sizeof out, "%llu:%08lx", static_cast<unsigned long long>(size_), crc_);
    return out;
  }

 private:
  uLong crc_ = crc32_z(0L, Z_NULL, 0);
  std::uint64_t size_ = 0;
};

// Calls `use(block, size)` on the bytes [begin, end) of fd, read in 1 MB blocks.
template <typename Use>
void read_range(int fd, std::uint64_t begin, std::uint64_t end, const std::string& name, Use use) {
  std::vector<char> block(kBlock);
  for (std::uint64_t at = begin; at < end;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - at));
    const std::size_t n = read_at(fd, block.data(), want, at, name);
    if (n == 0) throw InputError(name + ": the file became shorter while it was read");
    use(block.data(), n);
    at += n;
  }
}

std::string file_fingerprint(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot read: " + why());
  struct stat st {};
  Crc crc;
  try {
    if (::fstat(fd, &st) != 0) throw InputError(path + ": cannot read: " + why());
    read_range(fd, 0, static_cast<std::uint64_t>(st.st_size), path,
               [&](const char* data, std::size_t size) { crc.add(data, size); });
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return crc.text();
}

void fsync_folder(const std::string& file) {
  std::string folder = std::filesystem::path(file).parent_path().string();
  if (folder.empty()) folder = ".";
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename is done; only its durability is at stake
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string journal_path(const std::string& output) { return output + ".s2s-journal"; }

std::optional<Journal> read_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::nullopt;
    throw InputError(path + ": cannot read the journal: " + why());
  }
  std::ostringstream text;
  text << in.rdbuf();
  Journal journal;
  try {
    const nlohmann::json v = nlohmann::json::parse(text.str());
    if (v.at("s2s_journal").get<int>() != kJournalVersion)
      throw InputError(path + ": a journal of another s2s version (" + v.at("s2s_journal").dump() +
                       "): remove it to start again");
    journal = v.get<Journal>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(path + ": not an s2s journal (remove it to start again)");
  }
  if (journal.lines_done > journal.lines_total || journal.lines_written < journal.lines_done ||
      journal.lines_written > journal.lines_total || journal.input_offset < journal.range_begin ||
      journal.input_offset > journal.range_end)
    throw InputError(path + ": an inconsistent s2s journal (remove it to start again)");
  return journal;
}

void write_journal(const std::string& path, const Journal& journal) {
  const std::string temporary = path + ".tmp";
  nlohmann::json v = journal;
  v["s2s_journal"] = kJournalVersion;
  const std::string text = v.dump() + "\n";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(temporary + ": cannot write the journal: " + why());
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = why();
      ::close(fd);
      throw Error(temporary + ": cannot write the journal: " + reason);
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const std::string reason = why();
  ::close(fd);
  if (!synced) throw Error(temporary + ": cannot write the journal: " + reason);
  if (::rename(temporary.c_str(), path.c_str()) != 0)
    throw Error(path + ": cannot write the journal: " + why());
  fsync_folder(path);
}

std::string journal_mismatch(const Journal& saved, const Journal& now) {
  if (saved.command != now.command)
    return "it was written by s2s " + saved.command + ", not " + now.command;
  if (saved.input_fingerprint != now.input_fingerprint)
    return "the input changed (" + saved.input + ")";
  if (saved.range_begin != now.range_begin || saved.range_end != now.range_end ||
      saved.first_line != now.first_line)
    return "it covers other lines of the input (another --shard?)";
  if (saved.model_fingerprint != now.model_fingerprint) return "the model changed";
  std::string options;
  for (const auto& [key, value] : now.options) {
    const auto old = saved.options.find(key);
    if (old == saved.options.end() || old->second != value)
      options += (options.empty() ? "" : ", ") + key + " " +
                 (old == saved.options.end() ? "(none)" : old->second) + " -> " + value;
  }
  for (const auto& [key, value] : saved.options)
    if (now.options.count(key) == 0)
      options += (options.empty() ? "" : ", ") + key + " " + value + " -> (none)";
  if (!options.empty()) return "options changed: " + options;
  return "";
}

JournalProgress journal_progress(const Journal& journal, double now) {
  JournalProgress p;
  const double seconds = journal.updated - journal.run_started;
  const std::size_t lines =
      journal.lines_written - std::min(journal.lines_written, journal.run_lines_at_start);
  if (seconds > 0 && lines > 0) p.lines_per_second = static_cast<double>(lines) / seconds;
  if (!journal.complete && p.lines_per_second > 0)
    p.seconds_left =
        static_cast<double>(journal.lines_total - journal.lines_written) / p.lines_per_second;
  p.seconds_since_update = std::max(0.0, now - journal.updated);
  return p;
}

std::string journal_progress_json(const std::string& output, const Journal* found, double now) {
  if (found == nullptr) return nlohmann::json{{"output", output}, {"journal", nullptr}}.dump();
  const Journal& journal = *found;
  const JournalProgress p = journal_progress(journal, now);
  nlohmann::json v = {{"output", output},
                      {"input", journal.input},
                      {"lines_done", journal.lines_done},
                      {"lines_written", journal.lines_written},
                      {"lines_total", journal.lines_total},
                      {"complete", journal.complete},
                      {"lines_per_second", p.lines_per_second},
                      {"seconds_left", nullptr},
                      {"seconds_since_update", p.seconds_since_update}};
  if (p.seconds_left >= 0) v["seconds_left"] = p.seconds_left;
  return v.dump();
}

RangeScan scan_range(int fd, std::uint64_t begin, std::uint64_t end, const std::string& name) {
  RangeScan scan;
  Crc crc;
  char last = '\n';
  read_range(fd, begin, end, name, [&](const char* data, std::size_t size) {
    crc.add(data, size);
    scan.lines += static_cast<std::size_t>(std::count(data, data + size, '\n'));
    last = data[size - 1];
  });
  if (last != '\n') ++scan.lines;  // a last line without a newline
  scan.fingerprint = crc.text();
  return scan;
}

std::string path_fingerprint(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return file_fingerprint(path);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec))
    if (entry.is_regular_file(ec)) names.push_back(entry.path().filename().string());
  if (ec) throw InputError(path + ": cannot read the folder: " + ec.message());
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& name : names)
    out += name + "=" + file_fingerprint((std::filesystem::path(path) / name).string()) + ";";
  Crc crc;
  crc.add(out.data(), out.size());
  return crc.text();
}

}  // namespace s2s::pipeline
