// Output bounds (issue 17): no translation is longer than the token limit, and the pieces of a
// line too long for the model stop when they fall into a loop (search/beam.h), while whole lines
// never do (Marian parity).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "s2s/formats/detect.h"
#include "s2s/pipeline/translator.h"
#include "s2s/search/beam.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::vector<std::int32_t> repeat(const std::vector<std::int32_t>& pattern, std::size_t n,
                                 std::vector<std::int32_t> head = {}) {
  for (std::size_t i = 0; i < n; ++i) head.push_back(pattern[i % pattern.size()]);
  return head;
}

std::string words(const std::string& word, int n) {
  std::string line;
  for (int i = 0; i < n; ++i) line += (i ? " " : "") + word;
  return line;
}

// Beam 2 with this token limit, on a fixture that answers "the the ..." with one word repeated
// (Section Section ...).
pipeline::Translator looping_translator(dim_t max_length) {
  pipeline::TranslateOptions options;
  options.search.beam_size = 2;
  options.max_length = max_length;
  return pipeline::Translator(
      formats::load_model(test::data_path("models/marian-ymlids-gelu-tied")), options);
}

}  // namespace

TEST_CASE("caught_in_loop: the last 64 ids hold at most 8 different ids", "[search]") {
  const std::size_t span = static_cast<std::size_t>(search::kLoopSpan);
  CHECK(search::caught_in_loop(repeat({7}, span)));
  CHECK_FALSE(search::caught_in_loop(repeat({7}, span - 1)));
  CHECK(search::caught_in_loop(repeat({1, 2, 3, 4, 5, 6, 7, 8}, span, {9, 9, 9})));
  CHECK_FALSE(search::caught_in_loop(repeat({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3 * span)));
  // A near-loop, as copies of random digits end: 8 ids in no fixed period.
  CHECK(search::caught_in_loop(repeat({83, 8, 83, 7, 83, 8, 38, 3, 83, 74, 8, 48, 3}, span)));
  // A ninth id inside the last 64 breaks the loop; one just before them does not.
  std::vector<std::int32_t> broken = repeat({1, 2, 3, 4, 5, 6, 7, 8}, 2 * span);
  broken[broken.size() - span + 3] = 9;
  CHECK_FALSE(search::caught_in_loop(broken));
  std::vector<std::int32_t> before = repeat({1, 2, 3, 4, 5, 6, 7, 8}, 2 * span);
  before[before.size() - span - 1] = 9;
  CHECK(search::caught_in_loop(before));
  std::vector<std::int32_t> counting;
  for (std::int32_t i = 0; i < 200; ++i) counting.push_back(i);
  CHECK_FALSE(search::caught_in_loop(counting));
}

TEST_CASE("a whole line's translation stops at the token limit, never by the loop guard",
          "[search][pipeline]") {
  std::vector<pipeline::InputNotes> notes;
  const pipeline::Translator translator = looping_translator(400);
  const std::vector<pipeline::Translation> found =
      translator.translate({words("the", 300)}, 1, &notes);
  REQUIRE(found.size() == 1);
  CHECK(notes[0].long_line == pipeline::InputNotes::LongLine::no);
  const search::Hypothesis& best = found[0].hypotheses.at(0);
  CHECK(best.ids.size() == 400);  // 3 x 301 by the factor, cut to the limit
  CHECK_FALSE(best.cut_in_loop);
  CHECK(search::caught_in_loop(best.ids));
}

TEST_CASE("the pieces of a split line are cut when they loop, and the line says so",
          "[search][pipeline]") {
  std::vector<pipeline::InputNotes> notes;
  const pipeline::Translator translator = looping_translator(100);
  const std::vector<pipeline::Translation> found =
      translator.translate({words("the", 300)}, 7, &notes);
  REQUIRE(found.size() == 1);
  REQUIRE(notes[0].long_line == pipeline::InputNotes::LongLine::split);
  CHECK(notes[0].loops_cut > 0);
  CHECK(notes[0].loops_cut <= notes[0].pieces);
  // A cut piece ends as soon as its last 64 tokens loop, well short of its 100-token limit.
  std::size_t start = 0, short_pieces = 0;
  for (std::size_t end : found[0].units.at(0).ends) {
    CHECK(end - start <= 100);
    if (end - start < 100) ++short_pieces;
    start = end;
  }
  CHECK(short_pieces >= notes[0].loops_cut);
  const std::string message = pipeline::long_line_message(7, notes[0], translator.limit());
  CHECK(message.find("line 7: ") == 0);
  CHECK(message.find("fell into a loop and were cut (64 tokens in a row drawn from 8 or fewer)") !=
        std::string::npos);
}

}  // namespace s2s
