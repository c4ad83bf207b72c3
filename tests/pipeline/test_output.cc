// Output records for hand-built translations, with a fixture model's codec: text, Marian's
// n-best lines (and its float format) and JSON lines, including blank input lines.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "s2s/pipeline/output.h"
#include "test_utils.h"

namespace s2s {
namespace {

const text::TextCodec& codec() {
  static const text::TextCodec c = [] {
    const std::string dir = test::data_path("models/marian-postnorm-swish-tiedall/");
    const std::string vocab = dir + "opus.spm32k-spm32k.vocab.yml";
    return text::TextCodec::load(dir + "source.spm", vocab, 0, dir + "target.spm", vocab, 0);
  }();
  return c;
}

// A hypothesis for `text` (ids end in </s>) with made-up scores.
search::Hypothesis hypothesis(const std::string& text, float first_score) {
  search::Hypothesis h;
  h.ids = codec().encode_target(text);
  for (std::size_t i = 0; i < h.ids.size(); ++i) {
    h.token_scores.push_back(first_score - 0.25f * static_cast<float>(i));
    h.score += h.token_scores.back();
  }
  h.normalized_score = h.score / static_cast<float>(h.ids.size());
  return h;
}

// Two hypotheses, best first.
pipeline::Translation two_best() {
  pipeline::Translation t;
  t.hypotheses = {hypothesis("This License is free software.", -0.5f),
                  hypothesis("Hello world", -1.0f)};
  return t;
}

std::string format(pipeline::OutputFormat f, bool all, const pipeline::Translation& t,
                   std::size_t id = 0) {
  std::string out;
  pipeline::OutputFormatter(codec(), f, all).append(t, id, out);
  return out;
}

}  // namespace

TEST_CASE("output format names", "[pipeline]") {
  for (const char* name : pipeline::kOutputFormatNames) {
    const auto format = pipeline::parse_output_format(name);
    REQUIRE(format);
    CHECK(std::string(pipeline::output_format_name(*format)) == name);
  }
  CHECK_FALSE(pipeline::parse_output_format("bogus"));
  CHECK_FALSE(pipeline::parse_output_format("TEXT"));
}

TEST_CASE("Marian's float format is a default ostream's (%g)", "[pipeline]") {
  CHECK(pipeline::marian_float(0.0f) == "0");
  CHECK(pipeline::marian_float(-0.5f) == "-0.5");
  CHECK(pipeline::marian_float(-94.10912f) == "-94.1091");
  CHECK(pipeline::marian_float(-2.8517911f) == "-2.85179");
  CHECK(pipeline::marian_float(1e-5f) == "1e-05");
  CHECK(pipeline::marian_float(-123456789.0f) == "-1.23457e+08");
}

TEST_CASE("text output: the best translation, or an empty line", "[pipeline]") {
  const std::string best = codec().decode_target(two_best().hypotheses[0].ids);
  CHECK(best == "This License is free software.");
  CHECK(format(pipeline::OutputFormat::text, false, two_best()) == best + "\n");
  CHECK(format(pipeline::OutputFormat::text, true, two_best()) == best + "\n");
  CHECK(format(pipeline::OutputFormat::text, false, pipeline::Translation{}) == "\n");
}

TEST_CASE("nbest output: Marian's id ||| text ||| F0= score ||| normalized", "[pipeline]") {
  const pipeline::Translation t = two_best();
  const search::Hypothesis& a = t.hypotheses[0];
  const search::Hypothesis& b = t.hypotheses[1];
  const std::string line_a =
      "5 ||| This License is free software. ||| F0= " + pipeline::marian_float(a.score) + " ||| " +
      pipeline::marian_float(a.normalized_score) + "\n";
  const std::string line_b = "5 ||| Hello world ||| F0= " + pipeline::marian_float(b.score) +
                             " ||| " + pipeline::marian_float(b.normalized_score) + "\n";
  CHECK(format(pipeline::OutputFormat::nbest, true, t, 5) == line_a + line_b);
  CHECK(format(pipeline::OutputFormat::nbest, false, t, 5) == line_a);
  SECTION("a blank line still gives one record with its id") {
    CHECK(format(pipeline::OutputFormat::nbest, true, pipeline::Translation{}, 7) ==
          "7 |||  ||| F0= 0 ||| 0\n");
    CHECK(format(pipeline::OutputFormat::nbest, false, pipeline::Translation{}, 0) ==
          "0 |||  ||| F0= 0 ||| 0\n");
  }
}

TEST_CASE("jsonl output: one object per line with tokens and scores", "[pipeline]") {
  const pipeline::Translation t = two_best();
  auto check_hypothesis = [](const nlohmann::json& j, const search::Hypothesis& h) {
    CHECK(j.at("translation") == codec().decode_target(h.ids));
    CHECK(j.at("score").get<float>() == Approx(h.score));
    CHECK(j.at("normalized_score").get<float>() == Approx(h.normalized_score));
    REQUIRE(j.at("tokens").size() == h.ids.size());  // </s> included: lines up with scores
    REQUIRE(j.at("token_scores").size() == h.ids.size());
    for (std::size_t i = 0; i < h.ids.size(); ++i) {
      CHECK(j["tokens"][i] == codec().target_vocab().piece(h.ids[i]));
      CHECK(j["token_scores"][i].get<float>() == h.token_scores[i]);  // exact round trip
    }
  };
  SECTION("best only") {
    const std::string out = format(pipeline::OutputFormat::jsonl, false, t);
    REQUIRE(std::count(out.begin(), out.end(), '\n') == 1);
    const auto j = nlohmann::json::parse(out);
    check_hypothesis(j, t.hypotheses[0]);
    CHECK_FALSE(j.contains("n_best"));
    CHECK(j["tokens"].back() == "</s>");
  }
  SECTION("with the n-best list") {
    const auto j = nlohmann::json::parse(format(pipeline::OutputFormat::jsonl, true, t));
    check_hypothesis(j, t.hypotheses[0]);
    REQUIRE(j.at("n_best").size() == 2);
    check_hypothesis(j["n_best"][0], t.hypotheses[0]);
    check_hypothesis(j["n_best"][1], t.hypotheses[1]);
  }
  SECTION("a blank line") {
    const auto j =
        nlohmann::json::parse(format(pipeline::OutputFormat::jsonl, true, pipeline::Translation{}));
    CHECK(j.at("translation") == "");
    CHECK(j.at("score") == 0);
    CHECK(j.at("normalized_score") == 0);
    CHECK(j.at("tokens").empty());
    CHECK(j.at("token_scores").empty());
    CHECK(j.at("n_best").empty());
  }
  SECTION("scores print as short decimals") {
    pipeline::Translation short_scores;
    short_scores.hypotheses = {hypothesis("Hello", -0.1f)};
    const std::string out = format(pipeline::OutputFormat::jsonl, false, short_scores);
    CHECK(out.find("\"token_scores\":[-0.1,-0.35") != std::string::npos);
  }
}

}  // namespace s2s
