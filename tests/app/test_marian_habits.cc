// What a Marian user types works (issue 41): -c/--config with a Marian decoder.yml, Marian's
// options s2s ignores (one note) or refuses (one line saying why), --word-scores, --tsv, the
// docs' table of every Marian option.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "s2s/pipeline/marian_options.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kFolder = test::data_path("models/marian-postnorm-swish-tiedall");
const std::string kModel = "-m '" + kFolder + "' ";
const std::string kInput = "the license is free\n\ncopy this software and the program\n";

void check_usage_error(const test::RunResult& r, const std::string& message) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(test::count_lines(r.err) == 1);
  CHECK(r.err.find(message) != std::string::npos);
  CHECK(r.out.empty());
}

std::string write_config(const std::string& name, const std::string& text) {
  static const auto dir = test::temp_dir("marian_habits");
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

// A value Marian's option accepts in YAML.
std::string yaml_value(const pipeline::MarianOption& option) {
  return option.takes_values ? "[1]" : "true";
}

}  // namespace

TEST_CASE("translate -c decoder.yml: Marian's decoder config works, one note lists the ignored",
          "[cli]") {
  const auto plain = test::run_s2s("translate " + kModel + "--quiet", kInput);
  REQUIRE(plain.exit_code == 0);
  // Its `models` names the model (relative-paths), as marian-decoder -c decoder.yml.
  const std::string decoder_yml = kFolder + "/decoder.yml";
  const auto config = test::run_s2s("translate -c '" + decoder_yml + "'", kInput);
  INFO(config.err);
  CHECK(config.exit_code == 0);
  CHECK(config.out == plain.out);
  CHECK(config.err == "s2s: ignored, as they do not apply to s2s on the CPU "
                      "(docs/marian-options.md says why): vocabs, mini-batch, maxi-batch in " +
                          decoder_yml + "\n");
  const auto long_name = test::run_s2s("translate --config '" + decoder_yml + "' --quiet", kInput);
  CHECK(long_name.exit_code == 0);
  CHECK(long_name.err.empty());
  CHECK(long_name.out == plain.out);
  // -m wins over `models`, and says so.
  const auto both = test::run_s2s("translate " + kModel + "-c '" + decoder_yml + "'", kInput);
  CHECK(both.exit_code == 0);
  CHECK(both.err.find("maxi-batch, models (-m given) in ") != std::string::npos);

  // The keys s2s implements apply: beam-size 1 from the config changes the n-best list.
  const std::string greedy = write_config("greedy.yml", "relative-paths: true\nbeam-size: 1\n"
                                                        "max-length-crop: true\nworkspace: 512\n"
                                                        "devices: [0, 1]\nlog-level: warn\n");
  const auto one = test::run_s2s("translate " + kModel + "-c '" + greedy + "' --n-best", kInput);
  CHECK(one.exit_code == 0);
  CHECK(test::count_lines(one.out) == 3);  // one hypothesis per line
  CHECK(one.err.find("relative-paths, workspace, devices, log-level in ") != std::string::npos);

  // An ensemble, a key only Marian's training has, and an unknown key are errors.
  check_usage_error(test::run_s2s("translate -c '" + write_config("two.yml", "models: [a.npz, b.npz]\n") + "'"),
                    "models: s2s decodes with one model (2 given: ensembles are not supported)");
  check_usage_error(test::run_s2s("translate " + kModel + "-c '" + write_config("train.yml", "after-epochs: 3\n") + "'"),
                    "unknown option 'after-epochs'");
  check_usage_error(test::run_s2s("translate " + kModel + "-c '" + write_config("frob.yml", "frobnicate: 1\n") + "'"),
                    "unknown option 'frobnicate'");
}

TEST_CASE("translate and score: every Marian option ignored is accepted, every refused says why",
          "[cli]") {
  for (const auto& [command, tool] : {std::pair{"translate", pipeline::kDecoder},
                                      std::pair{"score", pipeline::kScorer}}) {
    std::string ignored_yaml, ignored_flags, keys;
    for (const pipeline::MarianOption& option : pipeline::marian_options()) {
      if ((option.tools & tool) == 0) continue;
      const std::string flag = std::string("--") + option.name;
      if (option.use == pipeline::MarianUse::refused) {
        INFO(command << " " << flag);
        check_usage_error(test::run_s2s(std::string(command) + " " + kModel + flag + " 1"),
                          std::string(option.name) == "vocabs"
                              ? "-v/--vocabs: s2s takes the vocabularies from the model folder"
                              : flag + ": " + option.what);
        if (std::string(option.name) != "vocabs")  // in a config file it is ignored
          check_usage_error(test::run_s2s(std::string(command) + " " + kModel + "-c '" +
                                          write_config("refused.yml", std::string(option.name) +
                                                                          ": " + yaml_value(option) + "\n") +
                                          "'"),
                            std::string(option.name) + ": " + option.what);
      } else if (option.use == pipeline::MarianUse::ignored) {
        ignored_yaml += std::string(option.name) + ": " + yaml_value(option) + "\n";
        ignored_flags += " " + flag + (option.takes_values ? " 1" : "");
        keys += (keys.empty() ? "" : ", ") + std::string(option.name);
      }
    }
    const std::string input = std::string(command) == "score" ? "a\tb\n" : "a\n";
    const auto plain = test::run_s2s(std::string(command) + " " + kModel, input);
    const auto flags = test::run_s2s(std::string(command) + " " + kModel + ignored_flags, input);
    INFO(command << ": " << flags.err);
    CHECK(flags.exit_code == 0);
    CHECK(flags.out == plain.out);
    CHECK(test::count_lines(flags.err) == 1);
    const std::string config = write_config(std::string(command) + ".yml", ignored_yaml);
    const auto yaml = test::run_s2s(std::string(command) + " " + kModel + "-c '" + config + "'", input);
    INFO(yaml.err);
    CHECK(yaml.exit_code == 0);
    CHECK(yaml.out == plain.out);
    CHECK(yaml.err.find(keys + " in " + config + "\n") != std::string::npos);
    CHECK(test::count_lines(yaml.err) == 1);
  }
}

TEST_CASE("translate: -w and -d are accepted with a note, knn refused", "[cli]") {
  const auto plain = test::run_s2s("translate " + kModel, kInput);
  const auto gpu = test::run_s2s("translate " + kModel + "-w 512 -d 0 1", kInput);
  INFO(gpu.err);
  CHECK(gpu.exit_code == 0);
  CHECK(gpu.out == plain.out);
  CHECK(gpu.err == "s2s: ignored, as they do not apply to s2s on the CPU "
                   "(docs/marian-options.md says why): --workspace, --devices\n");
  CHECK(test::run_s2s("translate " + kModel + "-w 512 --quiet", kInput).err.empty());
  const auto missing =
      test::run_s2s("translate " + kModel + "--shortlist /nonexistent/lex.s2t 100");
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("/nonexistent/lex.s2t: no such shortlist file") != std::string::npos);
  check_usage_error(test::run_s2s("translate " + kModel + "--output-approx-knn"),
                    "s2s: error: --output-approx-knn: not supported");
}

TEST_CASE("translate --word-scores: Marian's WordScores field in text and n-best lines", "[cli]") {
  const std::string model = kModel + "-b 2 ";
  const auto json = test::run_s2s("translate " + model + "--n-best --format jsonl", kInput);
  REQUIRE(json.exit_code == 0);
  std::vector<nlohmann::json> records;
  for (const std::string& line : test::split_lines(json.out)) records.push_back(nlohmann::json::parse(line));
  REQUIRE(records.size() == 3);
  // The record's translation and its WordScores field (Marian prints each score with 5
  // decimals: within 1e-5 of the token score).
  const auto check_record = [](const std::string& record, const std::string& translation,
                               const nlohmann::json& hypothesis) {
    const std::string field = " ||| WordScores=";
    const std::size_t at = record.find(field);
    REQUIRE(at != std::string::npos);
    CHECK(record.substr(0, at) == translation);
    std::istringstream scores(record.substr(at + field.size()));
    std::vector<double> printed;
    for (std::string score; scores >> score && score != "|||";) {
      CHECK(score.size() - score.find('.') == 6);  // 5 decimals
      printed.push_back(std::stod(score));
    }
    const auto& expected = hypothesis["token_scores"];
    REQUIRE(printed.size() == expected.size());
    for (std::size_t i = 0; i < printed.size(); ++i)
      CHECK(std::abs(printed[i] - expected[i].get<double>()) <= 1e-5);
  };
  const auto text = test::run_s2s("translate " + model + "--word-scores", kInput);
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  const std::vector<std::string> lines = test::split_lines(text.out);
  REQUIRE(lines.size() == 3);
  check_record(lines[0], records[0]["translation"], records[0]);
  CHECK(lines[1].empty());
  check_record(lines[2], records[2]["translation"], records[2]);

  const auto nbest = test::run_s2s("translate " + model + "--n-best --word-scores --alignment", kInput);
  REQUIRE(nbest.exit_code == 0);
  const std::vector<std::string> nbest_lines = test::split_lines(nbest.out);
  REQUIRE(nbest_lines.size() == 5);
  const nlohmann::json& first = records[0]["n_best"][0];
  // id ||| translation ||| alignment ||| WordScores= ... ||| F0= ... ||| normalized
  const std::string& line = nbest_lines[0];
  const std::size_t alignment = line.find(" ||| ", 6);
  const std::size_t word_scores = line.find(" ||| WordScores=");
  REQUIRE(word_scores != std::string::npos);
  CHECK(line.find(" ||| ", alignment + 5) == word_scores);
  check_record(line.substr(0, alignment) + line.substr(word_scores),
               "0 ||| " + first["translation"].get<std::string>(), first);
  CHECK(line.find(" ||| F0= ", word_scores) != std::string::npos);
  CHECK(nbest_lines[2] == "1 |||  |||  ||| WordScores= ||| F0= 0 ||| 0");
  // From a config file too.
  const auto config = test::run_s2s(
      "translate " + model + "-c '" + write_config("scores.yml", "word-scores: true\n") + "'", kInput);
  CHECK(config.out == text.out);
}

TEST_CASE("translate --tsv: the first field is translated, extra fields are an error", "[cli]") {
  const auto plain = test::run_s2s("translate " + kModel, kInput);
  const auto tsv = test::run_s2s("translate " + kModel + "--tsv --tsv-fields 3",
                                 "the license is free\tdie Lizenz\tx\n\ncopy this software and the program\t\n");
  INFO(tsv.err);
  CHECK(tsv.exit_code == 0);
  CHECK(tsv.out == plain.out);
  // One field by default, as Marian reads --tsv for a one-source model.
  const auto extra = test::run_s2s("translate " + kModel + "--tsv", "a\nb\tc\n");
  CHECK(extra.exit_code == 1);
  CHECK(extra.err.find("line 2: 2 tab-separated fields, more than --tsv-fields 1") !=
        std::string::npos);
  // With --prefix the second field is the prefix.
  const auto prefix = test::run_s2s("translate " + kModel + "--prefix", "the license is free\tdie\n");
  const auto tsv_prefix = test::run_s2s("translate " + kModel + "--prefix --tsv --tsv-fields 3",
                                        "the license is free\tdie\tignored\n");
  CHECK(tsv_prefix.exit_code == 0);
  CHECK(tsv_prefix.out == prefix.out);
}

TEST_CASE("docs/marian-options.md lists every Marian option as the code treats it", "[cli]") {
  const std::string doc = test::read_file(test::data_path("../../docs/marian-options.md"));
  std::multiset<std::string> rows;
  const std::regex row(R"(\n\| `--([a-z0-9-]+)`[^|]*\| ([a-z, ]+) \| ([a-z]+) \|)");
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it)
    rows.insert((*it)[1].str() + " " + (*it)[2].str() + " " + (*it)[3].str());
  std::multiset<std::string> code;
  for (const pipeline::MarianOption& option : pipeline::marian_options()) {
    const char* tools = option.tools == pipeline::kDecoderAndScorer ? "decoder, scorer"
                        : option.tools == pipeline::kDecoder        ? "decoder"
                                                                    : "scorer";
    code.insert(std::string(option.name) + " " + tools + " " + pipeline::marian_use_name(option.use));
  }
  CHECK(rows == code);
  // A supported option is an s2s flag of its command (--help shows it).
  for (const auto& [command, tool] : {std::pair{"translate", pipeline::kDecoder},
                                      std::pair{"score", pipeline::kScorer}}) {
    const std::string help = test::run_s2s(std::string(command) + " --help").out;
    for (const pipeline::MarianOption& option : pipeline::marian_options()) {
      const std::string name = option.name;
      if ((option.tools & tool) == 0 || option.use != pipeline::MarianUse::supported ||
          name == "version" || name == "output-sampling")
        continue;
      INFO(command << " --" << name);
      CHECK(help.find("--" + name) != std::string::npos);
    }
  }
}

TEST_CASE("translate --help lists every decoder.yml key s2s applies", "[cli]") {
  const std::string help = test::run_s2s("translate --help").out;
  const std::size_t start = help.find("the model's decoder.yml\n(");
  REQUIRE(start != std::string::npos);
  const std::string keys = help.substr(start, help.find(')', start) - start);
  for (const char* key : {"beam-size", "normalize", "word-penalty", "max-length-factor",
                          "allow-unk", "min-length", "n-best"})
    CHECK(keys.find(key) != std::string::npos);
}

}  // namespace s2s
