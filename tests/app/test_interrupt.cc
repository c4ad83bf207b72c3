// Ctrl-C (SIGINT) during translate: the run stops within a decoder step, every line before the
// first unfinished one is written, in order and exactly as an uninterrupted run writes it, and
// the exit code is 130 with one line on stderr saying how many lines were written. An inherited
// SIG_IGN is kept. tests/app/interrupt_loop.sh interrupts the shipped model at random moments.
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kModel = "models/marian-postnorm-swish-tiedall";

}  // namespace

TEST_CASE("translate: Ctrl-C writes every line finished so far, in order, and exits 130", "[cli]") {
  const auto dir = test::temp_dir("interrupt");
  const char* const words[] = {"the", "license", "is", "free", "software", "copy", "world", "of"};
  std::string input;
  for (int i = 0; i < 20000; ++i) {
    std::string line;
    for (int w = 0; w < 3 + i % 9; ++w) line += (w ? " " : "") + std::string(words[(i + w * 3) % 8]);
    input += line + "\n";
  }
  std::ofstream(dir / "in.txt", std::ios::binary) << input;

  const std::string model = test::data_path(kModel);
  // One worker, and two (their threads kept across windows: they must stop too).
  for (const std::vector<std::string>& parallel :
       {std::vector<std::string>{"--threads", "1"},
        std::vector<std::string>{"--workers", "2", "--threads", "1"}}) {
    INFO(parallel.front());
    std::vector<std::string> args{
        test::s2s_binary(), "translate", "-b", "4", "-m", model, "-i", (dir / "in.txt").string()};
    args.insert(args.end(), parallel.begin(), parallel.end());
    test::ChildProcess child(args);
    // Lines come out as they are finished, long before the first 1000-line window is done.
    const auto first = child.read_line(std::chrono::seconds(60));
    REQUIRE(first);
    child.send_signal(SIGINT);
    std::string out = *first + "\n";
    while (const auto line = child.read_line(std::chrono::seconds(60))) out += *line + "\n";
    CHECK(child.wait() == 130);
    const std::size_t written = test::count_lines(out);
    CHECK(written >= 1);
    CHECK(written < 20000);  // stopped long before the end (20,000 lines take about a minute)
    CHECK(child.err() == "s2s: interrupted: the first " + std::to_string(written) +
                             (written == 1 ? " line" : " lines") +
                             " written, the rest not translated\n");

    // What was written is exactly what an uninterrupted run writes for those lines.
    std::size_t prefix_end = 0;
    for (std::size_t i = 0; i < written; ++i) prefix_end = input.find('\n', prefix_end) + 1;
    const auto reference =
        test::run_s2s("translate -b 4 --threads 1 -m '" + model + "'", input.substr(0, prefix_end));
    REQUIRE(reference.exit_code == 0);
    CHECK(out == reference.out);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("translate: Ctrl-C while waiting for input ends the run at once", "[cli]") {
  test::ChildProcess child(
      {test::s2s_binary(), "translate", "-b", "1", "-m", test::data_path(kModel)});
  REQUIRE(child.write("the license is free\n"));
  REQUIRE(child.read_line(std::chrono::seconds(20)));
  child.send_signal(SIGINT);  // stdin is still open: s2s is blocked in read(2)
  CHECK_FALSE(child.read_line(std::chrono::seconds(20)));
  CHECK(child.wait() == 130);
  CHECK(child.err() == "s2s: interrupted: the first 1 line written, the rest not translated\n");
}

TEST_CASE("translate: Ctrl-C before the output is opened leaves an -o file as it was", "[cli]") {
  // The input is a FIFO nobody writes to: s2s waits in open(2), before it opens its output.
  const auto dir = test::temp_dir("interrupt-early");
  const auto fifo = dir / "in.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto out = dir / "out.txt";
  std::ofstream(out, std::ios::binary) << "an earlier run's output\n";
  test::ChildProcess child({test::s2s_binary(), "translate", "-m", test::data_path(kModel), "-i",
                            fifo.string(), "-o", out.string()});
  // Until main has started the signal watcher, a SIGINT would end the process by the default
  // action (the dynamic loader runs first): wait for the watcher's thread.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (child.thread_count() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(child.thread_count() >= 2);
  child.send_signal(SIGINT);
  CHECK(child.wait() == 130);
  CHECK(child.err() == "s2s: interrupted before any output was written\n");
  CHECK(test::read_file(out) == "an earlier run's output\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("translate: a SIGINT ignored by the parent stays ignored", "[cli]") {
  // As for `s2s translate ... &` from a script: a non-interactive shell starts it ignoring SIGINT.
  std::signal(SIGINT, SIG_IGN);
  test::ChildProcess child(
      {test::s2s_binary(), "translate", "-b", "1", "-m", test::data_path(kModel)});
  std::signal(SIGINT, SIG_DFL);
  REQUIRE(child.write("the license is free\n"));
  const auto first = child.read_line(std::chrono::seconds(20));
  REQUIRE(first);
  child.send_signal(SIGINT);
  REQUIRE(child.write("the world\n"));
  CHECK(child.read_line(std::chrono::seconds(20)));  // still translating
  child.close_stdin();
  CHECK(child.wait() == 0);
  CHECK(child.err().empty());
}

}  // namespace s2s
