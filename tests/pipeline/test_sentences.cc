// Lines translated as sentences (TranslateOptions::sentence_split, docs/real-text.md), on the
// shipped model: a paragraph gives what its sentences give one by one, joined with the
// whitespace between them; --sentence-split off reads the line whole; n-best, glossary terms
// and the short-translation check work per sentence.
#include <catch2/catch.hpp>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../app/cli_runner.h"
#include "fixtures.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/output.h"
#include "s2s/pipeline/translator.h"
#include "s2s/search/beam.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::string shipped_model() { return test::data_path("../../models/en-de"); }

std::shared_ptr<const model::Model> load_shipped() {
  static const std::shared_ptr<const model::Model> model = formats::load_model(shipped_model());
  return model;
}

pipeline::TranslateOptions options_for(const std::string& sentence_split, int beam = 4) {
  pipeline::TranslateOptions options;
  options.search.beam_size = beam;
  options.search.normalize = 1.0f;
  options.batch_size = 1;  // every unit alone: results cannot differ by batch rounding
  options.sentence_split = sentence_split;
  return options;
}

// The text of each line's hypotheses, as `s2s translate` prints them.
std::vector<std::vector<std::string>> texts(const pipeline::Translator& translator,
                                            const std::vector<std::string>& lines) {
  const pipeline::OutputFormatter formatter(translator.model().codec(),
                                            pipeline::OutputFormat::text, true);
  std::vector<std::vector<std::string>> out;
  for (const pipeline::Translation& t : translator.translate(lines)) {
    out.emplace_back();
    for (std::size_t k = 0; k < t.hypotheses.size(); ++k)
      out.back().push_back(formatter.hypothesis_text(t, k));
  }
  return out;
}

const std::vector<std::string> kSentences = {
    "Click the button to continue.",
    "An error occurred while connecting to the server.",
    "This program is free software; you can redistribute it.",
    "Select a printer from the list.",
    "Disk space is running low.",
    "The download was interrupted.",
};

}  // namespace

TEST_CASE("a paragraph gives its sentences' translations joined with the whitespace between them",
          "[pipeline][sentences]") {
  const pipeline::Translator translator(load_shipped(), options_for("en"));
  const std::vector<std::vector<std::string>> alone = texts(translator, kSentences);
  const std::vector<std::string> separators = {" ", "  ", "\t", "\xC2\xA0", " "};
  std::string paragraph = kSentences[0];
  std::string expected = alone[0][0];
  for (std::size_t k = 1; k < kSentences.size(); ++k) {
    paragraph += separators[k - 1] + kSentences[k];
    expected += separators[k - 1] + alone[k][0];
  }
  std::vector<pipeline::InputNotes> notes;
  const std::vector<pipeline::Translation> found = translator.translate({paragraph}, 1, &notes);
  REQUIRE(found.size() == 1);
  CHECK(found[0].split);
  CHECK(notes[0].sentences == kSentences.size());
  CHECK(notes[0].long_line == pipeline::InputNotes::LongLine::no);
  CHECK(texts(translator, {paragraph})[0][0] == expected);
  // The line's score is the sum of its sentences' token scores, each sentence's </s> but the
  // last one's left out.
  float sum = 0.0f;
  const std::vector<pipeline::Translation> each = translator.translate(kSentences);
  for (std::size_t k = 0; k < each.size(); ++k) {
    const std::vector<float>& scores = each[k].hypotheses[0].token_scores;
    for (std::size_t i = 0; i + (k + 1 < each.size() ? 1 : 0) < scores.size(); ++i) sum += scores[i];
  }
  const search::Hypothesis& joined = found[0].hypotheses[0];
  CHECK(joined.score == Approx(sum).epsilon(1e-5));
  float joined_sum = 0.0f;
  for (float s : joined.token_scores) joined_sum += s;
  CHECK(joined.score == Approx(joined_sum));
}

TEST_CASE("sentence-split off reads the line whole, as one search of the model",
          "[pipeline][sentences]") {
  const std::string line = kSentences[0] + " " + kSentences[1];
  const pipeline::Translator off(load_shipped(), options_for("off"));
  std::vector<pipeline::InputNotes> notes;
  const std::vector<pipeline::Translation> found = off.translate({line}, 1, &notes);
  REQUIRE(found.size() == 1);
  CHECK_FALSE(found[0].split);
  CHECK(notes[0].sentences == 1);
  // The same as the search on the whole line's ids.
  const std::vector<std::int32_t> ids = off.model().codec().encode_source(line);
  const batch::Batch batch = batch::make_batch({ids}, off.model().config().source_eos_id);
  const model::EncoderOutput encoded = test::encode(off.model().encoder(), batch.ids, batch.lengths);
  search::SearchOptions search = off.options().search;
  const auto direct = search::beam_search(off.model(), encoded, search);
  CHECK(found[0].hypotheses[0].ids == direct[0][0].ids);
  // One sentence per line: the same with sentences on.
  const pipeline::Translator on(load_shipped(), options_for("en"));
  CHECK(on.translate({kSentences[1]})[0].hypotheses[0].ids ==
        off.translate({kSentences[1]})[0].hypotheses[0].ids);
}

TEST_CASE("sentence-split takes a language or on/off, nothing else", "[pipeline][sentences]") {
  CHECK_NOTHROW(pipeline::Translator(load_shipped(), options_for("de")));
  CHECK_NOTHROW(pipeline::Translator(load_shipped(), options_for("on")));
  CHECK_THROWS_AS(pipeline::Translator(load_shipped(), options_for("yes please")), UsageError);
  CHECK_THROWS_AS(pipeline::Translator(load_shipped(), options_for("")), UsageError);
}

TEST_CASE("n-best of a paragraph joins each sentence's n-th hypothesis", "[pipeline][sentences]") {
  pipeline::TranslateOptions options = options_for("en");
  options.search.n_best = true;
  const pipeline::Translator translator(load_shipped(), options);
  const std::vector<std::vector<std::string>> alone = texts(translator, {kSentences[3], kSentences[4]});
  const std::vector<std::vector<std::string>> joined =
      texts(translator, {kSentences[3] + " " + kSentences[4]});
  REQUIRE(joined[0].size() == std::max(alone[0].size(), alone[1].size()));
  for (std::size_t k = 0; k < joined[0].size(); ++k)
    CHECK(joined[0][k] == alone[0][std::min(k, alone[0].size() - 1)] + " " +
                              alone[1][std::min(k, alone[1].size() - 1)]);
}

TEST_CASE("each sentence of a line gets its own glossary terms", "[pipeline][sentences]") {
  test::TempDir dir("s2s_sentences");
  pipeline::TranslateOptions options = options_for("en");
  options.glossary_file = dir.write("glossary.tsv", "printer\tPrinterzeugnis\n");
  const pipeline::Translator translator(load_shipped(), options);
  std::vector<pipeline::InputNotes> notes;
  const std::string line = kSentences[0] + " " + kSentences[3];
  const std::vector<std::vector<std::string>> out = texts(translator, {line});
  translator.translate({line}, 1, &notes);
  CHECK(out[0][0].find("Printerzeugnis") != std::string::npos);
  CHECK(notes[0].glossary_terms == 1);
  CHECK_FALSE(notes[0].glossary_split);
  CHECK_FALSE(notes[0].glossary_fallback);
}

TEST_CASE("short_translation: long sources with far fewer target tokens", "[pipeline][sentences]") {
  CHECK_FALSE(pipeline::short_translation(7, 0));  // too short a source to judge
  CHECK(pipeline::short_translation(10, 5));
  CHECK_FALSE(pipeline::short_translation(10, 6));
  CHECK(pipeline::short_translation(30, 17));
  CHECK_FALSE(pipeline::short_translation(30, 18));
}

// A random fixture model that ends most translations after a token or two: the losses the
// short-translation check is for, made on purpose.
constexpr const char* kEndsEarly = "marian-ymlids-gelu-tied";
const std::string kLost = "To copy it so free the a software it this may with copy may change and in with free free";

TEST_CASE("a translation that ends far too early is searched again, then reported by line and part",
          "[pipeline][sentences]") {
  pipeline::TranslateOptions options = options_for("en");
  options.search.max_length_factor = 3.0f;
  const pipeline::Translator translator(test::load_fixture(test::fixture_named(kEndsEarly)), options);
  std::vector<pipeline::InputNotes> notes;
  const std::vector<pipeline::Translation> found =
      translator.translate({"Hello. " + kLost, "the license is free"}, 7, &notes);
  REQUIRE(notes[0].short_units.size() == 1);
  const pipeline::InputNotes::ShortUnit& unit = notes[0].short_units[0];
  CHECK(unit.unit == 1);
  CHECK(unit.source_tokens >= 8);
  CHECK(unit.target_tokens * 10 < unit.source_tokens * 6);
  CHECK(notes[1].short_units.empty());  // four words: too short to judge
  const std::vector<std::string> messages = pipeline::short_messages(7, notes[0]);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].rfind("line 7: the translation of its part 2 is much shorter than its source (" +
                              std::to_string(unit.target_tokens) + " tokens for " +
                              std::to_string(unit.source_tokens) + ")",
                          0) == 0);
  CHECK(messages[0].find("even after a second search") != std::string::npos);
  options.short_translations = "warn";
  pipeline::Translator(test::load_fixture(test::fixture_named(kEndsEarly)), options)
      .translate({"Hello. " + kLost}, 7, &notes);
  REQUIRE(notes[0].short_units.size() == 1);
  CHECK(pipeline::short_messages(7, notes[0])[0].find("second search") == std::string::npos);
  // A translation cut at the length limit was not given up: not reported.
  pipeline::TranslateOptions capped = options_for("en");
  capped.search.max_length_factor = 0.3f;
  const std::vector<pipeline::Translation> cut =
      pipeline::Translator(load_shipped(), capped).translate({kSentences[2]}, 1, &notes);
  const std::vector<std::int32_t>& ids = cut[0].hypotheses[0].ids;
  const std::size_t source = load_shipped()->codec().encode_source(kSentences[2]).size() - 1;
  CHECK(ids.back() != load_shipped()->config().eos_id);  // cut, not ended
  CHECK(pipeline::short_translation(source, ids.size()));  // as short as a loss would be
  CHECK(notes[0].short_units.empty());
}

TEST_CASE("translate: paragraphs on the command line, jsonl says what may be missing", "[cli][sentences]") {
  const std::string paragraph = kSentences[0] + "  " + kSentences[1] + "\n";
  const auto on = test::run_s2s("translate -b 2", paragraph);
  REQUIRE(on.exit_code == 0);
  CHECK(on.out.find("  ") != std::string::npos);  // the two spaces between the sentences
  const auto off = test::run_s2s("translate -b 2 --sentence-split off", paragraph);
  REQUIRE(off.exit_code == 0);
  CHECK(off.out != on.out);
  CHECK(test::run_s2s("info").out.find("input text: each line cut into sentences") !=
        std::string::npos);
  const auto bad = test::run_s2s("translate --sentence-split 'x y'", paragraph);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--sentence-split") != std::string::npos);
  const auto cut = test::run_s2s("translate -b 4 --format jsonl -m '" +
                                     test::data_path(std::string("models/") + kEndsEarly) + "'",
                                 "Hello. " + kLost + "\n");
  REQUIRE(cut.exit_code == 0);
  CHECK(cut.out.find("\"short\":[{\"part\":2,") != std::string::npos);
  CHECK(cut.err.find("line 1: the translation of its part 2 is much shorter") != std::string::npos);
}

}  // namespace s2s

namespace s2s {

TEST_CASE("paragraphs of 2 to 30 held-out sentences come back whole: each sentence as it is alone",
          "[cli][sentences]") {
  // The held-out description lines of the export-fidelity check (tests/data/en-de).
  std::vector<std::string> lines;
  std::ifstream in(test::data_path("en-de/fidelity.tsv"), std::ios::binary);
  for (std::string line; std::getline(in, line);) lines.push_back(line.substr(0, line.find('\t')));
  REQUIRE(lines.size() >= 40);
  std::string one_per_line;
  for (const std::string& line : lines) one_per_line += line + "\n";
  const std::string args = "translate -b 4 --batch-size 1";
  const auto alone = test::run_s2s(args, one_per_line);
  REQUIRE(alone.exit_code == 0);
  const std::vector<std::string> translations = test::split_lines(alone.out);
  REQUIRE(translations.size() == lines.size());
  std::string paragraphs, expected;
  std::size_t start = 0;
  for (std::size_t size : {2, 5, 30, 3}) {
    std::string source, target;
    for (std::size_t k = start; k < start + size; ++k) {
      source += (k > start ? " " : "") + lines[k];
      target += (k > start ? " " : "") + translations[k];
    }
    paragraphs += source + "\n";
    expected += target + "\n";
    start += size;
  }
  const auto joined = test::run_s2s(args, paragraphs);
  REQUIRE(joined.exit_code == 0);
  CHECK(joined.err.empty());
  CHECK(joined.out == expected);
}

}  // namespace s2s
