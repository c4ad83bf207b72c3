// Scorer against the reference's teacher-forced log-probabilities (marian_search.score_pairs),
// and consistency with beam search: the score of a translation equals the search's own score.
#include <fstream>
#include <nlohmann/json.hpp>

#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/scorer.h"
#include "s2s/pipeline/translator.h"
#include "test_utils.h"

namespace s2s {
namespace {

const char* const kFixtures[] = {
    "marian-postnorm-swish-tiedall",
    "marian-prenorm-relu-untied",
    "marian-ymlids-gelu-tied",
    "marian-ffn3-learnedpos-legacyW",
};

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("pair scores match the reference", "[pipeline][parity]") {
  for (const char* name : kFixtures) {
    SECTION(name) {
      const auto model = formats::load_model(test::data_path(std::string("models/") + name));
      std::ifstream in(test::data_path(std::string("golden/") + name + ".search.json"));
      const nlohmann::json golden = nlohmann::json::parse(in);
      const auto sources = read_lines(test::data_path(std::string("golden/") + name + ".sources.txt"));
      const auto targets = read_lines(test::data_path(std::string("golden/") + name + ".targets.txt"));
      std::vector<std::pair<std::string, std::string>> pairs;
      for (std::size_t i = 0; i < sources.size(); ++i) pairs.emplace_back(sources[i], targets[i]);

      pipeline::ScoreOptions options;
      options.batch_size = 3;  // two batches of different shapes
      const auto scores = pipeline::Scorer(model, options).score(pairs);
      double worst = 0.0;
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto& expected = golden["scores"][i];
        CHECK(scores[i].target_ids == expected["tgt_ids"].get<std::vector<std::int32_t>>());
        const double want = expected["score"].get<double>();
        worst = std::max(worst, std::fabs(scores[i].score - want) / std::max(1.0, std::fabs(want)));
        const auto tokens = expected["token_logprobs"].get<std::vector<double>>();
        REQUIRE(tokens.size() == scores[i].token_scores.size());
        for (std::size_t t = 0; t < tokens.size(); ++t)
          CHECK(scores[i].token_scores[t] == Approx(tokens[t]).margin(1e-4));
      }
      std::printf("parity %-32s %-20s max rel error %.2g\n", name, "pair scores", worst);
      CHECK(worst <= 1e-4);
    }
  }
}

TEST_CASE("scoring a translation gives the score the search reported", "[pipeline]") {
  for (const char* name : kFixtures) {
    SECTION(name) {
      const auto model = formats::load_model(test::data_path(std::string("models/") + name));
      const auto sources = read_lines(test::data_path(std::string("golden/") + name + ".sources.txt"));
      pipeline::TranslateOptions topts;
      topts.search.beam_size = 1;
      topts.search.allow_unk = true;  // suppressing <unk> changes the distribution searched
      const auto translations = pipeline::Translator(model, topts).translate(sources);
      for (std::size_t i = 0; i < sources.size(); ++i) {
        const search::Hypothesis& best = translations[i].hypotheses.at(0);
        if (best.ids.back() != model->config().eos_id) continue;  // cut: text would add </s>
        // Score the ids themselves (text round trips are not always exact for random models).
        const batch::Batch src = batch::make_batch({model->codec().encode_source(sources[i])});
        const batch::Batch tgt = batch::make_batch({best.ids});
        Tensor log_probs;
        test::target_log_probs(model->decoder(),
                               test::encode(model->encoder(), src.ids, src.lengths), tgt.ids,
                               log_probs);
        float sum = 0.0f;
        for (dim_t t = 0; t < log_probs.numel(); ++t) sum += log_probs.data<float>()[t];
        CHECK(sum == Approx(best.score).epsilon(1e-4));
      }
      // Empty source and empty target are scored, not skipped.
      const auto empty =
          pipeline::Scorer(model, pipeline::ScoreOptions{}).score({{"", ""}, {sources[0], ""}});
      REQUIRE(empty.size() == 2);
      for (const pipeline::PairScore& s : empty) {
        CHECK(s.target_ids == std::vector<std::int32_t>{model->config().eos_id});
        CHECK(std::isfinite(s.score));
        CHECK(s.score <= 0.0f);
      }
    }
  }
}

}  // namespace s2s
