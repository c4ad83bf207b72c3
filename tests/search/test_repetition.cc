// CTranslate2's repetition rules (search/repetition.h): the rule on small rows, beam search
// against the numpy reference (tools/fixtures/make_repetition_goldens.py: RepetitionScorer on top
// of the fixture's forward pass) token for token, and the options as the CLI and the library
// take them.
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "app/cli_runner.h"
#include "golden_search.h"
#include "s2s/batch/batch.h"
#include "s2s/s2s.h"
#include "s2s/search/beam.h"
#include "s2s/search/repetition.h"

namespace s2s {
namespace {

bool close(double a, double b) { return std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(b)); }

// True when some n-gram of `ids` appears twice.
bool repeats_ngram(const std::vector<std::int32_t>& ids, std::size_t n) {
  for (std::size_t a = 0; a + n <= ids.size(); ++a)
    for (std::size_t b = a + 1; b + n <= ids.size(); ++b)
      if (std::equal(ids.begin() + a, ids.begin() + a + n, ids.begin() + b)) return true;
  return false;
}

}  // namespace

TEST_CASE("repetition rules: penalty by sign, once per distinct token, and n-grams disabled",
          "[search]") {
  search::SearchOptions options;
  options.repetition_penalty = 2.0f;
  std::vector<float> logits = {1.0f, -1.0f, 3.0f, -4.0f, 5.0f};
  search::apply_repetition_rules({0, 1, 1, 3}, options, logits.data(), 5);
  CHECK(logits == std::vector<float>{0.5f, -2.0f, 3.0f, -8.0f, 5.0f});

  options.repetition_penalty = 1.0f;
  options.no_repeat_ngram = 2;
  logits.assign(5, 0.5f);
  // Generated 2 3 2 4 2: bigrams after the last "2" were "2 3" and "2 4": 3 and 4 are disabled.
  search::apply_repetition_rules({2, 3, 2, 4, 2}, options, logits.data(), 5);
  const float off = std::numeric_limits<float>::lowest();
  CHECK(logits == std::vector<float>{0.5f, 0.5f, 0.5f, off, off});
  // Fewer tokens than n: nothing to repeat yet.
  logits.assign(5, 0.5f);
  options.no_repeat_ngram = 3;
  search::apply_repetition_rules({2, 2}, options, logits.data(), 5);
  CHECK(logits == std::vector<float>(5, 0.5f));
  // n = 1: every token already generated is disabled.
  options.no_repeat_ngram = 1;
  search::apply_repetition_rules({1, 4}, options, logits.data(), 5);
  CHECK(logits == std::vector<float>{0.5f, off, 0.5f, 0.5f, off});
}

TEST_CASE("beam search with repetition rules matches the reference", "[search][parity]") {
  for (const char* name : {"marian-postnorm-swish-tiedall", "ct2-onmt-relpos"}) {
    SECTION(name) {
      const test::FixtureModel& fixture = test::fixture_named(name);
      const test::GoldenSearch g = test::load_golden_search(fixture, "repetition");
      const auto& [model, golden, sources, encoded] = g;
      for (const auto& run : golden["runs"]) {
        search::SearchOptions options;
        options.beam_size = run["beam_size"].get<dim_t>();
        options.repetition_penalty = run["repetition_penalty"].get<float>();
        options.no_repeat_ngram = run["no_repeat_ngram"].get<dim_t>();
        options.allow_unk = fixture.allow_unk;
        options.min_length = fixture.min_length;
        options.n_best = true;
        const auto found = search::beam_search(*model, encoded, options);
        REQUIRE(found.size() == sources.size());
        for (std::size_t s = 0; s < sources.size(); ++s) {
          const auto& expected = run["results"][s];
          INFO(name << ": beam " << options.beam_size << ", penalty " << options.repetition_penalty
                    << ", no-repeat-ngram " << options.no_repeat_ngram << ", sentence " << s);
          REQUIRE(found[s].size() == expected.size());
          for (std::size_t h = 0; h < expected.size(); ++h) {
            INFO("hypothesis " << h);
            CHECK(found[s][h].ids == expected[h]["ids"].get<std::vector<std::int32_t>>());
            CHECK(close(found[s][h].score, expected[h]["score"].get<double>()));
          }
          if (options.no_repeat_ngram > 0)
            CHECK_FALSE(repeats_ngram(found[s][0].ids, static_cast<std::size_t>(options.no_repeat_ngram)));
        }
      }
    }
  }
}

TEST_CASE("repetition options from the command line and the library", "[search][cli]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  const std::string input = "the license is free\nHello world\n";
  const auto plain = test::run_s2s("translate -b 4 -m '" + folder + "'", input);
  const auto ruled = test::run_s2s(
      "translate -b 4 --repetition-penalty 1.3 --no-repeat-ngram 3 -m '" + folder + "'", input);
  INFO(ruled.err);
  REQUIRE(plain.exit_code == 0);
  CHECK(ruled.exit_code == 0);
  CHECK(test::count_lines(ruled.out) == 2);
  CHECK(ruled.out != plain.out);  // this fixture loops ("copy((((...") without them
  const Engine engine(folder, {{"beam-size", "4"}, {"repetition-penalty", "1.3"}, {"no-repeat-ngram", "3"}});
  CHECK(engine.translate({"the license is free", "Hello world"}) == test::split_lines(ruled.out));
  for (const char* bad : {"--repetition-penalty 0", "--no-repeat-ngram -1"}) {
    const auto r = test::run_s2s(std::string("translate ") + bad + " -m '" + folder + "'", input);
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
  }
}

}  // namespace s2s
