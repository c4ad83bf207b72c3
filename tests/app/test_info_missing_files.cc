// A CTranslate2 folder without its SentencePiece models (converters often leave them out):
// `s2s info` describes the model as for a complete folder and then lists what translation would
// need (exit 0); translate and score refuse the folder with one line naming every missing file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "test_utils.h"

namespace s2s {
namespace {

namespace fs = std::filesystem;

const fs::path kComplete = test::data_path("models/ct2-onmt-abspos");

// A copy of the complete fixture folder without the named files.
fs::path copy_without(const std::string& tag, std::initializer_list<const char*> removed) {
  const fs::path dir = test::temp_dir(tag) / "model";
  fs::copy(kComplete, dir, fs::copy_options::recursive);
  for (const char* name : removed) REQUIRE(fs::remove(dir / name));
  return dir;
}

// The lines of `info` output that describe the model itself (not its folder and file paths).
std::string description(const std::string& out) {
  const std::size_t start = out.find("architecture: ");
  const std::size_t end = out.find("  source pieces: ") != std::string::npos
                              ? out.find("  source pieces: ")
                              : out.find("  SentencePiece coverage: ");
  return start == std::string::npos || end == std::string::npos ? "" : out.substr(start, end - start);
}

}  // namespace

TEST_CASE("info describes a CTranslate2 folder without SentencePiece models and lists them",
          "[cli]") {
  const auto complete = test::run_s2s("info -m '" + kComplete.string() + "'");
  REQUIRE(complete.exit_code == 0);
  CHECK(complete.out.find("missing for translation") == std::string::npos);

  const fs::path dir = copy_without("info_no_spm", {"source.spm", "target.spm"});
  const auto r = test::run_s2s("info -m '" + dir.string() + "'");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("format: ctranslate2\n") != std::string::npos);
  // Architecture, layers, dimensions, parameters, vocabulary sizes and special ids as for the
  // complete folder.
  const std::string described = description(complete.out);
  CHECK(described.find("layers: ") != std::string::npos);
  CHECK(described.find("vocabulary: source ") != std::string::npos);
  CHECK(description(r.out) == described);
  CHECK(r.out.find("  source SentencePiece: (missing)\n") != std::string::npos);
  const std::size_t missing = r.out.find("missing for translation");
  REQUIRE(missing != std::string::npos);
  CHECK(r.out.find("  source.spm (the source SentencePiece model", missing) != std::string::npos);
  CHECK(r.out.find("  target.spm (the target SentencePiece model", missing) != std::string::npos);

  // Only the one that is missing is listed.
  const fs::path one = copy_without("info_no_target_spm", {"target.spm"});
  const auto r1 = test::run_s2s("info -m '" + one.string() + "'");
  CHECK(r1.exit_code == 0);
  CHECK(r1.out.find("source.spm (") == std::string::npos);
  CHECK(r1.out.find("target.spm (the target SentencePiece model") != std::string::npos);
}

TEST_CASE("translate and score refuse a CTranslate2 folder without SentencePiece models, naming "
          "each missing file", "[cli]") {
  const fs::path dir = copy_without("translate_no_spm", {"source.spm", "target.spm"});
  for (const char* command : {"translate", "score"}) {
    const auto r = test::run_s2s(std::string(command) + " -m '" + dir.string() + "'", "x\tx\n");
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.err.find("s2s: error: " + dir.string() + ": missing for translation: source.spm (") == 0);
    CHECK(r.err.find("; target.spm (the target SentencePiece model") != std::string::npos);
    CHECK(r.err.find("--source-spm FILE") != std::string::npos);
    CHECK(r.out.empty());
  }
  // Given with --source-spm/--target-spm, the folder translates as the complete one does.
  const std::string input = "the license is free\ncopy this\n";
  const auto full = test::run_s2s("translate -m '" + kComplete.string() + "'", input);
  const auto given = test::run_s2s("translate -m '" + dir.string() + "' --source-spm '" +
                                       (kComplete / "source.spm").string() + "' --target-spm '" +
                                       (kComplete / "target.spm").string() + "'",
                                   input);
  CHECK(full.exit_code == 0);
  CHECK(given.exit_code == 0);
  CHECK(given.out == full.out);

  // Without a vocabulary the model cannot be described either: info names every missing file.
  const fs::path bare = copy_without("info_no_vocab", {"source.spm", "target_vocabulary.json"});
  const auto info = test::run_s2s("info -m '" + bare.string() + "'");
  INFO(info.err);
  CHECK(info.exit_code == 1);
  CHECK(test::count_lines(info.err) == 1);
  CHECK(info.err.find("target_vocabulary.json (the target vocabulary") != std::string::npos);
  CHECK(info.err.find("source.spm (the source SentencePiece model") != std::string::npos);
  CHECK(info.out.empty());
}

}  // namespace s2s
