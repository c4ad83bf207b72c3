// The public API (s2s/s2s.h): an Engine gives what the Translator and Scorer give under the same
// settings, takes settings by the CLI's names, and reports bad ones before loading.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "s2s/formats/detect.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/pipeline/translator.h"
#include "s2s/s2s.h"
#include "../app/cli_runner.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("Engine translates as the Translator does, with the model's own settings",
          "[pipeline]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  const std::vector<std::string> lines = {"The license is free.", "", "Hello world.", "the the"};
  const Engine engine(folder, {{"beam-size", "3"}, {"normalize", "0.6"}, {"threads", "1"}});
  const std::vector<std::string> texts = engine.translate(lines);

  const auto model = formats::load_model(folder);
  pipeline::TranslateOptions options;
  options.search.beam_size = 3;
  options.search.normalize = 0.6f;
  const std::vector<pipeline::Translation> expected =
      pipeline::Translator(model, options).translate(lines);
  REQUIRE(texts.size() == lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string want = expected[i].hypotheses.empty()
                                 ? std::string()
                                 : model->codec().decode_target(expected[i].hypotheses[0].ids);
    CHECK(texts[i] == want);
  }
  CHECK(texts[1].empty());
}

TEST_CASE("Engine with no-spm-decode gives the target pieces separated by spaces", "[pipeline]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  const std::vector<std::string> lines = {"The license is free.", ""};
  const Engine engine(folder, {{"no-spm-decode", "true"}, {"beam-size", "2"}, {"normalize", "0"},
                               {"threads", "1"}});
  const std::vector<std::string> texts = engine.translate(lines);
  const auto model = formats::load_model(folder);
  pipeline::TranslateOptions options;
  options.search.beam_size = 2;
  const std::vector<pipeline::Translation> expected =
      pipeline::Translator(model, options).translate(lines);
  REQUIRE(texts.size() == 2);
  std::string want;
  for (const std::string& piece : model->codec().target_pieces(expected[0].hypotheses[0].ids))
    want += (want.empty() ? "" : " ") + piece;
  CHECK(texts[0] == want);
  CHECK(texts[0] != model->codec().decode_target(expected[0].hypotheses[0].ids));
  CHECK(texts[1].empty());
}

TEST_CASE("Engine gives n-best lists with scores, and scores pairs", "[pipeline]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  const Engine engine(folder, {{"beam-size", "4"}, {"n-best", "true"}, {"threads", "1"}});
  const auto lists = engine.translate_n_best({"The license is free.", "  "});
  REQUIRE(lists.size() == 2);
  CHECK(lists[0].size() == 4);
  CHECK(lists[1].empty());
  for (std::size_t k = 1; k < lists[0].size(); ++k)
    CHECK(lists[0][k - 1].normalized_score >= lists[0][k].normalized_score);

  // Forced decoding of the best candidate gives its score back.
  const auto scores = engine.score({{"The license is free.", lists[0][0].text}});
  REQUIRE(scores.size() == 1);
  const auto model = formats::load_model(folder);
  const auto pair = pipeline::Scorer(model, pipeline::ScoreOptions{})
                        .score({{"The license is free.", lists[0][0].text}});
  CHECK(scores[0].score == Approx(pair[0].score));
  CHECK(scores[0].target_tokens == pair[0].target_ids.size());
}

TEST_CASE("Engine refuses bad settings and folders with one-line errors", "[pipeline]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  CHECK_THROWS_AS(Engine(folder, {{"beam-sise", "4"}}), UsageError);
  CHECK_THROWS_WITH(Engine(folder, {{"beam-size", "0"}}), "beam-size: '0' must be at least 1");
  CHECK_THROWS_AS(Engine(test::data_path("nowhere")), ModelError);
  // Marian's names are settings too.
  CHECK_NOTHROW(Engine(folder, {{"mini-batch", "8"}, {"cpu-threads", "1"}}));
}

}  // namespace s2s

namespace s2s {

TEST_CASE("Engine takes the languages of NLLB and multilingual models as translate does",
          "[pipeline]") {
  const std::string nllb = test::data_path("models/hf-nllb-tied");
  // Without languages an NLLB model cannot translate: a usage error, never a guess.
  CHECK_THROWS_AS(Engine(nllb, {{"beam-size", "2"}}), UsageError);
  CHECK_THROWS_AS(Engine(nllb, {{"source-lang", "en"}, {"target-lang", "xx"}}), UsageError);
  const Engine engine(nllb, {{"beam-size", "2"}, {"source-lang", "en"}, {"target-lang", "de"}});
  const std::string line = "the license is free";
  const auto cli = test::run_s2s("translate -b 2 --source-lang en --target-lang de -m '" + nllb + "'",
                                 line + "\n");
  REQUIRE(cli.exit_code == 0);
  CHECK(engine.translate({line}).at(0) + "\n" == cli.out);
  // A Marian model without >>xxx<< labels refuses --source-lang and a target label.
  const std::string marian = test::data_path("models/marian-postnorm-swish-tiedall");
  CHECK_THROWS_AS(Engine(marian, {{"source-lang", "en"}}), UsageError);
  CHECK_THROWS_AS(Engine(marian, {{"target-lang", "deu"}}), UsageError);
}

}  // namespace s2s
