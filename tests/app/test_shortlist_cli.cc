// --shortlist as users give it (pipeline/shortlist_setting.h): Marian's words on the command line
// and in a YAML config, a model folder's own shortlist, `off`, s2s info, and errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kFixture = "marian-ymlids-gelu-tied";
const std::string kFolder = test::data_path("models/" + kFixture);
const std::string kLex = test::data_path("shortlists/" + kFixture + "/lex.s2t");
const std::string kInput = "the license is free\ncopy this software and the program\n";

// The tokens of each line's translation (jsonl).
std::vector<std::vector<std::string>> tokens_of(const std::string& jsonl) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(jsonl);
  for (std::string line; std::getline(in, line);)
    out.push_back(nlohmann::json::parse(line)["tokens"].get<std::vector<std::string>>());
  return out;
}

std::string translate(const std::string& model, const std::string& flags) {
  const auto r =
      test::run_s2s("translate -m '" + model + "' --format jsonl --quiet " + flags, kInput);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("translate --shortlist: as Marian spells it, in a config, from the folder, off",
          "[cli][shortlist]") {
  const std::string plain = translate(kFolder, "");
  const std::string listed = translate(kFolder, "--shortlist '" + kLex + "' 10 5 0.1");
  CHECK(listed != plain);
  CHECK(tokens_of(listed).size() == 2);
  // The same words in a YAML config, as Marian's decoder.yml writes them.
  test::TempDir dir("shortlist_cli");
  const std::string config =
      dir.write("decoder.yml", "shortlist:\n  - " + kLex + "\n  - 10\n  - 5\n  - 0.1\n");
  CHECK(translate(kFolder, "-c '" + config + "'") == listed);
  // A folder with its own shortlist uses it (first and best at Marian's defaults, 100 and 100),
  // unless told `off`.
  const std::filesystem::path folder = dir.dir / "model";
  std::filesystem::copy(kFolder, folder, std::filesystem::copy_options::recursive);
  std::filesystem::copy_file(kLex, folder / "lex.s2t");
  CHECK(translate(folder.string(), "") == translate(kFolder, "--shortlist '" + kLex + "'"));
  CHECK(translate(folder.string(), "--shortlist off") == plain);
  const auto info = test::run_s2s("info -m '" + folder.string() + "'");
  CHECK(info.out.find("shortlist: " + (folder / "lex.s2t").string() + " (Marian's; first 100") !=
        std::string::npos);
  CHECK(test::run_s2s("info -m '" + kFolder + "'").out.find("shortlist: none in the folder") !=
        std::string::npos);
}

TEST_CASE("translate --shortlist with a glossary: the terms' pieces are candidates too",
          "[cli][shortlist]") {
  // A shortlist of ids 0..9 and one entry: without the terms' pieces among the candidates the
  // term could only be forced in at -infinity.
  test::TempDir dir("shortlist_cli");
  const std::string lex = dir.write("tiny.s2t", "\u2581Die \u2581licence 0.5\n");
  const std::string glossary = dir.write("glossary.tsv", "licence\tNutzungsbedingungen\n");
  const std::string model = test::data_path("../../models/en-de");
  const auto r = test::run_s2s("translate -m '" + model + "' --quiet --format jsonl --glossary '" +
                                   glossary + "' --shortlist '" + lex + "' 10 5",
                               "The licence is free.\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto json = nlohmann::json::parse(r.out);
  CHECK(json["translation"].get<std::string>().find("Nutzungsbedingungen") != std::string::npos);
  CHECK(json["score"].get<double>() > -1000.0);
  for (const auto& token : json["tokens"]) CHECK(token != "<unk>");
}

TEST_CASE("translate --shortlist: a bad file or argument is one line naming it",
          "[cli][shortlist]") {
  test::TempDir dir("shortlist_cli");
  const std::string bad = dir.write("bad.s2t", "a b not-a-number\n");
  for (const auto& [flags, message] :
       {std::pair<std::string, std::string>{"--shortlist '" + bad + "'",
                                            "bad.s2t: an entry is not"},
        {"--shortlist '" + kLex + "' ten", "first 'ten' is not a non-negative number"},
        {"--shortlist off '" + kLex + "'", "--shortlist off takes nothing after it"},
        {"--shortlist /nonexistent/lex.s2t", "/nonexistent/lex.s2t: no such shortlist file"}}) {
    INFO(flags);
    const auto r = test::run_s2s("translate -m '" + kFolder + "' " + flags, kInput);
    CHECK(r.exit_code != 0);
    CHECK(r.out.empty());
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.err.find(message) != std::string::npos);
  }
}

}  // namespace s2s
