// Input text cleaning (text/clean.h) and long-line splitting (pipeline/long_lines.h), and the
// Translator's use
// of them: bytes repaired as the Unicode standard recommends, control characters made spaces,
// sentences found, pieces within the token limit, split lines joined back into one result.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "s2s/formats/detect.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/pipeline/translator.h"
#include "s2s/text/clean.h"
#include "test_utils.h"

namespace s2s {
using text::clean_text;
using text::invalid_utf8_message;
using text::CleanReport;
using text::is_valid_utf8;
using text::repair_utf8;
using text::strip_bom;

namespace {

const std::string kFFFD = "\xEF\xBF\xBD";

std::string cleaned(const std::string& in, CleanReport* report = nullptr) {
  std::string out;
  const CleanReport r = clean_text(in, out);
  if (report != nullptr) *report = r;
  return out;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// A token counter with the shape of SentencePiece's: one token per non-space character, plus
// one for </s>; additive over words.
std::size_t char_tokens(const std::string& s) {
  std::size_t n = 1;
  for (std::size_t i = 0; i < s.size(); ++i)
    n += s[i] != ' ' && s[i] != '\t' && (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  return n;
}

std::string join(const std::vector<std::string>& pieces) {
  std::string out;
  for (const std::string& p : pieces)
    if (!p.empty()) out += (out.empty() ? "" : " ") + p;
  return out;
}

std::shared_ptr<const model::Model> tiny_model(const char* name = "marian-postnorm-swish-tiedall") {
  return formats::load_model(test::data_path(std::string("models/") + name));
}

}  // namespace

TEST_CASE("clean_text: each maximal invalid UTF-8 subpart becomes one U+FFFD", "[pipeline]") {
  CleanReport r;
  // Unicode 15, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
  CHECK(cleaned("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", &r) ==
        "a" + kFFFD + kFFFD + kFFFD + "b" + kFFFD + "c" + kFFFD + kFFFD + "d");
  CHECK(r.invalid_utf8 == 6);
  CHECK(cleaned("\x80") == kFFFD);
  CHECK(cleaned("x\xC3") == "x" + kFFFD);              // truncated at the end
  CHECK(cleaned("\xE2\x82 x") == kFFFD + " x");         // truncated 3-byte sequence: one
  CHECK(cleaned("\xC0\xAF") == kFFFD + kFFFD);          // overlong '/'
  CHECK(cleaned("\xE0\x80\xAF") == kFFFD + kFFFD + kFFFD);
  CHECK(cleaned("\xED\xA0\x80", &r) == kFFFD + kFFFD + kFFFD);  // an encoded surrogate
  CHECK(r.invalid_utf8 == 3);
  CHECK(cleaned("\xED\xBF\xBF") == kFFFD + kFFFD + kFFFD);
  CHECK(cleaned("\xF4\x90\x80\x80") == repeat(kFFFD, 4));  // above U+10FFFF
  CHECK(cleaned("\xF5\xFF\xFE") == repeat(kFFFD, 3));
  // Valid text, 1 to 4 bytes per character, is kept as it is.
  const std::string valid = "Gr\xC3\xBC\xC3\x9F" "e \xE6\x9D\xB1\xE4\xBA\xAC \xF0\x9F\x98\x80 \xED\x9F\xBF";
  CHECK(cleaned(valid, &r) == valid);
  CHECK(r.invalid_utf8 == 0);
  CHECK(r.controls == 0);
}

TEST_CASE("clean_text: control characters become spaces, tab and format characters stay",
          "[pipeline]") {
  CleanReport r;
  CHECK(cleaned(std::string("a\0b", 3), &r) == "a b");
  CHECK(r.controls == 1);
  CHECK(cleaned("a\x01\x1B\x7F\rb") == "a    b");
  CHECK(cleaned("a\tb") == "a\tb");
  CHECK(cleaned("a\xC2\x85" "b\xC2\x9F") == "a b ");  // C1 controls (NEL, APC)
  CHECK(cleaned("a\xC2\xA0" "b") == "a\xC2\xA0" "b");   // no-break space is text
  const std::string rtl = "\xE2\x80\x8F\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D\xE2\x80\x8E";  // RLM, LRM
  CHECK(cleaned(rtl) == rtl);
  CHECK(cleaned("\xEF\xBB\xBFx") == "\xEF\xBB\xBFx");  // a BOM inside text is text (U+FEFF)
}

TEST_CASE("repair_utf8, is_valid_utf8 and strip_bom", "[pipeline]") {
  std::string text = "ok \xFF\xE2\x82 end";
  CHECK_FALSE(is_valid_utf8(text));
  CHECK(repair_utf8(text) == 2);
  CHECK(text == "ok " + kFFFD + kFFFD + " end");
  CHECK(is_valid_utf8(text));
  CHECK(repair_utf8(text) == 0);
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8(std::string("\0", 1)));
  std::string line = "\xEF\xBB\xBFHello";
  CHECK(strip_bom(line));
  CHECK(line == "Hello");
  CHECK_FALSE(strip_bom(line));
  std::string partial = "\xEF\xBB";
  CHECK_FALSE(strip_bom(partial));
}

TEST_CASE("split_to_limit: sentences, then words, then characters, each within the limit",
          "[pipeline]") {
  const pipeline::TokenCounter count = char_tokens;
  SECTION("sentences that fit are pieces of their own") {
    const auto pieces = pipeline::split_to_limit("Aa bb. Cc dd! Ee?", 6, count, &test::english_sentences());
    CHECK(pieces == std::vector<std::string>{"Aa bb.", "Cc dd!", "Ee?"});
  }
  SECTION("a long sentence is cut between words, as many per piece as fit") {
    const auto pieces = pipeline::split_to_limit("aa bb cc dd ee ff gg. Hh.", 7, count, &test::english_sentences());
    CHECK(pieces == std::vector<std::string>{"aa bb cc", "dd ee ff", "gg.", "Hh."});
  }
  SECTION("a word longer than the limit is cut between characters") {
    const std::string word = repeat("\xC3\xA9", 25) + "x";  // 26 characters, 2-byte ones
    const auto pieces = pipeline::split_to_limit("a " + word + " b", 11, count, &test::english_sentences());
    REQUIRE(pieces.size() >= 4);
    for (const std::string& p : pieces) {
      INFO(p);
      CHECK(count(p) <= 11);
      CHECK(is_valid_utf8(p));
    }
    std::string glued;
    for (std::size_t i = 1; i + 1 < pieces.size(); ++i) glued += pieces[i];
    CHECK(pieces.front() == "a");
    CHECK(glued == word);
    CHECK(pieces.back() == "b");
  }
  SECTION("nothing is lost or reordered") {
    std::string text;
    for (int i = 0; i < 300; ++i) text += "w" + std::to_string(i) + (i % 7 == 6 ? ". " : " ");
    const auto pieces = pipeline::split_to_limit(text, 20, count, &test::english_sentences());
    for (const std::string& p : pieces) CHECK(count(p) <= 20);
    CHECK(join(pieces) + " " == text);
  }
  SECTION("a text above 64 KB is handled without counting it whole") {
    std::size_t longest_count = 0;
    const pipeline::TokenCounter bounded = [&](const std::string& s) {
      longest_count = std::max(longest_count, s.size());
      return char_tokens(s);
    };
    const std::string huge = repeat("abcdefghij", 20000);  // 200 KB, one word
    const auto pieces = pipeline::split_to_limit(huge, 1000, bounded, &test::english_sentences());
    CHECK(longest_count <= pipeline::kCountBytes);
    for (const std::string& p : pieces) CHECK(char_tokens(p) <= 1000);
    std::string glued;
    for (const std::string& p : pieces) glued += p;
    CHECK(glued == huge);
    CHECK(pieces.size() < 250);  // pieces are close to the limit, not tiny
  }
}

TEST_CASE("truncate_to_limit and count_in_chunks", "[pipeline]") {
  const pipeline::TokenCounter count = char_tokens;
  CHECK(pipeline::truncate_to_limit("aa bb cc dd", 20, count) == "aa bb cc dd");
  CHECK(pipeline::truncate_to_limit("aa bb cc dd", 7, count) == "aa bb cc");
  CHECK(pipeline::truncate_to_limit("aa bb cc dd", 6, count) == "aa bb");
  CHECK(pipeline::truncate_to_limit("abcdefgh ij", 5, count) == "abcd");  // inside the first word
  CHECK(pipeline::truncate_to_limit("  abcdefgh", 3, count) == "  ab");
  const std::string huge = repeat("word ", 40000);  // 200 KB
  const pipeline::ChunkedCount c = pipeline::count_in_chunks(huge, 1000, count);
  CHECK(c.tokens == char_tokens(huge));
  REQUIRE(c.over_at != std::string_view::npos);
  CHECK(char_tokens(huge.substr(0, c.over_at)) > 1000);
  CHECK(c.over_at <= pipeline::kCountBytes + 1);
  CHECK(pipeline::count_in_chunks("short", 1000, count).over_at == std::string_view::npos);
}

TEST_CASE("TokenLimit and messages", "[pipeline]") {
  CHECK(pipeline::TokenLimit::of(1000, 0).tokens == 1000);
  CHECK(pipeline::TokenLimit::of(1000, 512).tokens == 512);
  CHECK(pipeline::TokenLimit::of(100, 512).tokens == 100);
  CHECK(pipeline::too_long_message(7, 1523, pipeline::TokenLimit::of(1000, 0)) ==
        "line 7: 1523 tokens, more than the limit of 1000 (--max-length)");
  CHECK(pipeline::too_long_message(2, 70, pipeline::TokenLimit::of(1000, 64), "source ") ==
        "line 2: source 70 tokens, more than the limit of 64 (the model's position table)");
  CHECK(invalid_utf8_message(5, 1) == "line 5: invalid UTF-8 replaced with U+FFFD (1 sequence)");
  CHECK(invalid_utf8_message(5, 2) == "line 5: invalid UTF-8 replaced with U+FFFD (2 sequences)");
  CHECK(pipeline::parse_long_lines("truncate") == pipeline::LongLines::truncate);
  CHECK_FALSE(pipeline::parse_long_lines("crop"));
  CHECK(std::string(pipeline::long_lines_name(pipeline::LongLines::fail)) == "fail");
}

TEST_CASE("Translator: a long line is split, its pieces translated and joined", "[pipeline]") {
  const auto model = tiny_model();
  pipeline::TranslateOptions options;
  options.search.beam_size = 1;
  options.max_length = 12;  // each sentence fits, the line does not
  const pipeline::Translator whole(model, options);
  options.sentence_split = "off";  // the line whole: over the limit, split at sentence ends
  const pipeline::Translator limited(model, options);
  const std::vector<std::string> sentences = {"The license is free.", "You may copy the program!",
                                              "Is this the world?", "Hello world."};
  const std::string line = join(sentences);
  std::vector<pipeline::InputNotes> notes;
  const auto joined = limited.translate({"short", line, ""}, 40, &notes);
  REQUIRE(joined.size() == 3);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].long_line == pipeline::InputNotes::LongLine::no);
  CHECK(notes[1].long_line == pipeline::InputNotes::LongLine::split);
  CHECK(notes[1].pieces == 4);
  CHECK(notes[1].source_tokens == model->codec().encode_source(line).size());
  CHECK(joined[2].hypotheses.empty());
  CHECK(pipeline::long_line_message(41, notes[1], limited.limit()) ==
        "line 41: " + std::to_string(notes[1].source_tokens) +
            " tokens, more than the limit of 12 (--max-length): split into 4 pieces, translated "
            "separately and joined");
  // The joined result is the sentences' own translations, with one space between them.
  const auto alone = whole.translate(sentences);
  std::vector<std::string> texts;
  float score = 0.0f;
  std::size_t tokens = 0;
  for (const pipeline::Translation& t : alone) {
    texts.push_back(model->codec().decode_target(t.hypotheses.front().ids));
    score += t.hypotheses.front().score;
    tokens += t.hypotheses.front().ids.size();
  }
  REQUIRE(joined[1].hypotheses.size() == 1);
  const search::Hypothesis& h = joined[1].hypotheses.front();
  CHECK(model->codec().decode_target(h.ids) == join(texts));
  CHECK(h.ids.size() == h.token_scores.size());
  float sum = 0.0f;
  for (float s : h.token_scores) sum += s;
  CHECK(h.score == Approx(sum));
  // Only the last piece keeps its </s>: the others' (and their log-probabilities, all <= 0)
  // are left out.
  const std::int32_t eos = model->config().eos_id;
  CHECK(std::count(h.ids.begin(), h.ids.end(), eos) <= 1);
  CHECK(h.ids.size() <= tokens + sentences.size());  // at most one '▁' put between two pieces
  CHECK(h.score >= score - 1e-3f);
}

TEST_CASE("Translator: truncate, fail, and bytes never shift lines", "[pipeline]") {
  const auto model = tiny_model();
  pipeline::TranslateOptions options;
  options.search.beam_size = 1;
  options.max_length = 8;
  const std::string line = "the license is free software and you may copy it";
  SECTION("truncate keeps the first tokens, </s> last") {
    options.long_lines = pipeline::LongLines::truncate;
    std::vector<pipeline::InputNotes> notes;
    const auto r = pipeline::Translator(model, options).translate({line}, 1, &notes);
    CHECK(notes[0].long_line == pipeline::InputNotes::LongLine::truncated);
    REQUIRE(r[0].hypotheses.size() == 1);
  }
  SECTION("fail names the line over the whole input") {
    options.long_lines = pipeline::LongLines::fail;
    const pipeline::Translator t(model, options);
    CHECK_THROWS_AS(t.translate({"ok", line}, 10), InputError);
    try {
      t.translate({"ok", line}, 10);
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind("line 11: ", 0) == 0);
    }
  }
  SECTION("a limit with no room for text is a usage error") {
    options.max_length = 1;
    CHECK_THROWS_AS(pipeline::Translator(model, options), UsageError);
  }
  SECTION("invalid bytes and controls: cleaned text, the same result") {
    options.max_length = 1000;
    const pipeline::Translator t(model, options);
    std::vector<pipeline::InputNotes> notes;
    const auto dirty = t.translate({std::string("Hello\0world\x01", 12), "Hello \xFFworld",
                                    "\x01\x02", ""},
                                   1, &notes);
    const auto clean = t.translate({"Hello world ", "Hello \xEF\xBF\xBDworld"});
    CHECK(dirty[0].hypotheses.front().ids == clean[0].hypotheses.front().ids);
    CHECK(dirty[1].hypotheses.front().ids == clean[1].hypotheses.front().ids);
    CHECK(notes[1].invalid_utf8 == 1);
    CHECK(dirty[2].hypotheses.empty());  // only controls: a blank line
    CHECK(dirty[3].hypotheses.empty());
  }
}

TEST_CASE("Translator: every piece of a split line gets the language label", "[pipeline]") {
  const auto model = tiny_model("marian-ymlids-gelu-tied");
  pipeline::TranslateOptions options;
  options.search.beam_size = 1;
  // A limit that holds each sentence with its label, not both.
  const auto& codec = model->codec();
  options.max_length = static_cast<dim_t>(
      std::max(codec.encode_source(">>deu<< The license is free.").size(),
               codec.encode_source(">>deu<< Hello world.").size()));
  REQUIRE(codec.encode_source(">>deu<< The license is free. Hello world.").size() >
          static_cast<std::size_t>(options.max_length));
  const pipeline::Translator whole(model, options);
  const pipeline::Translator limited(model, options);
  options.target_label = ">>deu<<";
  const pipeline::Translator labelled(model, options);
  const auto alone = whole.translate({">>deu<< The license is free.", ">>deu<< Hello world."});
  // (join leaves out an empty translation, as the Translator does)
  const std::string expected = join({model->codec().decode_target(alone[0].hypotheses.front().ids),
                                     model->codec().decode_target(alone[1].hypotheses.front().ids)});
  // The line's own label, and the one given as an option.
  const auto own = limited.translate({">>deu<< The license is free. Hello world."});
  CHECK(model->codec().decode_target(own[0].hypotheses.front().ids) == expected);
  const auto given = labelled.translate({"The license is free. Hello world."});
  CHECK(model->codec().decode_target(given[0].hypotheses.front().ids) == expected);
}

}  // namespace s2s
