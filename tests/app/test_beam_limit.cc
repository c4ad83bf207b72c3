// Wide beams (issue 41 point 3): a beam whose hypotheses would take more than 1 GB for one
// sentence is refused before any input, with a message that gives the limit and why; at the
// largest allowed beam a SIGTERM at any moment still stops the run within a bound.
#include <chrono>
#include <csignal>
#include <random>
#include <regex>
#include <string>
#include <thread>

#include "child_process.h"
#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

// The largest beam the refusal of `-b 5000` names (0 when it does not).
long largest_beam(const std::string& message) {
  std::smatch match;
  if (!std::regex_search(message, match, std::regex("the largest beam is ([0-9]+)"))) return 0;
  return std::stol(match[1]);
}

// Sentences long enough that a wide beam is still searching them after seconds.
std::string long_input() {
  std::string input;
  for (int i = 0; i < 20; ++i)
    input += "If the program does not run, check that the file named in the configuration exists, "
             "that you may read it, and that no other copy of the program is writing to it.\n";
  return input;
}

}  // namespace

TEST_CASE("translate: a beam too large for the model is refused, naming the limit", "[cli]") {
  // The shipped model (no -m): 1.6 MB per hypothesis at --max-length 256.
  const auto refused = test::run_s2s("translate -b 5000", "Could not open the file.\n");
  CHECK(refused.exit_code == 2);
  CHECK(refused.out.empty());
  INFO(refused.err);
  CHECK(test::count_lines(refused.err) == 1);
  CHECK(refused.err.find("s2s: error: --beam-size 5000 is more than this model can take") == 0);
  CHECK(refused.err.find("1.0 GB") != std::string::npos);  // why: the memory of one sentence
  const long limit = largest_beam(refused.err);
  CHECK(limit > 100);   // beams people use stay allowed
  CHECK(limit < 5000);
  CHECK(test::run_s2s("translate -b " + std::to_string(limit + 1), "x\n").exit_code == 2);
  // A smaller --max-length needs less per hypothesis: the same beam is then allowed.
  const auto shorter = test::run_s2s("translate -b " + std::to_string(limit + 1) +
                                     " --max-length 64", "Could not open the file.\n");
  CHECK(shorter.exit_code == 0);
  // Sampling without --n-best draws one sample per line whatever the beam size.
  CHECK(test::run_s2s("translate --sampling -b 5000", "Could not open the file.\n").exit_code == 0);
}

TEST_CASE("translate: SIGTERM stops the largest allowed beam within a bound", "[cli]") {
  const long limit = largest_beam(test::run_s2s("translate -b 5000", "x\n").err);
  REQUIRE(limit > 0);
  std::mt19937 random(std::random_device{}());
  for (int run = 0; run < 3; ++run) {
    test::ChildProcess child({test::s2s_binary(), "translate", "-b", std::to_string(limit)});
    REQUIRE(child.write(long_input()));
    child.close_stdin();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (child.thread_count() < 2 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(child.thread_count() >= 2);  // the signal watcher runs: SIGTERM is handled
    const int delay_ms = std::uniform_int_distribution<int>(200, 4000)(random);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    const auto sent = std::chrono::steady_clock::now();
    child.send_signal(SIGTERM);
    CHECK(child.wait() == 143);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - sent).count();
    INFO("beam " << limit << ", SIGTERM after " << delay_ms << " ms, stopped in " << ms << " ms");
    CHECK(ms < 1500);
  }
}

}  // namespace s2s
