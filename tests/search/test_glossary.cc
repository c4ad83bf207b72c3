// Terminology constraints (search/constraints.h, beam_search's `constraints`): constrained beam
// search against the numpy reference (tools/fixtures/make_glossary_goldens.py,
// tools/reference/constrained_search.py) token for token, with its fallback flags.
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli_runner.h"
#include "golden_search.h"
#include "s2s/pipeline/glossary.h"
#include "s2s/s2s.h"
#include "s2s/search/beam.h"

namespace s2s {
namespace {

using test::check_hypothesis;

void check_nbest(const std::vector<search::Hypothesis>& found, const nlohmann::json& expected) {
  REQUIRE(found.size() == expected.size());
  for (std::size_t h = 0; h < expected.size(); ++h) {
    INFO("hypothesis " << h);
    check_hypothesis(found[h], expected[h]);
  }
}

}  // namespace

TEST_CASE("constrained beam search matches the reference", "[glossary][search][parity]") {
  for (const char* name : {"marian-postnorm-swish-tiedall", "ct2-onmt-relpos"}) {
    SECTION(name) {
      // All sentences in one batch, only the run's sentence with constraints: the others must
      // be searched exactly as without them.
      const test::GoldenSearch g = test::load_golden_search(test::fixture_named(name), "glossary");
      const auto& [model, golden, sources, encoded] = g;
      std::size_t fallbacks = 0, runs = 0, whole_words = 0;
      std::vector<std::string> pieces;
      for (int id = 0; id < golden["vocab_size"].get<int>(); ++id)
        pieces.push_back(model->codec().target_vocab().piece(id));
      CHECK(search::word_continuations(pieces) ==
            golden["word_continuations"].get<std::vector<std::int32_t>>());
      for (const auto& run : golden["runs"]) {
        search::SearchOptions options = test::golden_run_options(golden, run);
        const std::size_t s = run["sentence"].get<std::size_t>();
        std::vector<search::Constraints> constraints(sources.size());
        constraints[s] = search::Constraints(
            run["constraints"].get<std::vector<std::vector<std::int32_t>>>(),
            run["whole_words"].get<bool>());
        INFO(name << ": sentence " << s << ", " << run["case"].get<std::string>()
                  << ", constraints " << run["constraints"].dump() << ", beam "
                  << options.beam_size << ", normalize " << options.normalize);
        CHECK(constraints[s].total() == run["constraint_tokens"].get<std::int32_t>());
        search::SearchRequest request(options);
        request.constraints = constraints;
        const auto found = search::beam_search(*model, encoded, request);
        const auto plain = search::beam_search(*model, encoded, options);
        REQUIRE(found.size() == sources.size());
        const bool fallback = run["fallback"].get<bool>();
        CHECK(found[s].empty() == fallback);  // empty result = fallback
        if (fallback) {
          check_nbest(plain[s], run["fallback_nbest"]);
          ++fallbacks;
        } else {
          check_nbest(found[s], run["nbest"]);
        }
        for (std::size_t other = 0; other < sources.size(); ++other)
          if (other != s) CHECK(found[other].front().ids == plain[other].front().ids);
        ++runs;
        whole_words += run["whole_words"].get<bool>();
      }
      CHECK(runs == golden["runs"].size());
      CHECK(whole_words > 0);
      CHECK(fallbacks > 0);
    }
  }
}

TEST_CASE("no constraints is the plain beam search", "[glossary][search]") {
  const test::GoldenSearch g =
      test::load_golden_search(test::fixture_named("marian-postnorm-swish-tiedall"), "glossary");
  for (const dim_t beam : {1, 4}) {
    search::SearchOptions options;
    options.beam_size = beam;
    options.n_best = true;
    options.normalize = 1.0f;
    search::SearchRequest none(options);
    none.constraints.resize(g.sources.size());
    const auto with = search::beam_search(*g.model, g.encoded, none);
    const auto plain = search::beam_search(*g.model, g.encoded, options);
    REQUIRE(with.size() == plain.size());
    for (std::size_t s = 0; s < plain.size(); ++s) {
      REQUIRE(with[s].size() == plain[s].size());
      for (std::size_t h = 0; h < plain[s].size(); ++h) {
        CHECK(with[s][h].ids == plain[s][h].ids);
        CHECK(with[s][h].token_scores == plain[s][h].token_scores);
        CHECK(with[s][h].score == plain[s][h].score);
        CHECK(with[s][h].normalized_score == plain[s][h].normalized_score);
      }
    }
  }
}

}  // namespace s2s

namespace s2s {

TEST_CASE("glossary terms appear in translations from the command line", "[glossary][cli]") {
  const std::string name = "marian-postnorm-swish-tiedall";
  const std::string folder = test::data_path("models/" + name);
  const test::TempDir tmp("s2s_glossary");
  std::ifstream in(test::data_path("golden/" + name + ".glossary.json"));
  const nlohmann::json golden = nlohmann::json::parse(in);
  const std::string tsv = golden["glossary"]["tsv"].get<std::string>();
  const std::string glossary_file = tmp.write("glossary.tsv", tsv);
  std::string input;
  std::vector<std::string> sources;
  for (const auto& s : golden["sentences"]) {
    sources.push_back(s["source"].get<std::string>());
    input += sources.back() + "\n";
  }
  const auto plain = test::run_s2s("translate -b 4 -m '" + folder + "'", input);
  const auto run = test::run_s2s("translate -b 4 -m '" + folder + "' --glossary '" + glossary_file + "'", input);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::vector<std::string> lines = test::split_lines(run.out);
  REQUIRE(lines.size() == sources.size());
  const pipeline::Glossary glossary(tsv, "glossary.tsv");
  std::size_t checked = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (run.err.find("line " + std::to_string(i + 1) + ": the glossary") != std::string::npos)
      continue;  // fell back
    for (const pipeline::GlossaryEntry* e : glossary.match(sources[i], false)) {
      INFO("line " << i + 1 << ": " << lines[i] << " should contain " << e->target);
      CHECK(lines[i].find(e->target) != std::string::npos);
      ++checked;
    }
  }
  CHECK(checked >= 3);
  CHECK(lines != test::split_lines(plain.out));

  // The same through the library settings.
  const Engine engine(folder, {{"beam-size", "4"}, {"glossary", glossary_file}});
  CHECK(engine.translate(sources) == lines);
}

TEST_CASE("glossary fallbacks and errors from the command line", "[glossary][cli]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  const test::TempDir tmp("s2s_glossary_errors");
  const std::string translate = "translate -b 4 -m '" + folder + "' --glossary ";
  std::string long_term;
  for (int i = 0; i < 40; ++i) long_term += "license program warranty ";
  const std::string unreachable = tmp.write("long.tsv", "world\t" + long_term + "\n");
  const auto plain = test::run_s2s("translate -b 4 -m '" + folder + "'", "the license is free\nHello world\n");
  const auto fell = test::run_s2s(translate + "'" + unreachable + "'", "the license is free\nHello world\n");
  INFO(fell.err);
  CHECK(fell.exit_code == 0);
  CHECK(fell.out == plain.out);  // the unconstrained translation
  CHECK(fell.err.find("line 2: the glossary's target terms could not all be placed") !=
        std::string::npos);
  CHECK(fell.err.find("line 1:") == std::string::npos);

  const std::string bad = tmp.write("bad.tsv", "license\tlicence\nno tab here\n");
  const auto broken = test::run_s2s(translate + "'" + bad + "'", "x\n");
  CHECK(broken.exit_code == 1);
  CHECK(broken.err.find(bad + ":2:") != std::string::npos);
  const auto missing = test::run_s2s(translate + "'" + tmp.dir.string() + "/none.tsv'", "x\n");
  CHECK(missing.exit_code == 1);
  const auto with_prefix = test::run_s2s(translate + "'" + unreachable + "' --prefix", "x\n");
  CHECK(with_prefix.exit_code == 2);
}

}  // namespace s2s

namespace s2s {

TEST_CASE("glossary --glossary-ignore-case and terms the target vocabulary cannot spell", "[glossary][cli]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  const test::TempDir tmp("s2s_glossary_case");
  const std::string translate = "translate -b 4 -m '" + folder + "' --glossary ";
  const std::string input = "the LICENSE is free.\nHello world\n";
  const auto plain = test::run_s2s("translate -b 4 -m '" + folder + "'", input);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(test::split_lines(plain.out)[0].find("licence") == std::string::npos);

  const std::string upper = tmp.write("case.tsv", "license\tlicence\n");
  const auto exact = test::run_s2s(translate + "'" + upper + "'", input);
  CHECK(exact.exit_code == 0);
  CHECK(exact.out == plain.out);  // "LICENSE" is not "license"
  const auto folded = test::run_s2s(translate + "'" + upper + "' --glossary-ignore-case", input);
  INFO(folded.err);
  CHECK(folded.exit_code == 0);
  const std::vector<std::string> lines = test::split_lines(folded.out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("licence") != std::string::npos);
  CHECK(lines[1] == test::split_lines(plain.out)[1]);

  // A target term with a piece the vocabulary lacks would make the search place <unk>: the term
  // is dropped with a warning naming the input line and the glossary line.
  const std::string unknown = tmp.write("unk.tsv", "world\tworld\nHello\t\xe6\xbc\xa2\xe5\xad\x97\n");
  const auto dropped = test::run_s2s(translate + "'" + unknown + "'", input);
  INFO(dropped.err);
  CHECK(dropped.exit_code == 0);
  CHECK(dropped.err.find("line 2: glossary line 2: its target term has a token the model's "
                         "target vocabulary lacks (<unk>): not applied") != std::string::npos);
  CHECK(dropped.err.find("line 1:") == std::string::npos);
  CHECK(test::split_lines(dropped.out)[1].find("world") != std::string::npos);
}

}  // namespace s2s

namespace s2s {
namespace {

// Whether `term` occurs in `text` with no letter or digit right before or after it.
bool has_whole_word(const std::string& text, const std::string& term) {
  const auto word_byte = [](unsigned char c) { return std::isalnum(c) || c >= 0x80; };
  for (std::size_t at = text.find(term); at != std::string::npos; at = text.find(term, at + 1)) {
    const std::size_t end = at + term.size();
    if ((at == 0 || !word_byte(text[at - 1])) && (end == text.size() || !word_byte(text[end])))
      return true;
  }
  return false;
}

}  // namespace

TEST_CASE("glossary terms are whole words of the translation", "[glossary][cli]") {
  // The shipped model glued a term to the word it replaces: "Could not open the file." with
  // file -> Dokument gave "Die Dokumentdatei konnte nicht geöffnet werden.".
  const test::TempDir tmp("s2s_glossary_words");
  const std::string glossary =
      tmp.write("glossary.tsv", "file\tDokument\nfiles\tDokumente\nprogram\tAnwendung\n");
  const std::string input =
      "Could not open the file.\nThe file is missing.\nThe files are gone.\n"
      "This program is free software.\nRun the program again.\n";
  const auto run = test::run_s2s("translate -b 4 --glossary '" + glossary + "'", input);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::vector<std::string> lines = test::split_lines(run.out);
  REQUIRE(lines.size() == 5);
  const char* const terms[] = {"Dokument", "Dokument", "Dokumente", "Anwendung", "Anwendung"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    INFO("line " << i + 1 << ": " << lines[i]);
    CHECK(has_whole_word(lines[i], terms[i]));
  }
}

}  // namespace s2s
