// A search golden file of the numpy reference (tools/fixtures/make_*_goldens.py) with what a
// test needs to run the same searches: the fixture's model, the parsed JSON, and its sentences
// ("sentences"[i]["src_ids"]) encoded together in one batch.
#pragma once

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fixtures.h"
#include "s2s/batch/batch.h"
#include "s2s/model/model.h"

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
  g.encoded = g.model->encoder().forward(batch.ids, batch.lengths);
  return g;
}

}  // namespace s2s::test
