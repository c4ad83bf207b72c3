// The s2s binary, run for real: info on every fixture, translate's line contract, exit codes
// and one-line errors.
#include <fstream>

#include "cli_runner.h"
#include "s2s/formats/detect.h"
#include "s2s/formats/npz.h"
#include "test_utils.h"

namespace s2s {
namespace {

const char* const kFixtures[] = {
    "marian-postnorm-swish-tiedall",
    "marian-prenorm-relu-untied",
    "marian-ymlids-gelu-tied",
    "marian-ffn3-learnedpos-legacyW",
};

std::string model_arg(const std::string& name) {
  return "-m '" + test::data_path("models/" + name) + "'";
}

}  // namespace

TEST_CASE("s2s info describes every fixture", "[cli]") {
  for (const char* name : kFixtures) {
    SECTION(name) {
      const auto r = test::run_s2s("info " + model_arg(name));
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.err.empty());
      CHECK(r.out.find("format: marian") != std::string::npos);
      CHECK(r.out.find("parameters: ") != std::string::npos);
      CHECK(r.out.find("special ids: ") != std::string::npos);
      CHECK(r.out.find("source pieces: ") != std::string::npos);
    }
  }
}

TEST_CASE("s2s translate gives the greedy translation, one line per line", "[cli]") {
  for (const char* name : kFixtures) {
    SECTION(name) {
      // Expected: the reference's greedy ids, detokenized by the model's codec.
      const auto model = formats::load_model(test::data_path(std::string("models/") + name));
      formats::NpzArchive golden(test::data_path(std::string("golden/") + name + ".npz"));
      const Tensor greedy = golden.read_tensor("greedy_ids");
      std::ifstream sources(test::data_path(std::string("golden/") + name + ".sources.txt"));
      std::string input, expected, line;
      for (dim_t b = 0; b < greedy.dim(0) && std::getline(sources, line); ++b) {
        std::vector<std::int32_t> ids;
        for (dim_t t = 0; t < greedy.dim(1); ++t) {
          const std::int32_t id = greedy.data<std::int32_t>()[b * greedy.dim(1) + t];
          if (id >= 0) ids.push_back(id);
        }
        // Each sentence, then an empty line and a blank line, which give empty lines.
        input += line + "\n\n  \n";
        expected += model->codec().decode_target(ids) + "\n\n\n";
      }
      const auto r = test::run_s2s("translate --beam-size 1 " + model_arg(name), input);
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.out == expected);
      CHECK(test::count_lines(r.out) == test::count_lines(input));

      // CRLF input and a last line without a newline give the same translations.
      std::string crlf = input;
      for (std::size_t p = 0; (p = crlf.find('\n', p)) != std::string::npos; p += 2)
        crlf.replace(p, 1, "\r\n");
      crlf.resize(crlf.size() - 2);  // drop the final CRLF
      const auto r2 = test::run_s2s("translate -b 1 --batch-size 2 " + model_arg(name), crlf);
      CHECK(r2.out == expected);
    }
  }
}

TEST_CASE("s2s reports errors in one line with the right exit code", "[cli]") {
  SECTION("unknown option is a usage error") {
    const auto r = test::run_s2s("translate --no-such-option");
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
  }
  SECTION("missing model folder") {
    const auto r = test::run_s2s("translate -m /nonexistent/model", "hello\n");
    CHECK(r.exit_code == 1);
    CHECK(r.err == "s2s: error: /nonexistent/model: no such model folder\n");
    CHECK(r.out.empty());
  }
  SECTION("a folder that is not a model") {
    const auto dir = test::temp_dir("notmodel");
    const auto r = test::run_s2s("info -m '" + dir.string() + "'");
    CHECK(r.exit_code == 1);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.err.find(dir.string()) != std::string::npos);
    std::filesystem::remove_all(dir);
  }
  SECTION("no subcommand") {
    const auto r = test::run_s2s("");
    CHECK(r.exit_code == 2);
  }
}

}  // namespace s2s
