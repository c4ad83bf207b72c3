// s2s translate's options and output formats, run for real: Marian's n-best layout, JSON lines,
// where options come from (defaults < model decoder.yml < --config < flags), configs/, and
// usage errors (exit 2, one line naming the culprit).
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

// Its decoder.yml says beam-size 4 and normalize 1.
const std::string kModel = "marian-postnorm-swish-tiedall";
const std::string kInput = "the license is free\n\n  \ncopy this software\n";
const int kInputLines = 4;

std::string model_arg(const std::string& name = kModel) {
  return "-m '" + test::data_path("models/" + name) + "'";
}

struct NbestLine {
  int id = -1;
  std::string text, f0, normalized;
};

std::vector<NbestLine> parse_nbest(const std::string& out) {
  std::vector<NbestLine> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t end; (end = line.find(" ||| ", start)) != std::string::npos; start = end + 5)
      fields.push_back(line.substr(start, end - start));
    fields.push_back(line.substr(start));
    INFO(line);
    REQUIRE(fields.size() == 4);
    REQUIRE(fields[2].rfind("F0= ", 0) == 0);
    lines.push_back({std::stoi(fields[0]), fields[1], fields[2].substr(4), fields[3]});
  }
  return lines;
}

// Hypotheses printed per input line id.
std::map<int, int> hypotheses_per_line(const std::string& out) {
  std::map<int, int> counts;
  for (const NbestLine& l : parse_nbest(out)) ++counts[l.id];
  return counts;
}

// The beam size in effect: with --n-best, Marian's beam search returns exactly beam-size
// hypotheses per sentence.
int beam_in_effect(const std::string& args, const std::string& model = kModel) {
  const auto r = test::run_s2s("translate --format nbest --n-best " + args + " " + model_arg(model),
                               "the license is free\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return hypotheses_per_line(r.out)[0];
}

// True when the n-best list's final scores are its F0 scores (no length normalisation).
bool unnormalized(const std::string& args) {
  const auto r = test::run_s2s("translate --format nbest " + args + " " + model_arg(), kInput);
  REQUIRE(r.exit_code == 0);
  const auto lines = parse_nbest(r.out);
  return std::all_of(lines.begin(), lines.end(),
                     [](const NbestLine& l) { return l.f0 == l.normalized; });
}

std::string write_config(const std::filesystem::path& dir, const std::string& text) {
  static int n = 0;
  const auto path = dir / ("config" + std::to_string(n++) + ".yml");
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

}  // namespace

TEST_CASE("translate --format nbest: id ||| text ||| F0= score ||| normalized", "[cli]") {
  const auto text = test::run_s2s("translate -b 3 " + model_arg(), kInput);
  REQUIRE(text.exit_code == 0);
  const auto nbest = test::run_s2s("translate -b 3 --n-best --format nbest " + model_arg(), kInput);
  INFO(nbest.err);
  REQUIRE(nbest.exit_code == 0);
  const auto lines = parse_nbest(nbest.out);
  CHECK(hypotheses_per_line(nbest.out) == std::map<int, int>{{0, 3}, {1, 1}, {2, 1}, {3, 3}});
  for (std::size_t i = 1; i < lines.size(); ++i) CHECK(lines[i - 1].id <= lines[i].id);
  // The first hypothesis of each line is the text output; blank lines get an empty record.
  std::istringstream best(text.out);
  for (int id = 0; id < kInputLines; ++id) {
    std::string expected;
    std::getline(best, expected);
    const auto first =
        std::find_if(lines.begin(), lines.end(), [&](const NbestLine& l) { return l.id == id; });
    REQUIRE(first != lines.end());
    CHECK(first->text == expected);
  }
  CHECK(lines[3].text.empty());
  CHECK(lines[3].f0 == "0");
  CHECK(lines[3].normalized == "0");

  SECTION("without --n-best, the best hypothesis only") {
    const auto r = test::run_s2s("translate -b 3 --format nbest " + model_arg(), kInput);
    CHECK(hypotheses_per_line(r.out) == std::map<int, int>{{0, 1}, {1, 1}, {2, 1}, {3, 1}});
  }
}

TEST_CASE("translate --format jsonl: one JSON object per line", "[cli]") {
  const auto text = test::run_s2s("translate -b 2 " + model_arg(), kInput);
  const auto r = test::run_s2s("translate -b 2 --n-best --format jsonl " + model_arg(), kInput);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(test::count_lines(r.out) == kInputLines);
  std::istringstream records(r.out), best(text.out);
  for (std::string record, expected;
       std::getline(records, record) && std::getline(best, expected);) {
    const auto j = nlohmann::json::parse(record);
    CHECK(j.at("translation") == expected);
    REQUIRE(j.at("tokens").size() == j.at("token_scores").size());
    double sum = 0;
    for (const auto& s : j["token_scores"]) sum += s.get<double>();
    CHECK(j.at("score").get<double>() == Approx(sum).epsilon(1e-4));
    CHECK(j.at("n_best").size() == (expected.empty() ? 0u : 2u));
  }
  const auto plain = test::run_s2s("translate -b 2 --format jsonl " + model_arg(), "copy this\n");
  CHECK_FALSE(nlohmann::json::parse(plain.out).contains("n_best"));
}

TEST_CASE("translate: a bare -n means normalize 1", "[cli]") {
  for (const char* args : {"--config /dev/null -n --format jsonl", "--format jsonl -n"}) {
    INFO(args);
    const auto r = test::run_s2s(std::string("translate -b 2 ") + args + " " + model_arg(),
                                 "copy this software\n");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    const double length = static_cast<double>(j.at("tokens").size());
    CHECK(j.at("normalized_score").get<double>() ==
          Approx(j.at("score").get<double>() / length).epsilon(1e-5));
  }
  CHECK(unnormalized("-n 0"));
  CHECK_FALSE(unnormalized("-n 0.5"));
}

TEST_CASE("translate: defaults < model decoder.yml < --config < flags", "[cli]") {
  const auto dir = test::temp_dir("precedence");
  const std::string beam2 = write_config(dir, "beam-size: 2\nnormalize: 0\n");
  CHECK(beam_in_effect("", "marian-ffn3-learnedpos-legacyW") == 12);  // no decoder.yml
  CHECK(beam_in_effect("") == 4);                                     // decoder.yml
  CHECK(beam_in_effect("-b 1") == 1);
  CHECK(beam_in_effect("--config '" + beam2 + "'") == 2);
  CHECK(beam_in_effect("--config '" + beam2 + "' -b 3") == 3);
  CHECK(beam_in_effect("-b 3 --config '" + beam2 + "'") == 3);  // flags win wherever they are
  // normalize 1 comes from decoder.yml; the config turns it off; a flag turns it back on.
  CHECK_FALSE(unnormalized(""));
  CHECK(unnormalized("--config '" + beam2 + "'"));
  CHECK_FALSE(unnormalized("--config '" + beam2 + "' --normalize 1"));
  // Marian's names for the batch options are accepted in --config.
  const std::string marian =
      write_config(dir, "mini-batch: 2\nmini-batch-words: 0\ncpu-threads: 1\n");
  CHECK(test::run_s2s("translate --config '" + marian + "' " + model_arg(), kInput).exit_code == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("translate: every file in configs/ is accepted by --config", "[cli]") {
  const auto configs = std::filesystem::path(S2S_TEST_DATA).parent_path().parent_path() / "configs";
  std::map<std::string, int> beams;
  for (const auto& entry : std::filesystem::directory_iterator(configs)) {
    INFO(entry.path());
    const auto r =
        test::run_s2s("translate --config '" + entry.path().string() + "' " + model_arg(), kInput);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(test::count_lines(r.out) == kInputLines);
    beams[entry.path().filename().string()] =
        beam_in_effect("--config '" + entry.path().string() + "'");
  }
  CHECK(beams["fast.yml"] == 1);
  CHECK(beams["quality.yml"] == 6);
  // By name: the shipped config (the build folder's configs link; share/s2s/configs installed).
  CHECK(beam_in_effect("--config fast") == 1);
  CHECK(beam_in_effect("--config quality") == 6);
  const auto r = test::run_s2s("translate --config fastest " + model_arg(), kInput);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--config fastest: no such file, nor a shipped config fastest.yml") !=
        std::string::npos);
}

TEST_CASE("translate: bad options are usage errors in one line", "[cli]") {
  const auto dir = test::temp_dir("badopts");
  auto usage_error = [](const std::string& args, const std::string& expected_text) {
    // -m names no model: option errors are reported before a model is loaded.
    const auto r = test::run_s2s("translate -m /nonexistent/model " + args, "hello\n");
    INFO(args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.err.find(expected_text) != std::string::npos);
    CHECK(r.out.empty());
  };
  const std::string unknown = write_config(dir, "beam-size: 2\nbeam-sise: 3\n");
  usage_error("--config '" + unknown + "'", "'beam-sise'");
  usage_error("--config '" + unknown + "'", unknown);
  usage_error("--config '" + write_config(dir, "beam-size: two\n") + "'", "beam-size: 'two'");
  usage_error("--config '" + write_config(dir, "format: xml\n") + "'", "format: 'xml'");
  usage_error("--config '" + write_config(dir, "beam-size: [1, 2]\n") + "'", "beam-size");
  usage_error("--config '" + write_config(dir, "beam-size: [1, 2\n") + "'", "not valid YAML");
  usage_error("--config '" + (dir / "missing.yml").string() + "'", "missing.yml");
  usage_error("--format bogus", "--format");
  usage_error("-b 0", "--beam-size");
  usage_error("--normalize abc", "--normalize");
  usage_error("--threads -1", "--threads");
  usage_error("--workers 0", "--workers");
  usage_error("--precision int4", "--precision");
  usage_error("--max-length-factor 0", "--max-length-factor");
  std::filesystem::remove_all(dir);
}

TEST_CASE("translate: a bad value in the model's decoder.yml is a model error", "[cli]") {
  const auto dir = test::temp_dir("badmodel");
  const auto model = dir / "model";
  std::filesystem::copy(test::data_path("models/" + kModel), model);
  {
    std::ofstream yml(model / "decoder.yml", std::ios::app);
    yml << "unknown-marian-key: 3\n";  // ignored: Marian writes many keys
  }
  auto run = [&] { return test::run_s2s("translate -m '" + model.string() + "'", "hello\n"); };
  CHECK(run().exit_code == 0);
  std::string yml = test::read_file(model / "decoder.yml");
  REQUIRE(yml.find("beam-size: 4") != std::string::npos);
  yml.replace(yml.find("beam-size: 4"), 12, "beam-size: many");
  std::ofstream(model / "decoder.yml", std::ios::binary) << yml;
  const auto r = run();
  CHECK(r.exit_code == 1);
  CHECK(test::count_lines(r.err) == 1);
  CHECK(r.err.find("decoder.yml: beam-size: 'many'") != std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace s2s
