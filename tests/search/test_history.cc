// The search's shared parts: the history tree that hypotheses share their past in, the workspace
// passed down from search to search, and the pool the Translator keeps them in.
#include <catch2/catch.hpp>

#include "s2s/batch/batch.h"
#include "s2s/formats/detect.h"
#include "s2s/search/beam.h"
#include "s2s/search/history.h"
#include "s2s/search/sampling.h"
#include "s2s/search/workspace.h"
#include "support/model_support.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::shared_ptr<const model::Model> fixture_model() {
  return formats::load_model(test::data_path("models/marian-postnorm-swish-tiedall"));
}

model::EncoderOutput encode(const model::Model& model, const std::vector<std::string>& lines) {
  std::vector<std::vector<std::int32_t>> ids;
  for (const std::string& line : lines) ids.push_back(model.codec().encode_source(line));
  const batch::Batch batch = batch::make_batch(ids, model.config().source_eos_id);
  return test::encode(model.encoder(), batch.ids, batch.lengths);
}

}  // namespace

TEST_CASE("History: hypotheses read back from a shared tree", "[search]") {
  search::History history;
  const float a0[] = {0.5f, 0.5f}, a1[] = {0.25f, 0.75f}, a2[] = {1.0f, 0.0f};
  const std::int32_t root = history.add(search::History::kStart, 7, -0.5f, a0, 2);
  const std::int32_t left = history.add(root, 8, -1.0f, a1, 2);
  const std::int32_t right = history.add(root, 9, -2.0f, a2, 2);
  const std::int32_t longer = history.add(left, 2, -0.25f, a2, 2);

  const search::Hypothesis h = history.hypothesis(longer, -1.75f);
  CHECK(h.ids == std::vector<std::int32_t>{7, 8, 2});
  CHECK(h.token_scores == std::vector<float>{-0.5f, -1.0f, -0.25f});
  CHECK(h.score == -1.75f);
  CHECK(h.alignment == std::vector<float>{0.5f, 0.5f, 0.25f, 0.75f, 1.0f, 0.0f});
  const search::Hypothesis other = history.hypothesis(right, -2.5f);
  CHECK(other.ids == std::vector<std::int32_t>{7, 9});
  CHECK(other.alignment == std::vector<float>{0.5f, 0.5f, 1.0f, 0.0f});

  std::vector<std::int32_t> ids{1, 2, 3};
  history.ids(longer, ids, 2);  // the last two
  CHECK(ids == std::vector<std::int32_t>{8, 2});
  history.ids(search::History::kStart, ids);
  CHECK(ids.empty());
  CHECK(history.hypothesis(search::History::kStart, 0.0f).ids.empty());
}

TEST_CASE("a workspace carries nothing from one search to the next but its memory",
          "[search]") {
  const auto model = fixture_model();
  const model::EncoderOutput first =
      encode(*model, {"This package provides a command-line tool for translating text.",
                      "The license is free.", "Hello world."});
  const model::EncoderOutput second = encode(*model, {"Is this the world?", "You may copy it!"});
  search::SearchOptions options;
  options.beam_size = 3;
  options.n_best = true;
  options.alignment = true;
  const auto fresh = search::beam_search(*model, second, options);

  search::SearchWorkspace workspace;
  const auto before = search::beam_search(*model, first, options, workspace);
  REQUIRE(before.size() == 3);
  const auto reused = search::beam_search(*model, second, options, workspace);
  REQUIRE(reused.size() == fresh.size());
  for (std::size_t s = 0; s < fresh.size(); ++s) {
    REQUIRE(reused[s].size() == fresh[s].size());
    for (std::size_t h = 0; h < fresh[s].size(); ++h) {
      CHECK(reused[s][h].ids == fresh[s][h].ids);
      CHECK(reused[s][h].token_scores == fresh[s][h].token_scores);
      CHECK(reused[s][h].alignment == fresh[s][h].alignment);
    }
  }

  // Sampling in the same workspace after beam search: as in a fresh one.
  search::SearchRequest sampled(options);
  sampled.options.sampling.kind = search::Sampling::Kind::topk;
  sampled.options.sampling.k = 4;
  sampled.seeds = {11, 12};
  const auto sampled_fresh = search::sample_search(*model, second, sampled);
  const auto sampled_reused = search::sample_search(*model, second, sampled, workspace);
  REQUIRE(sampled_reused.size() == sampled_fresh.size());
  for (std::size_t s = 0; s < sampled_fresh.size(); ++s) {
    REQUIRE(sampled_reused[s].size() == 3);  // n-best: beam-size samples
    for (std::size_t h = 0; h < 3; ++h)
      CHECK(sampled_reused[s][h].ids == sampled_fresh[s][h].ids);
  }
}

TEST_CASE("sampling refuses terminology constraints", "[search]") {
  const auto model = fixture_model();
  const model::EncoderOutput encoded = encode(*model, {"The license is free."});
  search::SearchRequest request;
  request.options.sampling.kind = search::Sampling::Kind::full;
  request.seeds = {1};
  request.constraints.emplace_back(std::vector<std::vector<std::int32_t>>{{5}});
  CHECK_THROWS_AS(search::sample_search(*model, encoded, request), UsageError);
}

}  // namespace s2s
