// NLLB-200 / M2M-100 models (Hugging Face folders and their CTranslate2 conversions) in the
// rest of s2s: `s2s score` with the language tokens placed as translation places them (against
// the numpy reference's log-probabilities, golden/<name>.translate.json), --alignment on models
// without an alignment layer, int8 / bfloat16, sentence splitting, and `s2s info`.
#include <cmath>
#include <tuple>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli_runner.h"
#include "fixtures.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "formats/m2m100_goldens.h"
#include "model/golden.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/languages.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/s2s.h"
#include "test_utils.h"

namespace s2s {
namespace {

using nlohmann::json;

constexpr double kTolerance = 1e-4;  // on float32 log-probabilities (and their sums), relative

std::string model_dir(const std::string& name) { return test::data_path("models/" + name); }
std::string model_arg(const std::string& name) { return "-m '" + model_dir(name) + "'"; }


bool close(double actual, double expected) {
  return std::abs(actual - expected) <= kTolerance * std::max(1.0, std::abs(expected));
}

// Each fixture's golden pair of languages (tools/fixtures/make_m2m100_fixtures.py FIXTURES).
std::pair<std::string, std::string> golden_languages(const std::string& golden) {
  if (golden == "hf-m2m100-tied") return {"en", "de"};
  return {"eng_Latn", "deu_Latn"};
}

// The lines of golden/<name>.<suffix>.txt.
std::vector<std::string> golden_lines(const std::string& name, const std::string& suffix) {
  std::ifstream in(test::data_path("golden/" + name + "." + suffix + ".txt"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("score places the language tokens as translation does: the reference's log-probabilities",
          "[formats][m2m100][score]") {
  // The reference's teacher-forced log-probabilities of the golden pairs ([tgt_lang] text </s>
  // from </s>); the CTranslate2 conversion against those of the folder it came from.
  const auto [name, golden] = GENERATE(std::pair{"hf-nllb-tied", "hf-nllb-tied"},
                                       std::pair{"hf-nllb-sharded-untied-legacy", "hf-nllb-sharded-untied-legacy"},
                                       std::pair{"hf-m2m100-tied", "hf-m2m100-tied"},
                                       std::pair{"ct2-nllb-untied-legacy", "hf-nllb-sharded-untied-legacy"});
  const auto model = formats::load_model(model_dir(name));
  pipeline::ScoreSettings settings;
  std::tie(settings.source_lang, settings.target_lang) = golden_languages(golden);
  pipeline::apply_languages(*model, settings);
  settings.score.normalize = 1.0f;
  const pipeline::Scorer scorer(model, settings.score);
  const std::vector<std::string> sources = golden_lines(golden, "sources");
  const std::vector<std::string> targets = golden_lines(golden, "targets");
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 0; i < sources.size(); ++i)  // the sources start with their language token
    pairs.emplace_back(sources[i].substr(sources[i].find(' ') + 1), targets.at(i));
  const auto scores = scorer.score(pairs);
  const test::Golden g(golden);
  const Tensor tgt_ids = g.get("tgt_ids");
  const Tensor log_probs = g.get("forward_all_logprobs");  // [B, T, V]
  const std::vector<std::int32_t> lengths = test::lengths_of(g.get("tgt_lengths"));
  REQUIRE(scores.size() == lengths.size());
  for (std::size_t b = 0; b < scores.size(); ++b) {
    const pipeline::PairScore& s = scores[b];
    INFO(name << ": " << pairs[b].first << " -> " << pairs[b].second);
    // The golden target is [tgt_lang] text </s>: the language token is given, not scored.
    const std::vector<std::int32_t> ids = test::row(tgt_ids, static_cast<dim_t>(b), lengths[b]);
    REQUIRE(s.target_ids == std::vector<std::int32_t>(ids.begin() + 1, ids.end()));
    double sum = 0.0;
    for (std::size_t t = 0; t < s.target_ids.size(); ++t) {
      const dim_t step = static_cast<dim_t>(t) + 1;
      const double expected = log_probs.data<float>()[(static_cast<dim_t>(b) * log_probs.dim(1) + step) *
                                                          log_probs.dim(2) + ids[step]];
      CHECK(close(s.token_scores[t], expected));
      sum += expected;
    }
    CHECK(close(s.score, sum));
    // Normalised by the length with the language token, as translation normalises.
    CHECK(close(s.normalized_score, s.score / static_cast<double>(s.target_ids.size() + 1)));
  }
}

TEST_CASE("s2s score on NLLB-200 takes --source-lang / --target-lang", "[formats][m2m100][score][cli]") {
  const std::vector<std::string> sources = golden_lines("hf-nllb-tied", "sources");
  const std::string source = sources[0].substr(sources[0].find(' ') + 1);
  const std::string target = golden_lines("hf-nllb-tied", "targets")[0];
  const auto model = formats::load_model(model_dir("hf-nllb-tied"));
  pipeline::ScoreSettings settings;
  settings.source_lang = "eng_Latn";
  settings.target_lang = "deu_Latn";
  pipeline::apply_languages(*model, settings);
  const float expected = pipeline::Scorer(model, settings.score).score({{source, target}})[0].score;
  for (const char* name : {"hf-nllb-tied", "ct2-nllb-tied"}) {
    const auto r = test::run_s2s("score --source-lang en --target-lang deu_Latn " + model_arg(name),
                                 source + "\t" + target + "\n");
    INFO(name << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(close(std::stod(r.out), expected));
  }
  const auto missing = test::run_s2s("score --source-lang eng_Latn " + model_arg("hf-nllb-tied"), "a\tb\n");
  CHECK(missing.exit_code == 2);
  CHECK(test::count_lines(missing.err) == 1);
  CHECK(missing.err.find("--target-lang") != std::string::npos);
  const auto marian = test::run_s2s("score --target-lang deu " + model_arg("marian-postnorm-swish-tiedall"),
                                    "a\tb\n");
  CHECK(marian.exit_code == 2);
  CHECK(marian.err.find("NLLB-200 and M2M-100 models only") != std::string::npos);
}

TEST_CASE("the library's Engine scores NLLB-200 with its languages, as s2s score does",
          "[formats][m2m100][score]") {
  const std::vector<std::string> sources = golden_lines("hf-nllb-tied", "sources");
  const std::pair<std::string, std::string> pair{sources[1].substr(sources[1].find(' ') + 1),
                                                 golden_lines("hf-nllb-tied", "targets")[1]};
  const auto model = formats::load_model(model_dir("hf-nllb-tied"));
  pipeline::ScoreSettings settings;
  settings.source_lang = "eng_Latn";
  settings.target_lang = "deu_Latn";
  pipeline::apply_languages(*model, settings);
  const pipeline::PairScore expected = pipeline::Scorer(model, settings.score).score({pair})[0];
  const Engine engine(model_dir("hf-nllb-tied"), {{"source-lang", "en"}, {"target-lang", "de"}});
  const std::vector<ScoringResult> got = engine.score_batch({pair});
  REQUIRE(got.size() == 1);
  CHECK(close(got[0].score, expected.score));
  CHECK(got[0].token_scores.size() == expected.token_scores.size());
}

TEST_CASE("alignment (--alignment) on NLLB-200 / M2M-100: refused, saying the models have no alignment head",
          "[formats][m2m100][cli]") {
  for (const char* name : {"hf-nllb-tied", "ct2-m2m100-tied"}) {
    const std::string langs = std::string(" --source-lang en --target-lang de ") + model_arg(name);
    for (const std::string command : {"translate --alignment", "score --alignment"}) {
      const auto r = test::run_s2s(command + langs, command[0] == 't' ? "the license\n" : "a\tb\n");
      INFO(name << ": " << command << ": " << r.err);
      CHECK(r.exit_code == 2);
      CHECK(test::count_lines(r.err) == 1);
      CHECK(r.err.find("trained without guided alignment") != std::string::npos);
    }
  }
}

TEST_CASE("NLLB-200 / M2M-100 in bfloat16 and int8 stay close to the reference",
          "[formats][m2m100][precision]") {
  for (const ops::Precision precision : {ops::Precision::bf16, ops::Precision::int8}) {
    if (!test::cpu_computes(precision)) continue;
    for (const auto& [name, golden] : {std::pair{"hf-nllb-tied", "hf-nllb-tied"},
                                       std::pair{"ct2-m2m100-tied", "hf-m2m100-tied"}}) {
      const auto model = formats::load_model(model_dir(name), {}, precision);
      // Norm-wise: max |a - b| / max |b|. The tiny models' measured figures are in docs/models.md.
      const double error = test::golden_logits_error(*model, golden, 1.0);
      INFO(name << " " << ops::precision_name(precision) << ": norm-wise error " << error);
      CHECK(error < 0.1);
      CHECK(error > 0.0);  // the weights are packed in the precision asked for
    }
  }
}

TEST_CASE("NLLB-200: every sentence of a line gets both language tokens", "[formats][m2m100][cli]") {
  const json runs = test::golden_translations("hf-nllb-tied");
  const json& a = runs[0];  // eng_Latn -> deu_Latn, greedy, two sentences of the goldens
  const json& b = runs[2];
  REQUIRE(b["source_lang"] == "eng_Latn");
  REQUIRE(b["beam_size"] == 1);
  const std::string line = a["source"].get<std::string>() + " " + b["source"].get<std::string>();
  const auto r = test::run_s2s("translate -b 1 --source-lang eng_Latn --target-lang deu_Latn " +
                                   model_arg("hf-nllb-tied"),
                               line + "\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == a["text"].get<std::string>() + " " + b["text"].get<std::string>() + "\n");
}

TEST_CASE("glossary (--glossary) on NLLB-200 / M2M-100: the terms placed after the target-language token",
          "[formats][m2m100][cli]") {
  const test::TempDir tmp("m2m100_use");
  const std::string terms = tmp.write("terms.tsv", "license\tLizenz\n");
  for (const char* name : {"hf-nllb-tied", "ct2-m2m100-tied"}) {
    const std::string args = std::string(" --source-lang en --target-lang de ") + model_arg(name);
    const auto plain = test::run_s2s("translate" + args, "the license\n");
    const auto r = test::run_s2s("translate --format jsonl --glossary '" + terms + "'" + args,
                                 "the license\n");
    INFO(name << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(plain.out.find("Lizenz") == std::string::npos);  // the term is the glossary's doing
    const json out = json::parse(r.out);
    const std::string translation = out["translation"];
    CHECK(translation.find("Lizenz") != std::string::npos);
    // Each token's score is the model's log-probability of it after </s> and the forced
    // target-language token (teacher-forced here): the terms did not displace that token.
    const auto model = formats::load_model(model_dir(name));
    const text::LanguageTokens& languages = model->codec().languages();
    const text::Vocabulary& vocab = model->codec().target_vocab();
    std::vector<std::int32_t> target = {vocab.id_of(languages.resolve("de", "--target-lang"))};
    for (const json& token : out["tokens"]) target.push_back(vocab.id_of(token.get<std::string>()));
    const batch::Batch source = batch::make_batch(
        {model->codec().encode_source(languages.resolve("en", "--source-lang") + " the license")});
    const model::EncoderOutput encoded = test::encode(model->encoder(), source.ids, source.lengths);
    Tensor log_probs;
    test::target_log_probs(model->decoder(), encoded, batch::make_batch({target}).ids, log_probs);
    const auto token_scores = out["token_scores"].get<std::vector<double>>();
    REQUIRE(token_scores.size() + 1 == target.size());
    for (std::size_t t = 0; t < token_scores.size(); ++t)
      CHECK(close(log_probs.data<float>()[t + 1], token_scores[t]));
  }
}

TEST_CASE("glossary on NLLB-200: terms that do not fit fall back to the plain translation "
          "with its target-language token", "[formats][m2m100][cli]") {
  const test::TempDir tmp("m2m100_fallback");
  // Eight copies of the term cannot follow the language token within the length limit.
  const std::string terms = tmp.write("terms.tsv", "license\tLizenz Lizenz Lizenz Lizenz Lizenz "
                                                   "Lizenz Lizenz Lizenz\n");
  const std::string args = " --format jsonl --max-length-factor 1 --source-lang en --target-lang de " +
                           model_arg("hf-nllb-tied");
  const auto plain = test::run_s2s("translate" + args, "the license is free\n");
  const auto r = test::run_s2s("translate --glossary '" + terms + "'" + args, "the license is free\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("translated without them") != std::string::npos);
  CHECK(!json::parse(plain.out)["translation"].get<std::string>().empty());
  CHECK(r.out == plain.out);
}

TEST_CASE("s2s info describes NLLB-200 / M2M-100: family, languages, sizes", "[formats][m2m100][cli]") {
  const auto nllb = test::run_s2s("info " + model_arg("hf-nllb-sharded-untied-legacy"));
  REQUIRE(nllb.exit_code == 0);
  CHECK(nllb.out.find("format: hf-nllb\n") != std::string::npos);
  CHECK(nllb.out.find("transformer (Hugging Face NLLB-200") != std::string::npos);
  CHECK(nllb.out.find("languages (--source-lang, --target-lang; 202, source token after </s>: "
                      "legacy_behaviour): ace_Arab ace_Latn") != std::string::npos);
  CHECK(nllb.out.find("vocabulary: source 366, target 366\n") != std::string::npos);
  CHECK(nllb.out.find("parameters: ") != std::string::npos);
  const auto m2m = test::run_s2s("info " + model_arg("ct2-m2m100-tied"));
  REQUIRE(m2m.exit_code == 0);
  CHECK(m2m.out.find("transformer (CTranslate2 conversion of M2M-100)") != std::string::npos);
  CHECK(m2m.out.find("languages (--source-lang, --target-lang; 100, source token first): af am ar") !=
        std::string::npos);
}

}  // namespace s2s
