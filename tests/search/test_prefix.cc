// Target prefixes (search/prefix.h, CTranslate2's target_prefix): beam search and greedy against
// the numpy reference (tools/fixtures/make_prefix_goldens.py) token for token, sampling on top,
// and --prefix / --prefix-file / the library setting as users give them.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli_runner.h"
#include "golden_search.h"
#include "s2s/batch/batch.h"
#include "s2s/s2s.h"
#include "s2s/search/beam.h"
#include "s2s/search/sampling.h"

namespace s2s {
namespace {

using test::check_hypothesis;

}  // namespace

TEST_CASE("beam search and greedy with a target prefix match the reference", "[search][parity]") {
  for (const char* name : {"marian-postnorm-swish-tiedall", "ct2-onmt-relpos"}) {
    SECTION(name) {
      // All sentences in one batch, only the run's sentence with a prefix: the others must not
      // change it (and it must not change them: each sentence alone is the reference's search).
      const test::GoldenSearch g = test::load_golden_search(test::fixture_named(name), "prefix");
      const auto& [model, golden, sources, encoded] = g;
      std::size_t eos_rule_runs = 0;
      for (const auto& run : golden["runs"]) {
        search::SearchOptions options = test::golden_run_options(golden, run);
        const std::size_t s = run["sentence"].get<std::size_t>();
        search::SearchRequest request(options);
        request.prefixes.resize(sources.size());
        request.prefixes[s] = run["prefix_ids"].get<std::vector<std::int32_t>>();
        const auto found = search::beam_search(*model, encoded, request);
        const auto plain = search::beam_search(*model, encoded, options);
        REQUIRE(found.size() == sources.size());
        INFO(name << ": sentence " << s << ", prefix " << run["prefix_ids"].dump() << ", beam "
                  << options.beam_size << ", normalize " << options.normalize);
        const auto& expected = run["nbest"];
        REQUIRE(found[s].size() == expected.size());
        for (std::size_t h = 0; h < expected.size(); ++h) {
          INFO("hypothesis " << h);
          check_hypothesis(found[s][h], expected[h]);
        }
        for (std::size_t other = 0; other < sources.size(); ++other)
          if (other != s) CHECK(found[other].front().ids == plain[other].front().ids);
        eos_rule_runs += run["eos_rule_changes_result"].get<bool>();

        // Greedy sampling from the 1 most likely token is greedy search: the same result.
        if (options.beam_size == 1) {
          options.n_best = false;
          options.sampling.kind = search::Sampling::Kind::topk;
          options.sampling.k = 1;
          request.options = options;
          request.seeds.assign(sources.size(), 7);
          const auto sampled = search::sample_search(*model, encoded, request);
          REQUIRE(sampled[s].size() == 1);
          check_hypothesis(sampled[s][0], expected[0]);
        }
      }
      CHECK(eos_rule_runs > 0);  // the goldens exercise the first-free-step </s> rule
    }
  }
}

TEST_CASE("target prefixes from the command line and the library", "[search][cli]") {
  const std::string folder = test::data_path("models/marian-postnorm-swish-tiedall");
  const test::TempDir tmp("s2s_prefix");
  const auto plain = test::run_s2s("translate -b 4 -m '" + folder + "'", "the license is free\nHello world\n");
  REQUIRE(plain.exit_code == 0);
  const std::vector<std::string> plain_lines = test::split_lines(plain.out);
  // Prefixes that are not what the model says by itself: a word of the source.
  const auto tsv = test::run_s2s("translate -b 4 --prefix -m '" + folder + "'",
                                 "the license is free\tfree\nHello world\n\tcopy\n");
  INFO(tsv.err);
  REQUIRE(tsv.exit_code == 0);
  const std::vector<std::string> lines = test::split_lines(tsv.out);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("free", 0) == 0);
  CHECK(lines[0] != plain_lines[0]);
  CHECK(lines[1] == plain_lines[1]);  // no tab: no prefix
  CHECK(lines[2].empty());            // a blank source stays blank, prefix or not

  const std::string in = tmp.write("in.txt", "the license is free\nHello world\n");
  const std::string prefixes = tmp.write("prefixes.txt", "free\n\n");
  const std::string translate = "translate -b 4 -m '" + folder + "' -i '" + in + "' --prefix-file ";
  const auto file = test::run_s2s(translate + "'" + prefixes + "'");
  INFO(file.err);
  CHECK(file.exit_code == 0);
  CHECK(test::split_lines(file.out) == std::vector<std::string>{lines[0], lines[1]});

  const Engine engine(folder, {{"beam-size", "4"}, {"prefix", "true"}});
  CHECK(engine.translate({"the license is free\tfree", "Hello world"}) ==
        std::vector<std::string>{lines[0], lines[1]});

  const std::string short_file = tmp.write("short.txt", "free\n");
  const auto too_few = test::run_s2s(translate + "'" + short_file + "'");
  CHECK(too_few.exit_code == 1);
  CHECK(too_few.err.find("has no line 2") != std::string::npos);
  const auto too_many = test::run_s2s(translate + "'" + tmp.write("long.txt", "free\n\nmore\n") + "'");
  CHECK(too_many.exit_code == 1);
  CHECK(too_many.err.find("more lines than the input") != std::string::npos);
  const auto both = test::run_s2s("translate --prefix -m '" + folder + "' --prefix-file '" +
                                  short_file + "'", "x\n");
  CHECK(both.exit_code == 2);
  CHECK(test::count_lines(both.err) == 1);
}

}  // namespace s2s
