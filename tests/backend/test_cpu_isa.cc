// The CPU-instruction dispatch (backend/cpu_isa.h): S2S_CPU_ISA picks the kernels of any level this
// CPU has, `s2s info` says which run, and every level translates the shipped model alike.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli_runner.h"
#include "s2s/backend/cpu_isa.h"

using namespace s2s;

namespace {

// s2s with S2S_CPU_ISA set to `isa` (unset when empty); args go through the shell.
test::RunResult run_with_isa(const std::string& isa, const std::string& args,
                             const std::string& input = "") {
  const auto dir = test::temp_dir("isa");
  {
    std::ofstream in(dir / "stdin", std::ios::binary);
    in << input;
  }
  const std::string env = isa.empty() ? "env -u S2S_CPU_ISA " : "env S2S_CPU_ISA=" + isa + " ";
  return test::run_captured(
      env + "'" + test::s2s_binary() + "' " + args + " < '" + (dir / "stdin").string() + "'", dir);
}

// "text ||| WordScores= s1 s2 ..." -> the text and the scores.
struct Scored {
  std::string text;
  std::vector<double> scores;
};
std::vector<Scored> parse_word_scores(const std::string& out) {
  std::vector<Scored> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const std::size_t bar = line.find(" ||| WordScores=");
    REQUIRE(bar != std::string::npos);
    Scored s{line.substr(0, bar), {}};
    std::istringstream numbers(line.substr(bar + 16));
    for (double x; numbers >> x;) s.scores.push_back(x);
    lines.push_back(s);
  }
  return lines;
}

const char* const kInput =
    "The weather is nice today.\n"
    "Please restart the computer before installing the update.\n"
    "We met at the station and walked to the old town together.\n";

}  // namespace

TEST_CASE("s2s info names the ISA in use and S2S_CPU_ISA lowers it", "[cli][isa]") {
  const std::string detected = backend::isa_name(backend::detected_cpu_isa());
  const auto plain = run_with_isa("", "info");
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("cpu instructions: " + detected + " (this CPU: " + detected + ")\n") !=
        std::string::npos);
  for (const backend::CpuIsa isa : backend::runnable_isas()) {
    const std::string name = backend::isa_name(isa);
    const auto r = run_with_isa(name, "info");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("cpu instructions: " + name + " (this CPU: " + detected +
                     "; set by S2S_CPU_ISA)\n") != std::string::npos);
  }
}

TEST_CASE("S2S_CPU_ISA refuses an unknown level and one above the CPU's", "[cli][isa]") {
  const auto unknown = run_with_isa("sse9", "translate", "Hello.\n");
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.out.empty());
  CHECK(unknown.err.find("S2S_CPU_ISA=sse9: expected generic, avx2 or avx512") !=
        std::string::npos);
  CHECK(std::count(unknown.err.begin(), unknown.err.end(), '\n') == 1);
  if (backend::detected_cpu_isa() != backend::CpuIsa::avx512) {
    const auto above = run_with_isa("avx512", "translate", "Hello.\n");
    CHECK(above.exit_code != 0);
    CHECK(above.err.find("S2S_CPU_ISA=avx512: this CPU has at most") != std::string::npos);
  }
}

TEST_CASE("every ISA this CPU has translates the shipped model alike", "[cli][isa]") {
  const auto reference = run_with_isa("", "translate --word-scores", kInput);
  INFO(reference.err);
  REQUIRE(reference.exit_code == 0);
  const std::vector<Scored> expected = parse_word_scores(reference.out);
  REQUIRE(expected.size() == 3);
  for (const backend::CpuIsa isa : backend::runnable_isas()) {
    const std::string name = backend::isa_name(isa);
    INFO("S2S_CPU_ISA=" << name);
    const auto r = run_with_isa(name, "translate --word-scores", kInput);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<Scored> got = parse_word_scores(r.out);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].text == expected[i].text);
      REQUIRE(got[i].scores.size() == expected[i].scores.size());
      // Other kernels sum in other orders: log-probabilities agree to float32 rounding.
      for (std::size_t j = 0; j < got[i].scores.size(); ++j)
        CHECK(got[i].scores[j] == Approx(expected[i].scores[j]).margin(1e-3));
    }
  }
}
