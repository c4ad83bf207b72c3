// Sentence segmentation (text/segment.h): ICU's rules with the language's abbreviations, the
// hard cases named in docs/real-text.md, offsets that give back every byte between sentences
// as whitespace.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "s2s/text/segment.h"

namespace s2s {
namespace {

std::vector<std::string> sentences_of(const text::SentenceSplitter& splitter, const std::string& line) {
  std::vector<std::string> out;
  for (const text::Sentence& s : splitter.split(line)) out.push_back(line.substr(s.begin, s.end - s.begin));
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("sentences: abbreviations, numbers and references are not ends", "[text][segment]") {
  const text::SentenceSplitter en("en");
  CHECK(sentences_of(en, "Use e.g. this one. Then stop.") == V{"Use e.g. this one.", "Then stop."});
  CHECK(sentences_of(en, "Dr. Smith is here. Mr. Jones left!") ==
        V{"Dr. Smith is here.", "Mr. Jones left!"});
  CHECK(sentences_of(en, "This is version 2.0. Next comes 3.1.") ==
        V{"This is version 2.0.", "Next comes 3.1."});
  CHECK(sentences_of(en, "See man(1). Then run it.") == V{"See man(1).", "Then run it."});
  CHECK(sentences_of(en, "He said \"Go.\" Then (he left.) End") ==
        V{"He said \"Go.\"", "Then (he left.)", "End"});
  CHECK(sentences_of(en, "Really?! Yes... Fine.") == V{"Really?!", "Yes...", "Fine."});
  CHECK(sentences_of(en, "3.5 kg, e.g.x and a.b") == V{"3.5 kg, e.g.x and a.b"});
  CHECK(sentences_of(en, "Visit https://example.org/a.html. It works.") ==
        V{"Visit https://example.org/a.html.", "It works."});
}

TEST_CASE("sentences: whitespace between them is left out, whatever it is", "[text][segment]") {
  const text::SentenceSplitter en("en");
  const std::string line = "  One.  Two!\tThree?\xC2\xA0" "Four.\xE3\x80\x80" "Five";
  const std::vector<text::Sentence> found = en.split(line);
  CHECK(sentences_of(en, line) == V{"One.", "Two!", "Three?", "Four.", "Five"});
  REQUIRE(found.size() == 5);
  CHECK(line.substr(found[0].end, found[1].begin - found[0].end) == "  ");
  CHECK(line.substr(found[1].end, found[2].begin - found[1].end) == "\t");
  CHECK(line.substr(found[2].end, found[3].begin - found[2].end) == "\xC2\xA0");
  CHECK(sentences_of(en, "   ").empty());
  CHECK(sentences_of(en, "").empty());
  CHECK(sentences_of(en, "no end") == V{"no end"});
}

TEST_CASE("sentences: CJK ends need no space after them", "[text][segment]") {
  const text::SentenceSplitter splitter("");
  // 你好。再见！好？
  CHECK(sentences_of(splitter,
                     "\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82\xE5\x86\x8D\xE8\xA7\x81\xEF\xBC\x81"
                     "\xE5\xA5\xBD\xEF\xBC\x9F") ==
        V{"\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82", "\xE5\x86\x8D\xE8\xA7\x81\xEF\xBC\x81",
          "\xE5\xA5\xBD\xEF\xBC\x9F"});
}

TEST_CASE("sentences: German abbreviations with de", "[text][segment]") {
  const text::SentenceSplitter de("de");
  CHECK(sentences_of(de, "Das ist z.B. gut. Dr. M\xC3\xBCller kam.") ==
        V{"Das ist z.B. gut.", "Dr. M\xC3\xBCller kam."});
  CHECK(de.language() == "de");
}

TEST_CASE("sentences: one splitter serves several threads at once", "[text][segment]") {
  const text::SentenceSplitter en("en");
  std::string paragraph;
  for (int i = 0; i < 50; ++i) paragraph += "Sentence number " + std::to_string(i) + " ends here. ";
  std::vector<std::size_t> counts(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < counts.size(); ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) counts[t] += en.split(paragraph).size();
    });
  for (std::thread& thread : threads) thread.join();
  for (std::size_t c : counts) CHECK(c == 50 * 20);
}

}  // namespace s2s
