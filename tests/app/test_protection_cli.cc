// `s2s translate` keeps placeholders, addresses, URLs, paths, unspellable characters and (with
// --html) tags (pipeline/protection.h, docs/real-text.md), through every output format.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "s2s/text/protect.h"
#include "test_utils.h"

namespace s2s {
namespace {

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// Code points [begin, end) of UTF-8 `text`.
std::string code_points(const std::string& text, std::size_t begin, std::size_t end) {
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++n;
    if (n > begin && n <= end) out += text[i];
  }
  return out;
}

// The shipped model, as a user runs it.
test::RunResult translate(const std::string& options, const std::string& input) {
  return test::run_s2s("translate " + options, input);
}

}  // namespace

TEST_CASE("translate keeps placeholders, addresses, URLs and paths exactly once", "[cli][protect]") {
  const std::vector<std::string> parts = {"{0}", "{1}", "robclark@freedesktop.org",
                                          "https://example.com/docs/install.html", "%s",
                                          "$HOME/.config/app.conf"};
  const std::string input =
      "Error {0}: unable to connect to {1}.\n"
      "Written by Rob Clark <robclark@freedesktop.org> 2004 and others.\n"
      // The sentence cut runs after masking: never inside the URL, whose last dot ends a sentence.
      "See https://example.com/docs/install.html. Then restart the server.\n"
      "Copy %s to $HOME/.config/app.conf now.\n";
  const auto r = translate("", input);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto out = test::split_lines(r.out);
  REQUIRE(out.size() == 4);
  for (const std::string& part : parts) CHECK(occurrences(r.out, part) == occurrences(input, part));
  CHECK(out[0].find("{0}") < out[0].find("{1}"));
  // The shipped vocabulary cannot spell '<': kept, and said on its line.
  CHECK(occurrences(out[1], "<robclark@freedesktop.org>") == 1);
  CHECK(r.err == "s2s: warning: line 2: the model's vocabulary cannot spell '<': kept as in the "
                 "source\n");
  // Off: the model reads the text as it is, and breaks what it cannot spell.
  const auto off = translate("--protect off --quiet", input);
  REQUIRE(off.exit_code == 0);
  CHECK(off.out != r.out);
  CHECK(occurrences(off.out, "{0}") + occurrences(off.out, "{1}") < 2);
  CHECK(test::run_s2s("info").out.find("input text: placeholders, e-mail addresses") !=
        std::string::npos);
  // Every hypothesis of an n-best list has its spans back.
  const auto nbest = translate("--n-best --beam-size 4 --format nbest", "Error {0}: unable to connect to {1}.\n");
  REQUIRE(nbest.exit_code == 0);
  const auto hypotheses = test::split_lines(nbest.out);
  REQUIRE(hypotheses.size() == 4);
  for (const std::string& h : hypotheses) {
    INFO(h);
    CHECK(occurrences(h, "{0}") == 1);
    CHECK(occurrences(h, "{1}") == 1);
    CHECK(h.find("9001") == std::string::npos);
  }
}

TEST_CASE("translate --alignment jsonl spans point into the line and the printed translation",
          "[cli][protect][alignment]") {
  const std::string line = "Error {0}: unable to connect to {1}.";
  const auto r = translate("--alignment --format jsonl", line + "\n");
  REQUIRE(r.exit_code == 0);
  const auto record = nlohmann::json::parse(r.out);
  const std::string translation = record["translation"].get<std::string>();
  CHECK(occurrences(translation, "{0}") == 1);
  REQUIRE(record.contains("alignment_spans"));
  REQUIRE(!record["alignment_spans"].empty());
  const std::size_t source_length = text::code_point_count(line);
  const std::size_t target_length = text::code_point_count(translation);
  bool placeholder_aligned = false;
  for (const auto& span : record["alignment_spans"]) {
    const auto source = span[0].get<std::array<std::size_t, 2>>();
    const auto target = span[1].get<std::array<std::size_t, 2>>();
    CHECK(source[0] < source[1]);
    CHECK(source[1] <= source_length);
    CHECK(target[0] < target[1]);
    CHECK(target[1] <= target_length);
    // The word "{0}:" is code points [6, 10) of the line (not its stand-in's "9001:"), aligned
    // to the target word that holds "{0}".
    if (source[0] == 6 && source[1] == 10)
      placeholder_aligned = code_points(translation, target[0], target[1]).find("{0}") != std::string::npos;
  }
  CHECK(placeholder_aligned);
}

TEST_CASE("translate places spans of a paragraph alike with and without --alignment",
          "[cli][protect][alignment]") {
  // Several sentences: without --alignment the units keep hard pairs instead of rows until the
  // line is joined; the spans must land where the joined rows would put them.
  const std::string line =
      "The server {0} was not found. Unable to connect to {1} at %s now. See www.example.com.";
  const auto plain = translate("--format jsonl", line + "\n");
  const auto aligned = translate("--format jsonl --alignment", line + "\n");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(aligned.exit_code == 0);
  const std::string text = nlohmann::json::parse(plain.out)["translation"].get<std::string>();
  CHECK(text == nlohmann::json::parse(aligned.out)["translation"].get<std::string>());
  for (const char* part : {"{0}", "{1}", "%s", "www.example.com"}) CHECK(occurrences(text, part) == 1);
}

TEST_CASE("translate protects spans on a model without an alignment layer", "[cli][protect]") {
  // No alignment: stand-ins the model copies are put back; one it drops goes where it stood.
  const std::string model = "-m '" + test::data_path("models/hf-marian-tied") + "' --quiet";
  const std::string input = "Error {0}: unable to connect to {1}.\nSee www.example.com now.\n";
  const auto r = translate(model, input);
  REQUIRE(r.exit_code == 0);
  REQUIRE(test::count_lines(r.out) == 2);
  for (const char* part : {"{0}", "{1}", "www.example.com"}) CHECK(occurrences(r.out, part) == 1);
}

TEST_CASE("translate --html puts tags back, well-formed, and says which lines it could not parse",
          "[cli][protect][html]") {
  const std::string input =
      "Press <b>Ctrl+S</b> to save the <i>file</i>.\n"
      "Click <a href=\"x.html\">here</a> to continue.<br/>Thanks.\n"
      "<b>broken\n"
      "Fish &amp; chips\n";
  const auto r = translate("--html", input);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto out = test::split_lines(r.out);
  REQUIRE(out.size() == 4);
  for (const char* tag : {"<b>", "</b>", "<i>", "</i>", "<a href=\"x.html\">", "</a>", "<br/>"})
    CHECK(occurrences(r.out, tag) == occurrences(input, tag));
  CHECK(out[0].find("<b>") < out[0].find("</b>"));
  CHECK(out[0].find("<i>") < out[0].find("</i>"));
  CHECK(out[3].find("&amp;") != std::string::npos);  // the text is escaped as HTML again
  CHECK(r.err.find("line 3: not a well-formed HTML fragment (") != std::string::npos);
  CHECK(out[2].find("<b>broken") != std::string::npos);  // translated as text: kept
  // Pieces cannot take tags back.
  const auto pieces = translate("--html --no-spm-decode", "a <b>b</b>\n");
  CHECK(pieces.exit_code == 2);
  CHECK(test::count_lines(pieces.err) == 1);
  CHECK(pieces.err.find("--no-spm-decode") != std::string::npos);
}

}  // namespace s2s
