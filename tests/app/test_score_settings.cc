// s2s score as a library pipeline (issue 18, part 3): its options come from score's settings
// table (so --config and --precision work and --help looks like translate's), its jsonl uses
// translate's keys and number format, and it reads its input as translate does (LineReader: an
// interactive writer gets each score before sending more).
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "child_process.h"
#include "cli_runner.h"
#include "fixtures.h"
#include "s2s/ops/precision.h"

namespace s2s {
namespace {

const std::string kModel = "marian-postnorm-swish-tiedall";
const std::string kPairs = "the license is free\tdie Lizenz ist frei\nhello\thallo\n";

std::string model_arg() { return "-m '" + test::data_path("models/" + kModel) + "'"; }

std::string write_config(const std::string& text) {
  const auto path = (test::temp_dir("score-config") / "score.yml").string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("score --config: score's keys apply, flags win, other keys are refused", "[cli]") {
  const auto plain = test::run_s2s("score " + model_arg(), kPairs);
  const auto flags = test::run_s2s("score -n 1 --word-scores " + model_arg(), kPairs);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(flags.exit_code == 0);
  REQUIRE(plain.out != flags.out);
  const std::string config = write_config("normalize: 1\nword-scores: true\nmini-batch: 64\n");
  const auto from_config = test::run_s2s("score --config '" + config + "' " + model_arg(), kPairs);
  INFO(from_config.err);
  CHECK(from_config.exit_code == 0);
  CHECK(from_config.out == flags.out);
  // A flag given on the command line wins over the file.
  const auto overridden =
      test::run_s2s("score --config '" + config + "' -n 0 --word-scores " + model_arg(), kPairs);
  const auto expected = test::run_s2s("score --word-scores " + model_arg(), kPairs);
  CHECK(overridden.out == expected.out);
  // translate's options are named as such; unknown keys as unknown.
  for (const auto& [text, message] :
       {std::pair<std::string, std::string>{"beam-size: 4\n", "'beam-size' is an option of s2s translate, not of score"},
        {"frobnicate: 1\n", "unknown option 'frobnicate' (see s2s score --help)"},
        {"normalize: loud\n", "normalize: 'loud' is not a number"}}) {
    const auto r = test::run_s2s("score --config '" + write_config(text) + "' " + model_arg(), kPairs);
    INFO(text << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(r.out.empty());
  }
  // And translate names score's options the same way.
  const auto to_translate =
      test::run_s2s("translate --config '" + write_config("summary: perplexity\n") + "' " + model_arg(), "x\n");
  CHECK(to_translate.exit_code == 2);
  CHECK(to_translate.err.find("'summary' is an option of s2s score, not of translate") !=
        std::string::npos);
}

TEST_CASE("score --precision: every precision scores, or this CPU's usage error", "[cli]") {
  const auto reference = test::run_s2s("score " + model_arg(), kPairs);
  REQUIRE(reference.exit_code == 0);
  for (const char* precision : {"float32", "bfloat16", "int8"}) {
    SECTION(precision) {
      const auto run = test::run_s2s(std::string("score --precision ") + precision + " " + model_arg(), kPairs);
      INFO(run.err);
      if (!ops::unsupported_reason(*ops::parse_precision(precision)).empty()) {
        CHECK(run.exit_code == 2);
        CHECK(run.err.find("needs a CPU with") != std::string::npos);
        CHECK(run.out.empty());
        continue;
      }
      CHECK(run.exit_code == 0);
      CHECK(run.err.empty());
      const std::vector<std::string> want = test::split_lines(reference.out);
      const std::vector<std::string> got = test::split_lines(run.out);
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i)  // close to float32, not necessarily equal
        CHECK(std::stod(got[i]) == Approx(std::stod(want[i])).margin(0.05 * std::fabs(std::stod(want[i])) + 0.05));
    }
  }
  const auto bad = test::run_s2s("score --precision float16 " + model_arg(), kPairs);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--precision: 'float16' is not a precision") != std::string::npos);
}

TEST_CASE("score jsonl: translate's keys, order and number format", "[cli]") {
  const auto scored = test::run_s2s("score --format jsonl " + model_arg(), kPairs);
  const auto translated = test::run_s2s("translate --format jsonl " + model_arg(), "the license is free\n");
  REQUIRE(scored.exit_code == 0);
  REQUIRE(translated.exit_code == 0);
  const auto keys = [](const std::string& line) {
    std::vector<std::string> found;
    const auto record = nlohmann::ordered_json::parse(line);
    for (const auto& item : record.items()) found.push_back(item.key());
    return found;
  };
  const std::vector<std::string> score_keys = keys(test::split_lines(scored.out)[0]);
  CHECK(score_keys == std::vector<std::string>{"score", "normalized_score", "tokens", "token_scores"});
  std::vector<std::string> translate_keys = keys(test::split_lines(translated.out)[0]);
  REQUIRE(translate_keys.front() == "translation");
  translate_keys.erase(translate_keys.begin());
  CHECK(translate_keys == score_keys);
  // Shortest round-trip floats (-1.23457), never a double expansion (-1.2345699071884155).
  for (const std::string& line : test::split_lines(scored.out)) {
    const auto record = nlohmann::json::parse(line);
    const std::string score = record["score"].dump();
    INFO(score);
    CHECK(score.size() <= 16);
    CHECK(static_cast<float>(std::stod(score)) == record["score"].get<float>());
  }
  const auto summary = test::run_s2s("score --summary --format jsonl " + model_arg(), kPairs);
  CHECK(nlohmann::json::parse(summary.out)["value"].dump().size() <= 16);
}

TEST_CASE("score --help: every option shows its type and default, as translate's", "[cli]") {
  const auto help = test::run_s2s("score --help");
  REQUIRE(help.exit_code == 0);
  for (const char* option :
       {"--normalize", "--word-scores", "--summary", "--format", "--batch-size", "--batch-tokens",
        "--max-length", "--long-lines", "--threads", "--precision", "--skip-bad", "--quiet",
        "--config", "--n-best-feature"}) {
    INFO(option);
    const std::size_t at = help.out.find(option);
    REQUIRE(at != std::string::npos);
    const std::size_t next_option = help.out.find("\n  -", at);
    CHECK(help.out.substr(at, next_option - at).find("[default: ") != std::string::npos);
  }
  CHECK(help.out.find("--max-length INT") != std::string::npos);
  CHECK(help.out.find("--precision PRECISION") != std::string::npos);
  const auto nbest_format = test::run_s2s("score --format nbest " + model_arg(), kPairs);
  CHECK(nbest_format.exit_code == 2);
  CHECK(nbest_format.err.find("score prints text or jsonl") != std::string::npos);
}

TEST_CASE("score: an interactive writer gets each score before sending more", "[cli]") {
  // Scored one pair per batch here: the same figures, up to the float sums' order.
  const auto expected = test::run_s2s("score --batch-size 1 " + model_arg(), kPairs);
  REQUIRE(expected.exit_code == 0);
  const std::vector<std::string> want = test::split_lines(expected.out);
  const std::vector<std::string> pairs = test::split_lines(kPairs);
  test::ChildProcess child(
      {test::s2s_binary(), "score", "-m", test::data_path("models/" + kModel)});
  const auto timeout = std::chrono::seconds(20);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    REQUIRE(child.write(pairs[i] + "\n"));
    const auto answer = child.read_line(timeout);
    REQUIRE(answer);
    CHECK(*answer == want[i]);
  }
  child.close_stdin();
  CHECK_FALSE(child.read_line(timeout));
  CHECK(child.wait() == 0);
  CHECK(child.err().empty());
}

}  // namespace s2s
