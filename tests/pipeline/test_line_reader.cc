// LineReader on real pipes: windows fill from fast input, come back early when the writer
// pauses, and every byte of every line survives (CRLF, no final newline, empty lines, NUL).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "s2s/pipeline/line_reader.h"

namespace s2s {
namespace {

// A pipe whose ends close themselves.
struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { REQUIRE(::pipe(fds) == 0); }
  ~Pipe() {
    close_read();
    close_write();
  }
  int read_fd() const { return fds[0]; }
  int write_fd() const { return fds[1]; }
  void close_read() {
    if (fds[0] >= 0) ::close(fds[0]);
    fds[0] = -1;
  }
  void close_write() {
    if (fds[1] >= 0) ::close(fds[1]);
    fds[1] = -1;
  }
  void write(const std::string& data) const {
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(fds[1], data.data() + done, data.size() - done);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }
};

// All windows of a small input written (and closed) before reading starts.
std::vector<std::vector<std::string>> windows_of(const std::string& input, std::size_t max_lines) {
  Pipe pipe;
  pipe.write(input);
  pipe.close_write();
  pipeline::LineReader reader(pipe.read_fd());
  std::vector<std::vector<std::string>> windows;
  std::vector<std::string> lines;
  while (reader.next_window(lines, max_lines)) windows.push_back(lines);
  CHECK(lines.empty());
  return windows;
}

using Lines = std::vector<std::string>;

// Lets the test tell the writer thread when to go on.
class Gate {
 public:
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace

TEST_CASE("LineReader fills windows from input that is already there", "[pipeline]") {
  std::string input;
  for (int i = 0; i < 10; ++i) input += "line " + std::to_string(i) + "\n";
  const auto windows = windows_of(input, 4);
  REQUIRE(windows.size() == 3);
  CHECK(windows[0] == Lines{"line 0", "line 1", "line 2", "line 3"});
  CHECK(windows[1] == Lines{"line 4", "line 5", "line 6", "line 7"});
  CHECK(windows[2] == Lines{"line 8", "line 9"});
}

TEST_CASE("LineReader keeps every byte of a line", "[pipeline]") {
  SECTION("CRLF line ends lose the CR; a CR inside a line stays") {
    CHECK(windows_of("a\r\nb\r\n\r\nc\rd\n", 10) == std::vector<Lines>{{"a", "b", "", "c\rd"}});
  }
  SECTION("a last line without a newline is a line") {
    CHECK(windows_of("a\nlast", 10) == std::vector<Lines>{{"a", "last"}});
    CHECK(windows_of("a\r\nlast\r", 10) == std::vector<Lines>{{"a", "last"}});
    CHECK(windows_of("only", 10) == std::vector<Lines>{{"only"}});
  }
  SECTION("empty and blank lines") {
    CHECK(windows_of("\n\n  \n\n", 10) == std::vector<Lines>{{"", "", "  ", ""}});
    CHECK(windows_of("\n\n\n", 2) == std::vector<Lines>{{"", ""}, {""}});
  }
  SECTION("no input at all") { CHECK(windows_of("", 10).empty()); }
  SECTION("NUL bytes stay inside their line") {
    const std::string with_nul("a\0b", 3);
    CHECK(windows_of(with_nul + "\n" + with_nul, 10) == std::vector<Lines>{{with_nul, with_nul}});
  }
}

TEST_CASE("LineReader hands over what it has when the writer pauses", "[pipeline]") {
  Pipe pipe;
  Gate first_answered;
  std::thread writer([&] {
    pipe.write("one\ntwo\n");
    first_answered.wait();  // like an interactive user, wait for the answer before going on
    pipe.write("thr");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // half a line, then the rest
    pipe.write("ee\nfour");
    pipe.close_write();
  });
  pipeline::LineReader reader(pipe.read_fd());
  Lines lines;
  REQUIRE(reader.next_window(lines, 100));
  CHECK(lines == Lines{"one", "two"});  // returned early, not blocked waiting for 100 lines
  first_answered.open();
  Lines rest;
  while (reader.next_window(lines, 100)) rest.insert(rest.end(), lines.begin(), lines.end());
  writer.join();
  CHECK(rest == Lines{"three", "four"});  // a partial line is never handed over
}

TEST_CASE("LineReader reassembles lines split across reads of any size", "[pipeline]") {
  std::mt19937 gen(7);
  Lines expected;
  std::string input;
  for (int i = 0; i < 20000; ++i) {
    std::string line(gen() % 40, 'x');
    if (i % 1000 == 0) line.assign(150000, 'y');  // longer than one read
    line += std::to_string(i);
    expected.push_back(line);
    input += line + (i % 3 == 0 ? "\r\n" : "\n");
  }
  Pipe pipe;
  std::thread writer([&] {
    std::mt19937 chunks(11);
    for (std::size_t pos = 0; pos < input.size();) {
      const std::size_t n = std::min<std::size_t>(input.size() - pos, 1 + chunks() % 100000);
      pipe.write(input.substr(pos, n));
      pos += n;
    }
    pipe.close_write();
  });
  pipeline::LineReader reader(pipe.read_fd());
  Lines all, lines;
  while (reader.next_window(lines, 257)) {
    CHECK(lines.size() <= 257);
    all.insert(all.end(), lines.begin(), lines.end());
  }
  writer.join();
  REQUIRE(all.size() == expected.size());
  CHECK(all == expected);
}

}  // namespace s2s
