// Word alignment (--alignment): the alignment layer's head-0 cross-attention carried along beam
// search and teacher forcing, against the numpy reference (tools/fixtures/make_alignment_goldens.py:
// Marian's transformer-guided-alignment-layer "last" and 1), and which models can give it.
#include <cmath>

#include "fixtures.h"
#include "golden_search.h"
#include "s2s/batch/batch.h"
#include "s2s/search/beam.h"

namespace s2s {
namespace {

// The alignment fixtures: Marian models whose special:model.yml names the layer.
const test::FixtureModel kAlignFixtures[] = {{"marian-postnorm-swish-tiedall", false, 0, nullptr},
                                             {"marian-align-layer1", false, 0, nullptr}};

void check_rows(const std::vector<float>& found, const nlohmann::json& soft) {
  std::vector<float> expected;
  for (const auto& row : soft)
    for (double v : row) expected.push_back(static_cast<float>(v));
  REQUIRE(found.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(std::fabs(found[i] - expected[i]) <= 2e-5f);
}

}  // namespace

TEST_CASE("beam search alignment rows match the reference", "[search][parity][alignment]") {
  for (const test::FixtureModel& fixture : kAlignFixtures) {
    SECTION(fixture.name) {
      const test::GoldenSearch g = test::load_golden_search(fixture, "alignment");
      const auto& [model, golden, sources, encoded] = g;
      CHECK(model->config().alignment_layer == golden["layer_index"].get<dim_t>());
      for (const auto& run : golden["runs"]) {
        search::SearchOptions options;
        options.beam_size = run["beam_size"].get<dim_t>();
        options.normalize = run["normalize"].get<float>();
        options.n_best = true;
        options.alignment = true;
        const auto found = search::beam_search(*model, encoded, options);
        REQUIRE(found.size() == sources.size());
        for (std::size_t s = 0; s < sources.size(); ++s) {
          const auto& expected = run["results"][s];
          REQUIRE(found[s].size() == expected.size());
          for (std::size_t h = 0; h < expected.size(); ++h) {
            INFO(fixture.name << ": beam " << options.beam_size << ", sentence " << s
                              << ", hypothesis " << h);
            CHECK(found[s][h].ids == expected[h]["ids"].get<std::vector<std::int32_t>>());
            check_rows(found[s][h].alignment, expected[h]["soft"]);
          }
        }
      }
    }
  }
}

TEST_CASE("teacher-forced alignment rows match the reference", "[model][parity][alignment]") {
  for (const test::FixtureModel& fixture : kAlignFixtures) {
    SECTION(fixture.name) {
      const test::GoldenSearch g = test::load_golden_search(fixture, "alignment");
      const auto& [model, golden, sources, encoded] = g;
      std::vector<std::vector<std::int32_t>> src, tgt;
      for (const auto& pair : golden["scores"]) {
        src.push_back(sources[pair["sentence"].get<std::size_t>()]);
        tgt.push_back(pair["tgt_ids"].get<std::vector<std::int32_t>>());
      }
      const batch::Batch sb = batch::make_batch(src, model->config().source_eos_id);
      const model::EncoderOutput enc = model->encoder().forward(sb.ids, sb.lengths);
      const batch::Batch tb = batch::make_batch(tgt, 0);
      Tensor log_probs, alignment;
      model->decoder().target_log_probs(enc, tb.ids, log_probs, &alignment);
      const dim_t steps = alignment.dim(1), keys = alignment.dim(2);
      for (std::size_t p = 0; p < tgt.size(); ++p) {
        INFO(fixture.name << ": pair " << p);
        std::vector<float> rows;
        for (std::size_t t = 0; t < tgt[p].size(); ++t) {
          const float* row = alignment.data<float>() + (static_cast<dim_t>(p) * steps + t) * keys;
          rows.insert(rows.end(), row, row + src[p].size());
        }
        check_rows(rows, golden["scores"][p]["soft"]);
      }
    }
  }
}

TEST_CASE("models say whether they can align", "[model][alignment]") {
  CHECK(test::load_fixture(test::fixture_named("ct2-marian"))->config().alignment_layer == 1);
  const auto hf = test::load_fixture(test::fixture_named("hf-marian-tied"));
  CHECK(hf->config().alignment_layer == -1);
  CHECK(hf->config().alignment_note.find("Hugging Face") != std::string::npos);
}

}  // namespace s2s
