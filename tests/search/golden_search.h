// A search golden file of the numpy reference (tools/fixtures/make_*_goldens.py) with what a
// test needs to run the same searches: the fixture's model, the parsed JSON, and its sentences
// ("sentences"[i]["src_ids"]) encoded together in one batch.
#pragma once

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fixtures.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "s2s/model/model.h"
#include "s2s/search/options.h"
#include "s2s/search/hypothesis.h"

namespace s2s::test {

struct GoldenSearch {
  std::shared_ptr<const model::Model> model;
  nlohmann::json golden;
  std::vector<std::vector<std::int32_t>> sources;
  model::EncoderOutput encoded;
};

// golden/<fixture name>.<kind>.json, e.g. kind "search", "prefix", "repetition".
inline GoldenSearch load_golden_search(const FixtureModel& fixture, const std::string& kind) {
  GoldenSearch g;
  g.model = load_fixture(fixture);
  std::ifstream in(data_path("golden/" + std::string(fixture.name) + "." + kind + ".json"));
  REQUIRE(in);
  g.golden = nlohmann::json::parse(in);
  for (const auto& s : g.golden["sentences"])
    g.sources.push_back(s["src_ids"].get<std::vector<std::int32_t>>());
  const batch::Batch batch = batch::make_batch(g.sources, g.model->config().source_eos_id);
  g.encoded = test::encode(g.model->encoder(), batch.ids, batch.lengths);
  return g;
}

// Within 1e-4, relative to the reference value (absolute below 1).
inline bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(b));
}

// A hypothesis against a reference one: ids exact, token scores, score and normalized close.
inline void check_hypothesis(const search::Hypothesis& found, const nlohmann::json& expected) {
  CHECK(found.ids == expected["ids"].get<std::vector<std::int32_t>>());
  const auto token_scores = expected["token_logprobs"].get<std::vector<double>>();
  REQUIRE(found.token_scores.size() == token_scores.size());
  for (std::size_t t = 0; t < token_scores.size(); ++t)
    CHECK(close(found.token_scores[t], token_scores[t]));
  CHECK(close(found.score, expected["score"].get<double>()));
  CHECK(close(found.normalized_score, expected["normalized"].get<double>()));
}

// The options of one run of a golden whose header holds the model's rules (allow_unk,
// min_length): the run's beam size, normalize and word penalty, and the whole n-best list.
inline search::SearchOptions golden_run_options(const nlohmann::json& golden,
                                                const nlohmann::json& run) {
  search::SearchOptions options;
  options.beam_size = run["beam_size"].get<dim_t>();
  options.normalize = run["normalize"].get<float>();
  options.word_penalty = run["word_penalty"].get<float>();
  options.allow_unk = golden["allow_unk"].get<bool>();
  options.min_length = golden["min_length"].get<dim_t>();
  options.n_best = true;
  return options;
}

}  // namespace s2s::test
