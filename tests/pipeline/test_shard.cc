// Shard byte ranges (pipeline/shard.h) against their definition, computed here the slow way:
// shard k holds the lines whose first byte lies in [k*size/n, (k+1)*size/n). Also "K/N" parsing,
// the output label, seek_to_line and a LineReader limited to a range.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "s2s/core/error.h"
#include "s2s/pipeline/line_reader.h"
#include "s2s/pipeline/shard.h"
#include "s2s/pipeline/windows.h"
#include "test_utils.h"

namespace s2s {
namespace {

// A file opened for reading, closed at the end.
struct OpenFile {
  int fd;
  explicit OpenFile(const std::string& path) : fd(::open(path.c_str(), O_RDONLY)) {
    REQUIRE(fd >= 0);
  }
  ~OpenFile() { ::close(fd); }
};

// The byte offsets where lines start, as LineReader splits them.
std::vector<std::size_t> line_starts(const std::string& bytes) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (i == 0 || bytes[i - 1] == '\n') starts.push_back(i);
  return starts;
}

// Every line of the file, read by LineReaders limited to each shard's range in turn.
std::vector<std::string> read_shards(int fd, std::size_t n) {
  std::vector<std::string> all;
  for (std::size_t k = 0; k < n; ++k) {
    const pipeline::ShardRange range = pipeline::seek_to_shard(fd, {k, n}, "f");
    CHECK(range.first_line == all.size() + 1);
    pipeline::LineReader reader(fd, nullptr, range.end - range.begin);
    std::vector<std::string> window;
    while (reader.next_window(window, 3)) all.insert(all.end(), window.begin(), window.end());
  }
  return all;
}

std::vector<std::string> read_whole(int fd) {
  REQUIRE(::lseek(fd, 0, SEEK_SET) == 0);
  pipeline::LineReader reader(fd);
  std::vector<std::string> all, window;
  while (reader.next_window(window, 1000)) all.insert(all.end(), window.begin(), window.end());
  return all;
}

}  // namespace

TEST_CASE("shard ranges hold the lines that start in their share of the bytes", "[pipeline]") {
  std::mt19937 gen(7);
  std::vector<std::string> files = {
      "",
      "\n",
      "one line without newline",
      "a\nb\n",
      "\n\n\n\n",
      "x\r\ny\r\n\r\nlast",
      std::string(5000, 'L') + "\nshort\n\n" + std::string(3000, 'M'),
  };
  for (int f = 0; f < 20; ++f) {  // random lines, empty ones included
    std::string bytes;
    const int lines = static_cast<int>(gen() % 40);
    for (int i = 0; i < lines; ++i)
      bytes += std::string(gen() % 4 == 0 ? 0 : gen() % 90, 'a' + static_cast<char>(i % 26)) +
               (gen() % 5 == 0 ? "\r\n" : "\n");
    if (gen() % 2) bytes += "tail";
    files.push_back(bytes);
  }
  const test::TempDir dir("shard");
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string& bytes = files[f];
    const OpenFile file(dir.write("f" + std::to_string(f), bytes));
    const std::vector<std::size_t> starts = line_starts(bytes);
    const std::vector<std::string> whole = read_whole(file.fd);
    for (std::size_t n : {1, 2, 3, 7, 16, 100}) {
      INFO("file " << f << " (" << bytes.size() << " bytes), " << n << " shards");
      std::uint64_t previous_end = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const pipeline::ShardRange range = pipeline::shard_range(file.fd, {k, n}, "f");
        INFO("shard " << k << ": [" << range.begin << ", " << range.end << ")");
        CHECK(range.begin == previous_end);
        CHECK(range.begin <= range.end);
        previous_end = range.end;
        // The definition: line starts in [k*size/n, (k+1)*size/n).
        const std::size_t from = k * bytes.size() / n, to = (k + 1) * bytes.size() / n;
        std::size_t first = 0, count = 0;
        for (std::size_t i = 0; i < starts.size(); ++i) {
          if (starts[i] < from) first = i + 1;
          if (starts[i] >= from && starts[i] < to) {
            CHECK(starts[i] >= range.begin);
            CHECK(starts[i] < range.end);
            ++count;
          }
        }
        CHECK(range.first_line == first + 1);
        if (count > 0) CHECK(range.begin == starts[first]);
      }
      CHECK(previous_end == bytes.size());
      CHECK(read_shards(file.fd, n) == whole);
    }
  }
}

TEST_CASE("shard K/N is parsed strictly", "[pipeline]") {
  const pipeline::Shard s = pipeline::parse_shard("3/16");
  CHECK(s.index == 3);
  CHECK(s.count == 16);
  CHECK(pipeline::shard_label(s) == "00003-of-00016");
  CHECK(pipeline::shard_label({123456, 200000}) == "123456-of-200000");
  CHECK(pipeline::parse_shard("0/1").whole());
  for (const char* bad : {"", "3", "3/", "/4", "a/b", "-1/4", "1/-4", "1/2/3", " 1/2", "1.0/2",
                          "4/4", "5/4", "0/0", "99999999999999999999/1"}) {
    INFO(bad);
    CHECK_THROWS_AS(pipeline::parse_shard(bad), UsageError);
  }
}

TEST_CASE("seek_to_line finds where a line starts", "[pipeline]") {
  const test::TempDir dir("shard");
  const OpenFile file(dir.write("f", "a\n\nccc\r\nd"));
  const auto position = [&] { return ::lseek(file.fd, 0, SEEK_CUR); };
  CHECK(pipeline::seek_to_line(file.fd, 1, "f"));
  CHECK(position() == 0);
  CHECK(pipeline::seek_to_line(file.fd, 2, "f"));
  CHECK(position() == 2);
  CHECK(pipeline::seek_to_line(file.fd, 3, "f"));
  CHECK(position() == 3);
  CHECK(pipeline::seek_to_line(file.fd, 4, "f"));
  CHECK(position() == 8);
  CHECK_FALSE(pipeline::seek_to_line(file.fd, 6, "f"));
  CHECK(position() == 9);
}

TEST_CASE("a pipe cannot be sharded", "[pipeline]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  CHECK_THROWS_AS(pipeline::shard_range(fds[0], {0, 2}, "pipe"), UsageError);
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace s2s

namespace s2s {

TEST_CASE("windows grow from one batch to maxi-batch, counted from the first line", "[pipeline]") {
  const pipeline::WindowSchedule w(32, 1000);  // boundaries 0 32 96 224 480 992 1992 2992 ...
  CHECK(w.end_after(0) == 32);
  CHECK(w.end_after(31) == 32);
  CHECK(w.end_after(32) == 96);
  CHECK(w.end_after(480) == 992);
  CHECK(w.end_after(991) == 992);
  CHECK(w.end_after(992) == 1992);
  CHECK(w.end_after(5000) == 5992);
  for (std::size_t b : {0, 32, 96, 224, 992, 1992, 2992}) CHECK(w.is_boundary(b));
  for (std::size_t b : {1, 33, 95, 1000, 2000}) CHECK_FALSE(w.is_boundary(b));
  CHECK(w.nearest(40) == 32);
  CHECK(w.nearest(70) == 96);
  CHECK(w.nearest(1492) == 992);  // a tie goes down
  CHECK(w.nearest(1493) == 1992);
  CHECK(w.nearest(96) == 96);
  const pipeline::WindowSchedule capped(5, 3);  // the first window is at most maxi-batch
  CHECK(capped.end_after(0) == 3);
  CHECK(capped.end_after(3) == 6);
  CHECK(capped.nearest(4) == 3);
}

TEST_CASE("a regular file of at most maxi-batch lines from its position is one window",
          "[pipeline]") {
  const test::TempDir dir("small_file_window");
  const auto schedule = [](int fd) { return pipeline::WindowSchedule::for_input(fd, "f", 2, 5); };
  const auto one_window = [](const pipeline::WindowSchedule& w) { return w.end_after(0) == 5; };
  for (const auto& [bytes, one] : std::vector<std::pair<std::string, bool>>{
           {"", true},
           {"a\nb\nc\nd\ne\n", true},      // 5 lines
           {"a\nb\nc\nd\ne", true},         // 5, the last without a newline
           {"a\nb\nc\nd\ne\nf", false},    // 6
           {"a\nb\nc\nd\ne\n\n", false},  // 6, the last empty
       }) {
    INFO(bytes);
    const OpenFile file(dir.write("f", bytes));
    CHECK(one_window(schedule(file.fd)) == one);
    CHECK(::lseek(file.fd, 0, SEEK_CUR) == 0);  // read with pread: the position stays
  }
  // Counted from the current position: 6 lines, the reader already past the first.
  const OpenFile file(dir.write("f", "a\nb\nc\nd\ne\nf\n"));
  CHECK_FALSE(one_window(schedule(file.fd)));
  REQUIRE(::lseek(file.fd, 2, SEEK_SET) == 2);
  CHECK(one_window(schedule(file.fd)));
  // A pipe grows its windows from the first size whatever it holds.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], "a\n", 2) == 2);
  ::close(fds[1]);
  const pipeline::WindowSchedule piped = schedule(fds[0]);
  ::close(fds[0]);
  CHECK(piped.end_after(0) == 2);
  CHECK(piped.end_after(2) == 6);
}

TEST_CASE("window-aligned shards start at window boundaries and cover the file in order",
          "[pipeline]") {
  const test::TempDir dir("shard_windows");
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes += i % 9 == 4 ? "\r\n" : "line " + std::to_string(i) + "\n";
  bytes += "no newline";  // 101 lines
  const OpenFile file(dir.write("f", bytes));
  const pipeline::WindowSchedule windows(4, 8);  // boundaries 0 4 12 20 28 ...
  const std::vector<std::string> whole = read_whole(file.fd);
  REQUIRE(whole.size() == 101);
  for (std::size_t n = 1; n <= 9; ++n) {
    INFO(n << " shards");
    std::vector<std::string> all;
    std::uint64_t end = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const pipeline::ShardRange range = pipeline::seek_to_shard(file.fd, {k, n}, "f", &windows);
      CHECK(range.begin == end);
      CHECK(range.first_line == all.size() + 1);
      if (range.end > range.begin) CHECK(windows.is_boundary(range.first_line - 1));
      end = range.end;
      pipeline::LineReader reader(file.fd, nullptr, range.end - range.begin);
      std::vector<std::string> window;
      while (reader.next_window(window, 5)) all.insert(all.end(), window.begin(), window.end());
    }
    CHECK(end == bytes.size());
    CHECK(all == whole);
  }
}

}  // namespace s2s
