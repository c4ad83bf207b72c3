// LineReader over a pipe. Input layout: byte 0 picks the writer's chunk size (1 << (b % 17)
// bytes), byte 1 seeds the sequence of window sizes (max_lines 0..8, sometimes 1000); the rest is
// the text. A writer thread feeds the text in chunks, so lines arrive split across reads.
//
// Checked, beyond "no crash": every window has 1..max_lines lines (max_lines 0 counts as 1), the
// end is reported once with no lines and stays reported, and the lines are exactly the text split
// on '\n' (no line after a final '\n'), each without one trailing '\r' (line_reader.h).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "fuzz_common.h"
#include "s2s/pipeline/line_reader.h"

namespace {

std::vector<std::string> reference_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "s2s fuzz: LineReader broke its contract: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // If the reader stopped early, the writer must get EPIPE, not die of SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t chunk = std::size_t{1} << (data[0] % 17);
  std::uint32_t state = data[1];
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);

  int fds[2];
  check(pipe(fds) == 0, "pipe() failed");
  std::thread writer([&text, chunk, fd = fds[1]] {
    for (std::size_t pos = 0; pos < text.size();) {
      const ssize_t n = write(fd, text.data() + pos, std::min(chunk, text.size() - pos));
      if (n <= 0) break;  // the reader closed its end
      pos += static_cast<std::size_t>(n);
    }
    close(fd);
  });

  std::vector<std::string> all, window;
  bool ended = false, windows_ok = true, end_stays = true;
  s2s::fuzz::expect_clean([&] {
    s2s::pipeline::LineReader reader(fds[0]);
    while (true) {
      state = state * 1103515245u + 12345u;  // a small LCG: deterministic window sizes
      const std::size_t max_lines = (state >> 16) % 10 == 9 ? 1000 : (state >> 16) % 10;
      if (!reader.next_window(window, max_lines)) {
        windows_ok = windows_ok && window.empty();
        ended = true;
        break;
      }
      windows_ok =
          windows_ok && !window.empty() && window.size() <= std::max<std::size_t>(max_lines, 1);
      all.insert(all.end(), window.begin(), window.end());
    }
    end_stays = !reader.next_window(window, 1) && window.empty();
  });
  close(fds[0]);
  writer.join();

  check(ended, "never reported the end of input");
  check(windows_ok, "a window was empty or larger than max_lines");
  check(end_stays, "returned lines after reporting the end");
  check(all == reference_lines(text), "the lines are not the input split on '\\n'");
  return 0;
}
