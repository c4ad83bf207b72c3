// The s2s binary, run for real: info on every fixture, translate's line contract, exit codes
// and one-line errors.
#include <fstream>

#include "cli_runner.h"
#include "fixtures.h"
#include "s2s/formats/npz.h"

namespace s2s {
namespace {

std::string model_arg(const std::string& name) {
  return "-m '" + test::data_path("models/" + name) + "'";
}

// -m, plus the SentencePiece models of folders that have none.
std::string model_args(const test::FixtureModel& f) {
  std::string args = model_arg(f.name);
  if (f.spm_from) {
    const std::string dir = test::data_path(std::string("models/") + f.spm_from);
    args += " --source-spm '" + dir + "/source.spm' --target-spm '" + dir + "/target.spm'";
  }
  return args;
}

const char* format_of(const std::string& name) {
  if (name.rfind("hf-", 0) == 0) return "hf-marian";
  if (name.rfind("ct2-", 0) == 0) return "ctranslate2";
  return "marian";
}

}  // namespace

TEST_CASE("s2s info describes every fixture", "[cli]") {
  for (const test::FixtureModel& fixture : test::all_fixtures()) {
    const std::string name = fixture.name;
    SECTION(name) {
      const auto r = test::run_s2s("info " + model_args(fixture));
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.err.empty());
      CHECK(r.out.find(std::string("format: ") + format_of(name) + "\n") != std::string::npos);
      CHECK(r.out.find("parameters: ") != std::string::npos);
      CHECK(r.out.find("special ids: ") != std::string::npos);
      CHECK(r.out.find("source pieces: ") != std::string::npos);
      // Whether --alignment works, and why not (Hugging Face folders do not say which head).
      CHECK(r.out.find(name.rfind("hf-", 0) == 0 ? "word alignment (--alignment): not available: "
                                                 : "word alignment (--alignment): decoder layer ") !=
            std::string::npos);
    }
  }
  // The alignment head as Marian and docs/user-guide.md number it (Marian's collectOneHead: head
  // 0).
  const auto aligned = test::run_s2s("info " + model_arg("marian-align-layer1"));
  CHECK(aligned.out.find("word alignment (--alignment): decoder layer 1 of 2, head 0\n") !=
        std::string::npos);
  // The model's decoder.yml: what s2s applies, and what it ignores, each said.
  const auto marian = test::run_s2s("info " + model_arg("marian-postnorm-swish-tiedall"));
  CHECK(marian.out.find("), applied: beam-size=4 normalize=1 word-penalty=0\n") != std::string::npos);
  CHECK(marian.out.find("), ignored: relative-paths=true mini-batch=1 maxi-batch=1 "
                        "maxi-batch-sort=src\n") != std::string::npos);
}

TEST_CASE("s2s translate gives the greedy translation, one line per line", "[cli]") {
  // The model's own settings (HF: <unk> allowed; CTranslate2: also no </s> first) must give the
  // greedy rules the references used.
  for (const test::FixtureModel& fixture : test::all_fixtures()) {
    const std::string name = fixture.name;
    SECTION(name) {
      // Expected: the reference's greedy ids, detokenized by the model's codec.
      const auto model = test::load_fixture(fixture);
      formats::NpzArchive golden(test::data_path("golden/" + name + ".npz"));
      const Tensor greedy = golden.read_tensor("greedy_ids");
      std::ifstream sources(test::data_path("golden/" + name + ".sources.txt"));
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
      // The reference's search alone: no second search of short translations (random models
      // end many sentences early), and the text as it is (their vocabularies cannot spell
      // some of its characters, which protection would mask).
      const std::string search_only = "--short-translations off --protect off ";
      const auto r = test::run_s2s("translate --beam-size 1 " + search_only + model_args(fixture), input);
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.out == expected);
      CHECK(test::count_lines(r.out) == test::count_lines(input));

      // CRLF input and a last line without a newline give the same translations.
      std::string crlf = input;
      for (std::size_t p = 0; (p = crlf.find('\n', p)) != std::string::npos; p += 2)
        crlf.replace(p, 1, "\r\n");
      crlf.resize(crlf.size() - 2);  // drop the final CRLF
      const auto r2 =
          test::run_s2s("translate -b 1 --batch-size 2 " + search_only + model_args(fixture), crlf);
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

namespace s2s {

TEST_CASE("the target-lang option puts the model's >>xxx<< label before every line", "[cli]") {
  const std::string model = model_arg("hf-marian-fp16-untied");
  const std::string text = "You may copy the program.\n\nIt is free.\n";
  const auto labelled = test::run_s2s("translate -b 1 " + model,
                                      ">>deu<< You may copy the program.\n\n>>deu<< It is free.\n");
  const auto flag = test::run_s2s("translate -b 1 --target-lang deu " + model, text);
  INFO(flag.err);
  REQUIRE(flag.exit_code == 0);
  CHECK(flag.out == labelled.out);
  CHECK(test::count_lines(flag.out) == 3);
  const auto plain = test::run_s2s("translate -b 1 " + model, text);
  CHECK(plain.out != flag.out);
  // Without any label a multilingual model warns once, naming the first line; with the option
  // or labels it does not.
  CHECK(plain.err ==
        "s2s: warning: line 1: no >>xxx<< language label, and this model is multilingual (it "
        "knows >>deu<<): give --target-lang or start each line with a label (said once)\n");
  CHECK(flag.err.empty());
  CHECK(test::run_s2s("translate -b 1 " + model, ">>deu<< It is free.\n").err.empty());
  // A label the model does not know is named on its line, and the line is translated as text.
  const auto wrong = test::run_s2s("translate -b 1 " + model, ">>deu<< Hi.\n>>xyz<< It is free.\n");
  CHECK(wrong.exit_code == 0);
  CHECK(test::count_lines(wrong.out) == 2);
  // This model cannot spell '>' or '<': the label is kept as it is, and said so.
  CHECK(wrong.err ==
        "s2s: warning: line 2: >>xyz<< is not a language label of this model (it knows >>deu<<): "
        "translated as ordinary text\n"
        "s2s: warning: line 2: the model's vocabulary cannot spell '>', '<': kept as in the "
        "source\n");
  CHECK(test::run_s2s("translate -b 1 " + model_arg("marian-postnorm-swish-tiedall"), ">>xyz<< a\n")
            .err.find("(it is not multilingual)") != std::string::npos);

  const auto unknown = test::run_s2s("translate --target-lang xyz " + model, text);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no >>xyz<< token (it knows >>deu<<)") != std::string::npos);
  const auto not_multi = test::run_s2s("translate --target-lang deu " +
                                       model_arg("marian-postnorm-swish-tiedall"), text);
  CHECK(not_multi.exit_code == 2);
  CHECK(not_multi.err.find("not multilingual") != std::string::npos);
}

}  // namespace s2s
