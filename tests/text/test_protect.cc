// Protected spans (text/protect.h): what is found, what the model reads, and that restore puts
// every span back exactly once whatever the model did with its stand-in.
#include <catch2/catch.hpp>

#include "s2s/text/protect.h"
#include "test_utils.h"

using namespace s2s::text;

namespace {

std::vector<std::string> found(const std::string& text) {
  std::vector<std::string> parts;
  for (const FoundSpan& span : find_patterns(text))
    parts.push_back(text.substr(span.begin, span.end - span.begin));
  return parts;
}

using Parts = std::vector<std::string>;

}  // namespace

TEST_CASE("protect: placeholders of every kind are found whole", "[text][protect]") {
  CHECK(found("Error {0}: unable to connect to {1}.") == Parts{"{0}", "{1}"});
  CHECK(found("Hello {name}, {day:d} {} {0!r}") == Parts{"{name}", "{day:d}", "{}", "{0!r}"});
  CHECK(found("Could not open %s (%d, %1$s, %(count)d, %-5.2f, %lu, %'d, %%)") ==
        Parts{"%s", "%d", "%1$s", "%(count)d", "%-5.2f", "%lu", "%'d", "%%"});
  CHECK(found("Qt: %1 of %2") == Parts{"%1", "%2"});
  CHECK(found("Set $HOME and ${PATH}.") == Parts{"$HOME", "${PATH}"});
  CHECK(found("Mail bugs@example.org or <robclark@freedesktop.org>.") ==
        Parts{"bugs@example.org", "robclark@freedesktop.org"});
  CHECK(found("See https://example.org/a?b=c&d=1#x, or (http://x.org/wiki/A_(b)).") ==
        Parts{"https://example.org/a?b=c&d=1#x", "http://x.org/wiki/A_(b)"});
  CHECK(found("Visit www.debian.org.") == Parts{"www.debian.org"});
  CHECK(found("Edit /etc/apt/sources.list, ~/.config/x.yml, ./configure, ../a/b.txt.") ==
        Parts{"/etc/apt/sources.list", "~/.config/x.yml", "./configure", "../a/b.txt"});
  CHECK(found("Copy C:\\Users\\Public\\report.doc now.") == Parts{"C:\\Users\\Public\\report.doc"});
}

TEST_CASE("protect: ordinary text holds no pattern", "[text][protect]") {
  CHECK(found("50% done, 100% sure.").empty());
  CHECK(found("It costs $5 and/or 1/2 of GNU/Linux (+/-).").empty());
  CHECK(found("The key {is not closed and a } alone.").empty());
  CHECK(found("Press <b>Ctrl+S</b> to save.").empty());
}

TEST_CASE("protect: spans become numbers that are not in the sentence", "[text][protect]") {
  const ProtectedText p = protect("Error {0}: 9001 files in /tmp/x.");
  CHECK(p.text == "Error 9002: 9001 files in 9003.");
  REQUIRE(p.spans.size() == 2);
  CHECK(p.spans[0].text == "{0}");
  CHECK(p.spans[0].begin == 6);
  CHECK(p.spans[0].kind == SpanKind::placeholder);
  CHECK(p.spans[0].model_begin == 6);
  CHECK(p.spans[0].model_end == 10);
  CHECK(p.spans[1].text == "/tmp/x");
  CHECK(p.spans[1].kind == SpanKind::path);
  CHECK(p.unspellable.empty());
}

TEST_CASE("protect: touching spans share one stand-in", "[text][protect]") {
  const ProtectedText p = protect("in %(place)s%(notes)s.");
  CHECK(p.text == "in 9001.");
  REQUIRE(p.spans.size() == 1);
  CHECK(p.spans[0].text == "%(place)s%(notes)s");
}

TEST_CASE("protect: code point offsets count characters, not bytes", "[text][protect]") {
  const ProtectedText p = protect("Größe: %s");
  CHECK(p.text == "Größe: 9001");
  REQUIRE(p.spans.size() == 1);
  CHECK(p.spans[0].model_begin == 7);
  CHECK(p.spans[0].model_end == 11);
}

TEST_CASE("restore: a stand-in that came back is replaced by its span", "[text][protect]") {
  const ProtectedText p = protect("Could not open %s in {dir}.");
  REQUIRE(p.text == "Could not open 9001 in 9002.");
  const Restored r = restore(p, "9001 in 9002 konnte nicht geöffnet werden.", {});
  CHECK(r.text == "%s in {dir} konnte nicht geöffnet werden.");
  CHECK(r.placed_by_alignment == 0);
}

TEST_CASE("restore: a dropped stand-in is placed after the target of the word before it",
          "[text][protect]") {
  const ProtectedText p = protect("Scanning folder %s now");
  REQUIRE(p.text == "Scanning folder 9001 now");
  // "Ordner wird jetzt gesucht": folder [9,15) -> Ordner [0,6), now [21,24) -> jetzt [12,17)
  const AlignmentSpans alignment = {{0, 8, 18, 25}, {9, 15, 0, 6}, {21, 24, 12, 17}};
  const Restored r = restore(p, "Ordner wird jetzt gesucht", alignment);
  CHECK(r.text == "Ordner %s wird jetzt gesucht");
  CHECK(r.placed_by_alignment == 1);
}

TEST_CASE("restore: a dropped stand-in at the start goes before the target of the word after it",
          "[text][protect]") {
  const ProtectedText p = protect("%s died");
  REQUIRE(p.text == "9001 died");
  const Restored r = restore(p, "ist gestorben", {{5, 9, 4, 13}});
  CHECK(r.text == "ist %s gestorben");
}

TEST_CASE("restore: without an alignment a dropped span goes where it stood", "[text][protect]") {
  CHECK(restore(protect("%s died"), "gestorben", {}).text == "%s gestorben");
  CHECK(restore(protect("died at %s"), "gestorben", {}).text == "gestorben %s");
  CHECK(restore(protect("%s"), "", {}).text == "%s");
}

TEST_CASE("restore: a repeated stand-in is kept once, where the alignment puts it",
          "[text][protect]") {
  const ProtectedText p = protect("user %s as admin");
  REQUIRE(p.text == "user 9001 as admin");
  // The second occurrence is the one aligned to the stand-in's source word [5,9).
  const Restored r = restore(p, "9001 Benutzer 9001 als Admin", {{5, 9, 14, 18}});
  CHECK(r.text == "Benutzer %s als Admin");
  CHECK(r.placed_by_alignment == 1);
}

TEST_CASE("restore: a stand-in inside a longer number is not taken for it", "[text][protect]") {
  const ProtectedText p = protect("%s items");
  const Restored r = restore(p, "90011 Elemente 9001", {});
  CHECK(r.text == "90011 Elemente %s");
}

TEST_CASE("restore: a stand-in glued to the number written next to its span is still found",
          "[text][protect]") {
  const ProtectedText p = protect("costs 5 %s now");
  REQUIRE(p.text == "costs 5 9001 now");
  const Restored before = restore(p, "kostet 59001 jetzt", {});
  CHECK(before.text == "kostet 5 %s jetzt");
  CHECK(before.placed_by_alignment == 0);
  CHECK(restore(protect("%s 3 times"), "90013 Mal", {}).text == "%s 3 Mal");
  CHECK(restore(protect("size 5%s"), "Größe 59001", {}).text == "Größe 5%s");
  // The glued copy and a repeat ("for 5 € help" came out as "für 59006 help 9006"): the glued
  // one stands where the span stood and is kept, the repeat goes.
  const Restored repeated = restore(protect("for 5 %s help"), "für 59001 help 9001", {});
  CHECK(repeated.text == "für 5 %s help");
  CHECK(repeated.placed_by_alignment == 1);
  // Two stand-ins written as one number: each is found, one space between them.
  CHECK(restore(protect("value %s %d"), "Wert 90019002", {}).text == "Wert %s %d");
  // Digits that were not next to the span in the source are not taken for its neighbour.
  CHECK(restore(protect("costs 5 %s"), "kostet 79001", {}).text == "kostet 79001 %s");
}

TEST_CASE("protect: what the vocabulary cannot spell is carried over and reported",
          "[text][protect]") {
  // A vocabulary without byte pieces, learned from a few sentences without '<', '^' or '~'
  // (tests/data/text/make_byte_fallback_spm.py).
  const std::string spm = s2s::test::data_path("text/no-byte-fallback.spm");
  const std::string yml = s2s::test::data_path("text/no-byte-fallback.vocab.yml");
  const TextCodec codec = TextCodec::load(spm, yml, 0, spm, yml, 0);
  const ProtectedText p = protect("If a < b, press ^C or ~.", {&codec});
  CHECK(p.text == "If a 9001 b, press 9002 or 9003.");
  CHECK(p.unspellable == std::vector<std::string>{"<", "^", "~"});
  REQUIRE(p.spans.size() == 3);
  CHECK(p.spans[1].text == "^C");
  CHECK(p.spans[1].kind == SpanKind::unspellable);
  CHECK(unspellable_message(4, p) ==
        "line 4: the model's vocabulary cannot spell '<', '^', '~': kept as in the source");
  CHECK(restore(p, "Wenn a 9001 b, drücken Sie 9002 oder 9003.", {}).text ==
        "Wenn a < b, drücken Sie ^C oder ~.");
  // A sentence it spells whole: nothing added, no message.
  const ProtectedText plain = protect("Save the file.", {&codec});
  CHECK(plain.text == "Save the file.");
  CHECK(unspellable_message(1, plain).empty());
  // Characters inside a pattern are kept by the pattern, not reported.
  CHECK(protect("Mail a@b.org.", {&codec}).unspellable.empty());
}

TEST_CASE("restore: the alignment is carried over to the sentence and the restored text",
          "[text][protect]") {
  const ProtectedText p = protect("Open %(name)s now");
  REQUIRE(p.text == "Open 9001 now");
  // Open [0,4) -> Öffnen [0,6); 9001 [5,9) -> 9001 [7,11); now [10,13) -> jetzt [12,17)
  const Restored r = restore(p, "Öffnen 9001 jetzt", {{0, 4, 0, 6}, {5, 9, 7, 11}, {10, 13, 12, 17}});
  CHECK(r.text == "Öffnen %(name)s jetzt");
  CHECK(r.alignment ==
        AlignmentSpans{{0, 4, 0, 6}, {5, 13, 7, 15}, {14, 17, 16, 21}});
}
