// The shipped default model (models/en-de, trained by tools/train/): s2s finds it without -m and
// its greedy translations equal, token for token, those of the PyTorch model it was exported
// from (export fidelity). tests/data/en-de/fidelity.tsv holds held-out sources and PyTorch's
// target pieces, written by tools/train/check_fidelity.py, so this test needs no PyTorch.
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

struct FidelityCase {
  std::string source;
  std::vector<std::string> pieces;
};

std::vector<FidelityCase> read_cases() {
  std::ifstream in(test::data_path("en-de/fidelity.tsv"), std::ios::binary);
  std::vector<FidelityCase> cases;
  for (std::string line; std::getline(in, line);) {
    const std::size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    FidelityCase c{line.substr(0, tab), {}};
    std::istringstream pieces(line.substr(tab + 1));
    for (std::string p; pieces >> p;) c.pieces.push_back(p);
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

TEST_CASE("default model: greedy translations equal the PyTorch model's, token for token",
          "[cli][default-model]") {
  const std::vector<FidelityCase> cases = read_cases();
  REQUIRE(cases.size() >= 20);
  std::string input;
  for (const FidelityCase& c : cases) input += c.source + "\n";
  // No -m: the default model is found next to the binary (build/s2s -> models/en-de). The model
  // alone, as check_fidelity.py runs it (S2S_MODEL_ONLY): lines whole, as PyTorch read them (some
  // hold several sentences), nothing masked, one search.
  const auto result = test::run_s2s(
      "translate -b 1 --sentence-split off --protect off --short-translations off --format jsonl",
      input);
  REQUIRE(result.exit_code == 0);
  std::istringstream out(result.out);
  std::size_t i = 0;
  for (std::string line; std::getline(out, line); ++i) {
    REQUIRE(i < cases.size());
    std::vector<std::string> tokens = nlohmann::json::parse(line).at("tokens");
    if (!tokens.empty() && tokens.back() == "</s>") tokens.pop_back();
    INFO("line " << i + 1 << ": " << cases[i].source);
    CHECK(tokens == cases[i].pieces);
  }
  CHECK(i == cases.size());
}

TEST_CASE("default model: the README's sentence comes out in German", "[cli][default-model]") {
  const auto result = test::run_s2s(
      "translate", "This package provides a command-line tool for translating text.\n");
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.rfind("Dieses Paket", 0) == 0);
  CHECK(test::count_lines(result.out) == 1);
}

TEST_CASE("default model: found when s2s is started through PATH from elsewhere",
          "[cli][default-model]") {
  // argv[0] is then the bare name "s2s", which must not be taken for a shared library's path.
  const std::string folder = std::filesystem::path(test::s2s_binary()).parent_path().string();
  const auto result = test::run_shell("printf 'The licence is free.\\n' | env -u S2S_MODEL PATH='" +
                                          folder + "':\"$PATH\" s2s translate",
                                      "/");
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(test::count_lines(result.out) == 1);
}

}  // namespace s2s
