// Beam search against the numpy reference of Marian's rules (tools/reference/marian_search.py):
// n-best lists token for token, scores within float tolerance, for every fixture model (Marian,
// Hugging Face, CTranslate2) at beam 1, 4 and 6, with and without length normalisation, word
// penalty, allow-unk and the per-model rules (banned ids, minimum length). All sentences of a
// fixture are searched as one batch, so this also shows that batching changes nothing. The 1-best
// search (which stops a sentence once its best cannot change) must find the n-best list's first.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "golden_search.h"
#include "s2s/search/beam.h"
#include "s2s/search/scoring_rules.h"

namespace s2s {
namespace {

constexpr double kScoreTolerance = 1e-4;  // relative, on summed float32 log-probabilities

nlohmann::json load_golden(const std::string& name) {
  std::ifstream in(test::data_path("golden/" + name + ".search.json"));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

bool close(double a, double b) {
  return std::fabs(a - b) <= kScoreTolerance * std::max(1.0, std::fabs(b));
}

}  // namespace

TEST_CASE("beam search matches the reference n-best lists", "[search][parity]") {
  for (const test::FixtureModel& fixture : test::all_fixtures()) {
    const std::string name = fixture.name;
    SECTION(name) {
      const test::GoldenSearch g = test::load_golden_search(fixture, "search");
      const auto& [model, golden, sources, encoded] = g;

      for (const auto& run : golden["runs"]) {
        search::SearchOptions options;
        options.beam_size = run["beam_size"].get<dim_t>();
        options.normalize = run["normalize"].get<float>();
        options.word_penalty = run["word_penalty"].get<float>();
        options.allow_unk = run["allow_unk"].get<bool>();
        options.min_length = run.value("min_length", dim_t{0});
        options.n_best = true;
        CHECK(model->config().suppressed_ids ==
              run.value("banned_ids", std::vector<std::int32_t>{}));
        const auto found = search::beam_search(*model, encoded, options);
        REQUIRE(found.size() == sources.size());
        for (std::size_t s = 0; s < sources.size(); ++s) {
          const auto& expected = run["results"][s];
          INFO(name << ": beam " << options.beam_size << ", normalize " << options.normalize
                    << ", word penalty " << options.word_penalty << ", allow-unk "
                    << options.allow_unk << ", sentence " << s);
          REQUIRE(found[s].size() == expected.size());
          for (std::size_t h = 0; h < expected.size(); ++h) {
            INFO("hypothesis " << h);
            CHECK(found[s][h].ids == expected[h]["ids"].get<std::vector<std::int32_t>>());
            CHECK(close(found[s][h].score, expected[h]["score"].get<double>()));
            CHECK(close(found[s][h].normalized_score, expected[h]["normalized"].get<double>()));
            const auto token_scores = expected[h]["token_logprobs"].get<std::vector<double>>();
            REQUIRE(found[s][h].token_scores.size() == token_scores.size());
            for (std::size_t t = 0; t < token_scores.size(); ++t)
              CHECK(close(found[s][h].token_scores[t], token_scores[t]));
          }
        }
        // The 1-best alone: the search stops a sentence as soon as no live hypothesis can beat
        // its best finished one (settled() in beam.cc), and must still find the same best.
        options.n_best = false;
        const auto best = search::beam_search(*model, encoded, options);
        REQUIRE(best.size() == sources.size());
        for (std::size_t s = 0; s < sources.size(); ++s) {
          INFO(name << ": 1-best, beam " << options.beam_size << ", normalize "
                    << options.normalize << ", word penalty " << options.word_penalty
                    << ", sentence " << s);
          const auto& expected = run["results"][s][0];
          REQUIRE(best[s].size() == 1);
          CHECK(best[s][0].ids == expected["ids"].get<std::vector<std::int32_t>>());
          CHECK(close(best[s][0].score, expected["score"].get<double>()));
          CHECK(close(best[s][0].normalized_score, expected["normalized"].get<double>()));
        }
      }
    }
  }
}

TEST_CASE("a beam wider than the insertion top-k matches the reference n-best list", "[search][parity]") {
  // tools/fixtures/make_wide_beam_golden.py: beam 70 (> kInsertionTopK), where each row's best
  // extensions come from nth_element instead of TopKList.
  std::ifstream in(test::data_path("golden/marian-postnorm-swish-tiedall.wide-beam.json"));
  REQUIRE(in);
  const nlohmann::json golden = nlohmann::json::parse(in);
  const auto model = test::load_fixture(test::fixture_named("marian-postnorm-swish-tiedall"));
  const batch::Batch one = batch::make_batch({golden["src_ids"].get<std::vector<std::int32_t>>()},
                                             model->config().source_eos_id);
  search::SearchOptions options;
  options.beam_size = golden["beam_size"].get<dim_t>();
  options.n_best = true;
  const auto found =
      search::beam_search(*model, test::encode(model->encoder(), one.ids, one.lengths), options);
  REQUIRE(found.size() == 1);
  const auto expected = golden["nbest"].get<std::vector<std::vector<std::int32_t>>>();
  REQUIRE(found[0].size() == expected.size());
  for (std::size_t h = 0; h < expected.size(); ++h) {
    INFO("hypothesis " << h);
    CHECK(found[0][h].ids == expected[h]);
  }
}

TEST_CASE("a sentence's beam result does not depend on its batch", "[search]") {
  const auto model = test::load_fixture(test::marian_fixtures()[1]);
  const nlohmann::json golden = load_golden("marian-prenorm-relu-untied");
  std::vector<std::vector<std::int32_t>> sources;
  for (const auto& s : golden["sentences"]) sources.push_back(s["src_ids"].get<std::vector<std::int32_t>>());
  search::SearchOptions options;
  options.beam_size = 5;
  options.n_best = true;
  const batch::Batch all = batch::make_batch(sources, model->config().source_eos_id);
  const auto together =
      search::beam_search(*model, test::encode(model->encoder(), all.ids, all.lengths), options);
  for (std::size_t s = 0; s < sources.size(); ++s) {
    const batch::Batch one = batch::make_batch({sources[s]}, model->config().source_eos_id);
    const auto alone =
        search::beam_search(*model, test::encode(model->encoder(), one.ids, one.lengths), options);
    REQUIRE(alone[0].size() == together[s].size());
    CHECK(static_cast<dim_t>(alone[0].size()) == options.beam_size);
    for (std::size_t h = 0; h < alone[0].size(); ++h) {
      CHECK(alone[0][h].ids == together[s][h].ids);
      CHECK(alone[0][h].score == Approx(together[s][h].score).epsilon(1e-5));
      if (h > 0) CHECK(together[s][h - 1].normalized_score >= together[s][h].normalized_score);
    }
  }
}

}  // namespace s2s

namespace s2s {

TEST_CASE("best reachable score bounds every continuation, or is infinite", "[search]") {
  search::SearchOptions options;  // normalize 0: the penalized score itself
  options.word_penalty = 0.5f;
  CHECK(search::best_reachable_score(-3.0f, 4, 20, options) == -3.0f - 0.5f * 5);
  options.normalize = 1.0f;  // the longest length gives the highest score of a negative sum
  const float bound = search::best_reachable_score(-3.0f, 4, 20, options);
  CHECK(bound >= (-3.0f - 0.5f * 5) / 20.0f);
  CHECK(bound == Approx((-3.0f - 0.5f * 5) / 20.0f));
  for (dim_t length = 5; length <= 20; ++length)
    CHECK(search::normalized_score(-3.0f, static_cast<std::size_t>(length), options) <= bound);
  options.word_penalty = -0.5f;  // a reward per token: no bound
  CHECK(std::isinf(search::best_reachable_score(-3.0f, 4, 20, options)));
}

}  // namespace s2s
