// Word alignment (--alignment): the alignment layer's head-0 cross-attention carried along beam
// search and teacher forcing, against the numpy reference (tools/fixtures/make_alignment_goldens.py:
// Marian's transformer-guided-alignment-layer "last" and 1), and which models can give it.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>

#include "app/cli_runner.h"
#include "fixtures.h"
#include "golden_search.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "s2s/pipeline/alignment.h"
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
      const model::EncoderOutput enc = test::encode(model->encoder(), sb.ids, sb.lengths);
      const batch::Batch tb = batch::make_batch(tgt, 0);
      Tensor log_probs, alignment;
      test::target_log_probs(model->decoder(), enc, tb.ids, log_probs, &alignment);
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

namespace s2s {
namespace {

// "a ||| b ||| c" -> {"a", "b", "c"}
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t at; (at = line.find(" ||| ", start)) != std::string::npos; start = at + 5)
    out.push_back(line.substr(start, at - start));
  out.push_back(line.substr(start));
  return out;
}

}  // namespace

TEST_CASE("alignment option prints Marian alignments of translations and of scored pairs",
          "[app][alignment]") {
  for (const test::FixtureModel& fixture : kAlignFixtures) {
    SECTION(fixture.name) {
      const std::string folder = test::data_path(std::string("models/") + fixture.name);
      const test::GoldenSearch g = test::load_golden_search(fixture, "alignment");
      const nlohmann::json& golden = g.golden;
      std::string input;
      for (const auto& s : golden["sentences"]) input += s["text"].get<std::string>() + "\n";
      const nlohmann::json& run = golden["runs"][1];  // beam 4, normalize 1, the n-best lists
      REQUIRE(run["beam_size"] == 4);
      const std::string translate = "translate -b 4 -n 1 --n-best -m '" + folder + "' --alignment";
      for (const char* mode : {"", " hard", " 0.2"}) {
        const auto r = test::run_s2s(translate + mode, input);
        INFO("--alignment" << mode << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        const std::vector<std::string> lines = test::split_lines(r.out);
        std::size_t next = 0;
        for (const auto& list : run["results"])
          for (const auto& h : list) {
            REQUIRE(next < lines.size());
            const std::vector<std::string> f = fields(lines[next++]);
            REQUIRE(f.size() == 5);  // id ||| text ||| alignment ||| F0= ||| normalized
            CHECK(f[2] == h[std::string(mode) == " 0.2" ? "thresholded_text" : "hard_text"]
                              .get<std::string>());
          }
        CHECK(next == lines.size());
      }
      // Soft: every weight of the best translations, as printed (%g), within float tolerance.
      const auto soft = test::run_s2s("translate -b 4 -n 1 -m '" + folder + "' --alignment soft", input);
      REQUIRE(soft.exit_code == 0);
      const std::vector<std::string> soft_lines = test::split_lines(soft.out);
      REQUIRE(soft_lines.size() == run["results"].size());
      for (std::size_t s = 0; s < soft_lines.size(); ++s) {
        std::string printed = fields(soft_lines[s]).at(1);
        std::replace(printed.begin(), printed.end(), ',', ' ');
        std::istringstream values(printed);
        std::vector<float> found;
        for (float v; values >> v;) found.push_back(v);
        check_rows(found, run["results"][s][0]["soft"]);
      }

      // score: the teacher-forced alignment of (source, corpus target) pairs.
      std::string pairs;
      std::vector<std::string> expected;
      for (const auto& p : golden["scores"]) {
        if (p["tgt_kind"] != "corpus") continue;
        pairs += golden["sentences"][p["sentence"].get<std::size_t>()]["text"].get<std::string>() +
                 "\t" + p["tgt_text"].get<std::string>() + "\n";
        expected.push_back(p["hard_text"].get<std::string>());
      }
      const auto scored = test::run_s2s("score -m '" + folder + "' --alignment", pairs);
      INFO(scored.err);
      REQUIRE(scored.exit_code == 0);
      const std::vector<std::string> score_lines = test::split_lines(scored.out);
      REQUIRE(score_lines.size() == expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) CHECK(fields(score_lines[i]).at(1) == expected[i]);
    }
  }
}

TEST_CASE("alignment option is refused where it cannot be given", "[app][alignment]") {
  const auto hf = test::run_s2s(
      "translate --alignment -m '" + test::data_path("models/hf-marian-tied") + "'", "Hello\n");
  CHECK(hf.exit_code == 2);
  CHECK(hf.err.find("Hugging Face") != std::string::npos);
  const std::string marian = test::data_path("models/marian-postnorm-swish-tiedall");
  for (const char* bad : {"translate --alignment 0", "translate --alignment 1.5",
                          "translate --alignment sideways", "score --alignment --summary"}) {
    const auto r = test::run_s2s(std::string(bad) + " -m '" + marian + "'", "a\tb\n");
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test::count_lines(r.err) == 1);
  }
  // A blank line keeps its empty record; jsonl gets a "piece_alignment" list.
  const auto jsonl = test::run_s2s("translate --alignment --format jsonl -m '" + marian + "'",
                                   "Hello world\n\n");
  REQUIRE(jsonl.exit_code == 0);
  const std::vector<std::string> records = test::split_lines(jsonl.out);
  REQUIRE(records.size() == 2);
  CHECK(nlohmann::json::parse(records[0])["piece_alignment"].size() > 0);
  CHECK(nlohmann::json::parse(records[1])["piece_alignment"].empty());
}

}  // namespace s2s

namespace s2s {

TEST_CASE("piece alignments seen as words and character spans", "[pipeline][alignment]") {
  // Source "Ein kleines Haus" as pieces ▁Ein ▁klein es ▁Haus </s>: words 0 1 1 2 -;
  // target "A café" as ▁A ▁caf é </s>: words 0 1 1 -.
  const std::vector<long> source_words = {0, 1, 1, 2, -1}, target_words = {0, 1, 1, -1};
  const std::vector<std::pair<std::size_t, std::size_t>> pieces = {
      {0, 0}, {1, 2}, {2, 1}, {3, 1}, {4, 3}};  // the </s> pair belongs to no word
  const pipeline::WordAlignment a =
      pipeline::word_alignment(pieces, source_words, "Ein  kleines Haus", target_words, "A café");
  using Pair = std::pair<std::size_t, std::size_t>;
  CHECK(a.pairs == std::vector<Pair>{{0, 0}, {1, 1}, {2, 1}});
  using Span = std::array<std::size_t, 4>;
  // Characters, not bytes: "café" is 4 characters (5 bytes); two spaces before "kleines".
  CHECK(a.spans == std::vector<Span>{{0, 3, 0, 1}, {5, 12, 2, 6}, {13, 17, 2, 6}});
  // Words that do not match the text's tokens one for one: pairs, but no spans.
  const pipeline::WordAlignment b =
      pipeline::word_alignment(pieces, source_words, "Ein kleinesHaus", target_words, "A café");
  CHECK(b.pairs.size() == 3);
  CHECK(b.spans.empty());
}

TEST_CASE("jsonl word alignment spans point at the words of the line", "[app][alignment]") {
  const std::string input = "The café is small.\nI like green apples, really.\n";
  const auto r = test::run_s2s("translate --alignment --format jsonl -b 4", input);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> sources = test::split_lines(input);
  const std::vector<std::string> records = test::split_lines(r.out);
  REQUIRE(records.size() == sources.size());
  // The code points of a UTF-8 string.
  const auto chars = [](const std::string& s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
        out.back() += s[i];
      else
        out.emplace_back(1, s[i]);
    }
    return out;
  };
  const auto word_at = [&](const std::string& text, std::size_t begin, std::size_t end) {
    const std::vector<std::string> c = chars(text);
    REQUIRE(end <= c.size());
    std::string w;
    for (std::size_t i = begin; i < end; ++i) w += c[i];
    return w;
  };
  for (std::size_t i = 0; i < records.size(); ++i) {
    const nlohmann::json j = nlohmann::json::parse(records[i]);
    const auto& pairs = j["alignment"];
    const auto& spans = j["alignment_spans"];
    REQUIRE(pairs.size() == spans.size());
    CHECK(pairs.size() >= 3);
    std::istringstream source_words(sources[i]), target_words(j["translation"].get<std::string>());
    std::vector<std::string> sw{std::istream_iterator<std::string>(source_words), {}};
    std::vector<std::string> tw{std::istream_iterator<std::string>(target_words), {}};
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const auto s = pairs[k][0].get<std::size_t>(), t = pairs[k][1].get<std::size_t>();
      REQUIRE(s < sw.size());
      REQUIRE(t < tw.size());
      CHECK(word_at(sources[i], spans[k][0][0], spans[k][0][1]) == sw[s]);
      CHECK(word_at(j["translation"].get<std::string>(), spans[k][1][0], spans[k][1][1]) == tw[t]);
    }
  }
}

}  // namespace s2s
