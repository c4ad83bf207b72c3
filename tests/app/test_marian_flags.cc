// Marian's command-line names (issue 18): each is an alias that gives exactly what the s2s
// option gives, or a one-line usage error saying what to use instead.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kFolder = test::data_path("models/marian-postnorm-swish-tiedall");
const std::string kInput = "the license is free\n\ncopy this software and the program\n";

test::RunResult translate(const std::string& args) {
  return test::run_s2s("translate -b 2 " + args, kInput);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What marian-decoder --no-spm-decode prints for a hypothesis: its pieces separated by spaces,
// </s> left out (jsonl's "tokens" list every target piece, </s> included).
std::string joined_pieces(const nlohmann::json& hypothesis) {
  std::string joined;
  for (const auto& token : hypothesis["tokens"]) {
    if (token == "</s>") continue;
    joined += (joined.empty() ? "" : " ") + token.get<std::string>();
  }
  return joined;
}

}  // namespace

TEST_CASE("translate: Marian's names for s2s options give the same output", "[cli]") {
  const auto own = translate("-m '" + kFolder + "' --batch-size 2 --batch-tokens 0 --threads 1 --quiet");
  INFO(own.err);
  REQUIRE(own.exit_code == 0);
  REQUIRE(test::count_lines(own.out) == 3);
  const auto marian = translate(
      "--models '" + kFolder +
      "/opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz' --mini-batch 2 "
      "--mini-batch-words 0 --cpu-threads 1 --quiet-translation --maxi-batch-sort none");
  INFO(marian.err);
  CHECK(marian.exit_code == 0);
  CHECK(marian.out == own.out);
  CHECK(marian.err.empty());

  // --max-length-crop is --long-lines truncate.
  const auto truncate = translate("-m '" + kFolder + "' --max-length 4 --long-lines truncate");
  const auto crop = translate("-m '" + kFolder + "' --max-length 4 --max-length-crop");
  CHECK(crop.exit_code == 0);
  CHECK(crop.out == truncate.out);
  CHECK(crop.err == truncate.err);
  CHECK(crop.err.find("truncated to its first 4 tokens") != std::string::npos);

  // --n-best alone prints the n-best lines, as marian-decoder does.
  const auto nbest = translate("-m '" + kFolder + "' --n-best --format nbest");
  const auto bare = translate("-m '" + kFolder + "' --n-best");
  CHECK(bare.exit_code == 0);
  CHECK(bare.out == nbest.out);
  CHECK(test::count_lines(bare.out) == 5);  // two hypotheses for each sentence, one for the blank

  // The help names each alias.
  const auto help = test::run_s2s("translate --help");
  for (const char* name : {"--mini-batch", "--mini-batch-words", "--cpu-threads",
                           "--quiet-translation", "--max-length-crop", "--maxi-batch-sort",
                           "--models", "--vocabs"})
    CHECK(help.out.find(name) != std::string::npos);
}

TEST_CASE("translate: --no-spm-decode prints the target pieces in every format", "[cli]") {
  const std::string model = "-m '" + kFolder + "' --quiet ";
  const auto json = translate(model + "--n-best --format jsonl");
  REQUIRE(json.exit_code == 0);
  std::vector<nlohmann::json> records;
  for (const std::string& line : lines_of(json.out)) records.push_back(nlohmann::json::parse(line));
  REQUIRE(records.size() == 3);

  // text: the best hypothesis' pieces; an empty line for the blank line.
  const auto text = translate(model + "--no-spm-decode");
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  const std::vector<std::string> text_lines = lines_of(text.out);
  REQUIRE(text_lines.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(text_lines[i] == joined_pieces(records[i]));
  CHECK(text_lines[1].empty());
  CHECK(text.out.find("\xE2\x96\x81") != std::string::npos);  // '▁': pieces, not words
  CHECK(text.out != translate(model).out);

  // nbest: every hypothesis' translation field.
  const auto nbest = translate(model + "--n-best --no-spm-decode");
  REQUIRE(nbest.exit_code == 0);
  std::vector<std::string> expected;
  for (std::size_t i = 0; i < 3; ++i) {
    for (const auto& h : records[i]["n_best"])
      expected.push_back(std::to_string(i) + " ||| " + joined_pieces(h) + " ||| ");
    if (records[i]["n_best"].empty()) expected.push_back(std::to_string(i) + " |||  ||| ");
  }
  const std::vector<std::string> nbest_lines = lines_of(nbest.out);
  REQUIRE(nbest_lines.size() == expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k)
    CHECK(nbest_lines[k].rfind(expected[k], 0) == 0);

  // jsonl: "translation" holds the pieces; everything else is as without the flag.
  const auto pieces_json = translate(model + "--n-best --format jsonl --no-spm-decode");
  REQUIRE(pieces_json.exit_code == 0);
  const std::vector<std::string> json_lines = lines_of(pieces_json.out);
  REQUIRE(json_lines.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    nlohmann::json got = nlohmann::json::parse(json_lines[i]);
    const nlohmann::json& want = records[i];
    CHECK(got["translation"] == joined_pieces(want));
    got["translation"] = want["translation"];
    REQUIRE(got["n_best"].size() == want["n_best"].size());
    for (std::size_t k = 0; k < got["n_best"].size(); ++k) {
      CHECK(got["n_best"][k]["translation"] == joined_pieces(want["n_best"][k]));
      got["n_best"][k]["translation"] = want["n_best"][k]["translation"];
    }
    CHECK(got == want);
  }

  // A line split at --max-length: its pieces' pieces, joined (the record's tokens).
  const auto split_json = translate(model + "--max-length 4 --format jsonl");
  const auto split = translate(model + "--max-length 4 --no-spm-decode");
  REQUIRE(split.exit_code == 0);
  const std::vector<std::string> split_lines = lines_of(split.out);
  const std::vector<std::string> split_records = lines_of(split_json.out);
  REQUIRE(split_lines.size() == 3);
  REQUIRE(split_records.size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(split_lines[i] == joined_pieces(nlohmann::json::parse(split_records[i])));

  // The same from a --config file, and its help line in the style of the others.
  const auto dir = test::temp_dir("no_spm_decode");
  std::ofstream(dir / "pieces.yml") << "no-spm-decode: true\n";
  const auto config = translate(model + "--config '" + (dir / "pieces.yml").string() + "'");
  CHECK(config.exit_code == 0);
  CHECK(config.out == text.out);
  const auto help = test::run_s2s("translate --help");
  CHECK(help.out.find("--no-spm-decode") != std::string::npos);
  CHECK(help.out.find("(as marian-decoder --no-spm-decode) [default: off]") != std::string::npos);
}

TEST_CASE("translate and score: -v/--vocabs is a usage error saying where vocabularies come from",
          "[cli]") {
  for (const char* command : {"translate", "score"}) {
    const auto r = test::run_s2s(std::string(command) + " -m '" + kFolder + "' -v a.spm b.spm",
                                 "x\tx\n");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.err.find("-v/--vocabs: s2s takes the vocabularies from the model folder") !=
          std::string::npos);
    CHECK(r.out.empty());
  }
}

TEST_CASE("score: marian-scorer's -t SOURCE TARGET is --source --target", "[cli]") {
  const auto dir = test::temp_dir("marian_flags");
  const std::string src = (dir / "src.txt").string(), tgt = (dir / "tgt.txt").string();
  std::ofstream(src) << "the license is free\ncopy this\n";
  std::ofstream(tgt) << "die Lizenz ist frei\nkopiere dies\n";
  const auto own = test::run_s2s("score -m '" + kFolder + "' --source '" + src + "' --target '" +
                                 tgt + "' --batch-size 1 --threads 1");
  REQUIRE(own.exit_code == 0);
  REQUIRE(test::count_lines(own.out) == 2);
  const auto marian = test::run_s2s("score -m '" + kFolder + "' -t '" + src + "' '" + tgt +
                                    "' --mini-batch 1 --cpu-threads 1 --quiet-translation");
  INFO(marian.err);
  CHECK(marian.exit_code == 0);
  CHECK(marian.out == own.out);
}

}  // namespace s2s
