// s2s score, run for real: the input modes, output formats, summary figures, n-best rescoring,
// errors, and consistency with s2s translate's own scores.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "fixtures.h"
#include "s2s/pipeline/scorer.h"

namespace s2s {
namespace {

const std::string kModel = "marian-postnorm-swish-tiedall";

std::string model_arg(const std::string& name) {
  return "-m '" + test::data_path("models/" + name) + "'";
}

std::string golden(const std::string& name, const char* suffix) {
  return test::data_path("golden/" + name + suffix);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = test::temp_dir("score");
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("score: files, TSV and the library agree, and formats and summaries", "[cli]") {
  const std::string src = golden(kModel, ".sources.txt"), tgt = golden(kModel, ".targets.txt");
  const auto files = test::run_s2s("score " + model_arg(kModel) + " --source '" + src +
                                   "' --target '" + tgt + "'");
  INFO(files.err);
  REQUIRE(files.exit_code == 0);
  const std::string tsv_input = [&] {
    std::string all;
    const auto s = lines_of(test::read_file(src)), t = lines_of(test::read_file(tgt));
    for (std::size_t i = 0; i < s.size(); ++i) all += s[i] + "\t" + t[i] + "\n";
    return all;
  }();
  const auto tsv = test::run_s2s("score " + model_arg(kModel), tsv_input);
  CHECK(tsv.out == files.out);

  // The printed scores are the reference's (search.json "scores"), to six decimals.
  std::ifstream in(golden(kModel, ".search.json"));
  const nlohmann::json g = nlohmann::json::parse(in);
  const auto printed = lines_of(files.out);
  REQUIRE(printed.size() == g["scores"].size());
  double ce = 0.0;
  std::size_t words = 0;
  for (std::size_t i = 0; i < printed.size(); ++i) {
    const double want = g["scores"][i]["score"].get<double>();
    CHECK(std::stod(printed[i]) == Approx(want).epsilon(1e-5));
    ce -= want;
    words += g["scores"][i]["tgt_ids"].size();
  }
  const auto perplexity =
      test::run_s2s("score --summary perplexity " + model_arg(kModel), tsv_input);
  CHECK(std::stod(perplexity.out) == Approx(std::exp(ce / words)).epsilon(1e-5));
  const auto ce_mean = test::run_s2s("score --summary ce-mean " + model_arg(kModel), tsv_input);
  CHECK(std::stod(ce_mean.out) == Approx(ce / printed.size()).epsilon(1e-5));

  // --normalize divides by the length incl. </s>; a bare flag means 1.
  const auto normalized = test::run_s2s("score -n " + model_arg(kModel), tsv_input);
  const auto norm_lines = lines_of(normalized.out);
  for (std::size_t i = 0; i < printed.size(); ++i)
    CHECK(std::stod(norm_lines[i]) ==
          Approx(std::stod(printed[i]) / g["scores"][i]["tgt_ids"].size()).epsilon(1e-5));

  // jsonl and word scores carry the per-token log-probabilities.
  const auto jsonl = test::run_s2s("score --format jsonl " + model_arg(kModel), tsv_input);
  const auto records = lines_of(jsonl.out);
  REQUIRE(records.size() == printed.size());
  const auto first = nlohmann::json::parse(records[0]);
  CHECK(first["tokens"].size() == g["scores"][0]["tgt_ids"].size());
  CHECK(first["tokens"].back() == "</s>");
  const auto words_out = test::run_s2s("score --word-scores " + model_arg(kModel), tsv_input);
  CHECK(lines_of(words_out.out)[0].find(" ||| WordScores= ") != std::string::npos);

  // Empty sources and targets are scored, and the line count is kept.
  const auto empties = test::run_s2s("score " + model_arg(kModel), "\t\nhello\t\n\tworld\n");
  CHECK(empties.exit_code == 0);
  for (const std::string& line : lines_of(empties.out)) CHECK(std::isfinite(std::stod(line)));
  CHECK(test::count_lines(empties.out) == 3);
}

TEST_CASE("score: errors name the problem", "[cli]") {
  const std::string src = golden(kModel, ".sources.txt");
  const auto counts = test::run_s2s("score " + model_arg(kModel) + " --source '" + src +
                                    "' --target '" + write_temp("short.txt", "one\n") + "'");
  CHECK(counts.exit_code == 1);
  CHECK(counts.err.find("has 4 lines but") != std::string::npos);
  CHECK(counts.err.find("has 1") != std::string::npos);
  const auto no_tab = test::run_s2s("score " + model_arg(kModel), "a\tb\nno tab here\n");
  CHECK(no_tab.exit_code == 1);
  CHECK(no_tab.err == "s2s: error: standard input: line 2 has no tab between source and target\n");
  const auto both = test::run_s2s("score -n --summary ce-sum " + model_arg(kModel), "a\tb\n");
  CHECK(both.exit_code == 2);
  const auto bad = test::run_s2s("score --summary mean " + model_arg(kModel), "a\tb\n");
  CHECK(bad.exit_code == 2);
  // A third column is not part of the target.
  const auto three = test::run_s2s("score " + model_arg(kModel), "a\tb\nc\td\te\n");
  CHECK(three.exit_code == 1);
  CHECK(three.err ==
        "s2s: error: standard input: line 2 has more than two tab-separated fields "
        "(source<TAB>target)\n");
  const auto skipped = test::run_s2s("score --skip-bad " + model_arg(kModel), "a\tb\nc\td\te\n");
  CHECK(skipped.exit_code == 0);
  CHECK(lines_of(skipped.out).size() == 2);
  CHECK(lines_of(skipped.out)[1].empty());
}

TEST_CASE("score: every combination of options works or is a usage error", "[cli]") {
  const std::string pairs = "the license is free\tdie Lizenz ist frei\nhello\thallo\n";
  // A bare --summary is cross-entropy, which is ce-mean (marian-scorer's names).
  const auto bare = test::run_s2s("score " + model_arg(kModel) + " --summary", pairs);
  const auto ce = test::run_s2s("score --summary cross-entropy " + model_arg(kModel), pairs);
  const auto mean = test::run_s2s("score --summary ce-mean " + model_arg(kModel), pairs);
  INFO(bare.err);
  CHECK(bare.exit_code == 0);
  CHECK(bare.out == mean.out);
  CHECK(ce.out == mean.out);
  // jsonl summaries are JSON.
  const auto json = test::run_s2s("score --summary perplexity --format jsonl " + model_arg(kModel), pairs);
  const auto figure = nlohmann::json::parse(json.out);
  CHECK(figure["summary"] == "perplexity");
  const auto plain = test::run_s2s("score --summary perplexity " + model_arg(kModel), pairs);
  CHECK(figure["value"].get<double>() == Approx(std::stod(plain.out)).epsilon(1e-5));
  // What cannot be combined says so.
  const std::string list = write_temp("list.nbest", "0 ||| die Lizenz ||| F0= -1 ||| -1\n");
  const std::string src = write_temp("list.src", "the license is free\n");
  for (const std::string& args :
       {std::string("--summary --word-scores"), "--summary ce-sum --n-best '" + list + "' --source '" + src + "'",
        "--n-best '" + list + "' --source '" + src + "' --format jsonl",
        "--n-best '" + list + "' --source '" + src + "' --word-scores"}) {
    const auto r = test::run_s2s("score " + model_arg(kModel) + " " + args, pairs);
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
    CHECK(r.out.empty());
  }
}

TEST_CASE("score agrees with translate's own scores", "[cli]") {
  // For every greedy translation whose text re-encodes to exactly the tokens that were searched (random
  // fixture models often emit pieces that do not survive detokenization), `s2s score` on
  // (source, translation) must print the score `s2s translate` reported for it. Protection off:
  // score reads the pair as it is, so translate must too.
  std::size_t compared = 0;
  for (const test::FixtureModel& fixture : test::all_fixtures()) {
    if (fixture.spm_from) continue;  // folder without SentencePiece models
    const std::string name = fixture.name;
    const auto model = test::load_fixture(fixture);
    const auto sources = lines_of(test::read_file(golden(name, ".sources.txt")));
    std::string input;
    for (const std::string& line : sources) input += line + "\n";
    const auto translated =
        test::run_s2s("translate -b 1 --protect off --format jsonl " + model_arg(name), input);
    INFO(name << ": " << translated.err);
    REQUIRE(translated.exit_code == 0);
    const auto records = lines_of(translated.out);
    REQUIRE(records.size() == sources.size());
    std::string pairs;
    std::vector<double> expected;
    for (std::size_t i = 0; i < records.size(); ++i) {
      {
        const auto hyp = nlohmann::json::parse(records[i]);
        const std::string text = hyp["translation"].get<std::string>();
        std::vector<std::int32_t> searched;
        for (const auto& piece : hyp["tokens"])
          searched.push_back(model->codec().target_vocab().id_of(piece.get<std::string>()));
        if (model->codec().encode_target(text) != searched) continue;
        pairs += sources[i] + "\t" + text + "\n";
        expected.push_back(hyp["score"].get<double>());
      }
    }
    const auto scored = test::run_s2s("score " + model_arg(name), pairs);
    const auto printed = lines_of(scored.out);
    REQUIRE(printed.size() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k)
      CHECK(std::stod(printed[k]) == Approx(expected[k]).epsilon(1e-4).margin(1e-5));
    compared += expected.size();
  }
  INFO("hypotheses compared: " << compared);
  CHECK(compared >= 3);
}

TEST_CASE("score rescores a Marian n-best list, adding one feature per line", "[cli]") {
  const std::string src = golden(kModel, ".sources.txt");
  const auto nbest = test::run_s2s("translate -b 2 --n-best --format nbest " + model_arg(kModel),
                                   test::read_file(src));
  REQUIRE(nbest.exit_code == 0);
  const std::string list = write_temp("list.nbest", nbest.out);
  const auto rescored = test::run_s2s("score " + model_arg(kModel) + " --source '" + src +
                                      "' --n-best '" + list + "' --n-best-feature LM");
  INFO(rescored.err);
  REQUIRE(rescored.exit_code == 0);
  const auto in_lines = lines_of(nbest.out), out_lines = lines_of(rescored.out);
  REQUIRE(in_lines.size() == out_lines.size());
  REQUIRE(in_lines.size() == 8);  // 4 sentences x beam 2
  for (std::size_t i = 0; i < in_lines.size(); ++i) {
    // "id ||| text ||| F0= s ||| norm" becomes "id ||| text ||| F0= s LM= s2  ||| norm".
    const std::size_t feat = in_lines[i].find(" ||| F0= ");
    const std::size_t last = in_lines[i].rfind(" ||| ");
    CHECK(out_lines[i].substr(0, last) == in_lines[i].substr(0, last));
    CHECK(out_lines[i].find(" LM= ", feat) != std::string::npos);
    CHECK(out_lines[i].substr(out_lines[i].rfind("||| ")) == in_lines[i].substr(last + 1));
  }
  const auto missing = test::run_s2s("score " + model_arg(kModel) + " --n-best '" + list + "'");
  CHECK(missing.exit_code == 2);
}

}  // namespace s2s

namespace s2s {

TEST_CASE("score warns about a pair longer than a learned position table, and scores it", "[cli]") {
  std::string long_line;
  for (int i = 0; i < 80; ++i) long_line += "word ";
  const auto r = test::run_s2s("score " + model_arg("marian-ffn3-learnedpos-legacyW"),
                               "short\tline\n" + long_line + "\t" + long_line + "\n");
  REQUIRE(r.exit_code == 0);
  CHECK(test::count_lines(r.out) == 2);
  CHECK(r.err == "s2s: warning: pair 2 is longer than the model's 64 positions; scored with the "
                 "last position repeated, as Marian does\n");
}

}  // namespace s2s
