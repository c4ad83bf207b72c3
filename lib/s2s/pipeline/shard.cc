#include "s2s/pipeline/shard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "s2s/core/error.h"
#include "s2s/pipeline/read_at.h"

namespace s2s::pipeline {
namespace {

// Bytes read at once when counting newlines: few system calls for a large prefix.
constexpr std::size_t kBlock = 1 << 20;

// "12" as a number; false for anything but decimal digits (no sign, no spaces) or an overflow.
bool parse_count(const std::string& text, std::size_t& value) {
  if (text.empty() || text.size() > 18) return false;
  value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return true;
}

std::uint64_t regular_file_size(int fd, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(name + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw UsageError(name +
                     ": --shard needs a regular file (a pipe or terminal cannot be "
                     "sharded: a shard seeks to its part)");
  return static_cast<std::uint64_t>(st.st_size);
}

// The first line start at or after `offset` (0 < offset <= size): offset itself when the byte
// before it is '\n', else just after the next '\n', else the file's end. With `newlines`, the
// file is read from its start and *newlines gets the count of '\n' before the result;
// without, only from offset - 1.
std::uint64_t line_start_from(int fd, std::uint64_t offset, const std::string& name,
                              std::size_t* newlines) {
  const std::uint64_t look_from = offset - 1;  // the first byte whose '\n' may end the search
  std::uint64_t pos = newlines != nullptr ? 0 : look_from;
  std::size_t count = 0;
  std::vector<char> buffer(kBlock);
  for (std::size_t n; (n = read_at(fd, buffer.data(), kBlock, pos, name)) > 0; pos += n) {
    const char* data = buffer.data();
    const std::size_t skip =
        pos < look_from ? static_cast<std::size_t>(std::min<std::uint64_t>(look_from - pos, n)) : 0;
    count += static_cast<std::size_t>(std::count(data, data + skip, '\n'));
    if (skip == n) continue;
    const void* newline = std::memchr(data + skip, '\n', n - skip);
    if (newline != nullptr) {
      if (newlines != nullptr) *newlines = count + 1;
      return pos + static_cast<std::size_t>(static_cast<const char*>(newline) - data) + 1;
    }
  }
  if (newlines != nullptr) *newlines = count;
  return pos;
}

// k * size / n without overflow.
std::uint64_t cut(std::size_t k, std::size_t n, std::uint64_t size) {
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(size) * k / n);
}

// The number of lines before the first line start at or after `offset` (<= size): its 0-based
// index. A last line without a newline counts.
std::size_t lines_before_offset(int fd, std::uint64_t offset, std::uint64_t size,
                                const std::string& name) {
  if (offset == 0) return 0;
  std::size_t newlines = 0;
  if (line_start_from(fd, offset, name, &newlines) == size && size > 0) {
    char last = '\n';
    read_at(fd, &last, 1, size - 1, name);
    if (last != '\n') ++newlines;
  }
  return newlines;
}

// Where 0-based line `line` starts and its index; past the last line, the file's size and the
// number of lines.
std::pair<std::uint64_t, std::size_t> locate_line(int fd, std::size_t line, std::uint64_t size,
                                                  const std::string& name) {
  if (line == 0) return {0, 0};
  std::vector<char> buffer(kBlock);
  std::size_t count = 0;
  for (std::uint64_t pos = 0; pos < size;) {
    const std::size_t n = read_at(fd, buffer.data(), kBlock, pos, name);
    if (n == 0) break;
    for (const char *p = buffer.data(), *end = p + n; p < end;) {
      const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      if (newline == nullptr) break;
      p = static_cast<const char*>(newline) + 1;
      if (++count == line) return {pos + static_cast<std::uint64_t>(p - buffer.data()), line};
    }
    pos += n;
  }
  char last = '\n';
  if (size > 0) read_at(fd, &last, 1, size - 1, name);
  return {size, count + (last != '\n' ? 1 : 0)};
}

void seek(int fd, std::uint64_t offset, const std::string& name) {
  if (::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0)
    throw InputError(name + ": cannot seek: " + std::strerror(errno));
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& flag) {
  const std::size_t slash = text.find('/');
  Shard shard;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), shard.index) ||
      !parse_count(text.substr(slash + 1), shard.count))
    throw UsageError(flag + " " + text + ": expected K/N, shard K (0-based) of N, e.g. 3/16");
  if (shard.count < 1) throw UsageError(flag + " " + text + ": N must be at least 1");
  if (shard.index >= shard.count)
    throw UsageError(flag + " " + text + ": K must be below N (shards are numbered 0 to N-1)");
  return shard;
}

std::string shard_label(const Shard& shard) {
  char text[64];
  std::snprintf(text, sizeof text, "%05zu-of-%05zu", shard.index, shard.count);
  return text;
}

ShardRange shard_range(int fd, const Shard& shard, const std::string& name,
                       const WindowSchedule* windows) {
  const std::uint64_t size = regular_file_size(fd, name);
  ShardRange range;
  if (windows != nullptr) {
    // Each cut moves to the window boundary nearest to the line at its byte.
    const auto boundary = [&](std::size_t k) {
      return k == 0 ? std::size_t{0}
                    : windows->nearest(lines_before_offset(fd, cut(k, shard.count, size), size, name));
    };
    const auto [begin, first] = locate_line(fd, boundary(shard.index), size, name);
    range.begin = begin;
    range.first_line = first + 1;
    range.end = shard.index + 1 == shard.count
                    ? size
                    : std::max(begin, locate_line(fd, boundary(shard.index + 1), size, name).first);
    return range;
  }
  const std::uint64_t from = cut(shard.index, shard.count, size);
  std::size_t newlines = 0;
  range.begin = from == 0 ? 0 : line_start_from(fd, from, name, &newlines);
  range.first_line = newlines + 1;
  // A shard that starts at the end of a file whose last line has no newline comes after it.
  char last = '\n';
  if (range.begin == size && size > 0) read_at(fd, &last, 1, size - 1, name);
  if (last != '\n') ++range.first_line;
  const std::uint64_t to = cut(shard.index + 1, shard.count, size);
  range.end = shard.index + 1 == shard.count ? size
              : to <= range.begin            ? range.begin
                                             : line_start_from(fd, to, name, nullptr);
  return range;
}

ShardRange seek_to_shard(int fd, const Shard& shard, const std::string& name,
                         const WindowSchedule* windows) {
  const ShardRange range = shard_range(fd, shard, name, windows);
  seek(fd, range.begin, name);
  return range;
}

bool seek_to_line(int fd, std::size_t line, const std::string& name) {
  std::size_t wanted = line > 1 ? line - 1 : 0;  // newlines before the line
  std::vector<char> buffer(kBlock);
  for (std::uint64_t block = 0; wanted > 0;) {
    const std::size_t n = read_at(fd, buffer.data(), kBlock, block, name);
    if (n == 0) {
      seek(fd, block, name);
      return false;
    }
    const char* data = buffer.data();
    const char* p = data;
    for (const void* newline; wanted > 0; --wanted) {
      newline = std::memchr(p, '\n', static_cast<std::size_t>(data + n - p));
      if (newline == nullptr) break;
      p = static_cast<const char*>(newline) + 1;
    }
    if (wanted == 0) {
      seek(fd, block + static_cast<std::uint64_t>(p - data), name);
      return true;
    }
    block += n;
  }
  seek(fd, 0, name);
  return true;
}

}  // namespace s2s::pipeline
