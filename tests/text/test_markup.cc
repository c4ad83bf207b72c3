// --html (text/markup.h): fragments parsed by gumbo, tags put back around the aligned words.
#include <catch2/catch.hpp>

#include "s2s/text/markup.h"

using namespace s2s::text;

TEST_CASE("markup: tags and entities are taken out of the text", "[text][markup]") {
  const MarkupLine m = parse_markup("Press <b class=\"k\">Ctrl&amp;S</b> to save.<br/>");
  REQUIRE(m.problem.empty());
  CHECK(m.text == "Press Ctrl&S to save.");
  REQUIRE(m.elements.size() == 2);
  CHECK(m.elements[0].open == "<b class=\"k\">");
  CHECK(m.elements[0].close == "</b>");
  CHECK(m.elements[0].begin == 6);
  CHECK(m.elements[0].end == 12);
  CHECK(m.elements[1].open == "<br/>");
  CHECK(m.elements[1].point());
  CHECK(m.top == std::vector<std::size_t>{0, 1});
}

TEST_CASE("markup: an ill-formed fragment is reported, not parsed", "[text][markup]") {
  CHECK(parse_markup("<b>open").problem == "<b> is not closed");
  CHECK(parse_markup("a </i> b").problem == "a tag without its match");  // gumbo drops it silently
  CHECK(!parse_markup("<b><i>x</b></i>").problem.empty());
  CHECK(!parse_markup("if a < b").problem.empty());
  CHECK(markup_message(3, parse_markup("<b>open")) ==
        "line 3: not a well-formed HTML fragment (<b> is not closed): translated as text");
  CHECK(markup_message(3, parse_markup("<i>fine</i>")).empty());
}

TEST_CASE("markup: tags go around the target words aligned to the words they enclosed",
          "[text][markup]") {
  const MarkupLine m = parse_markup("Press <b>Ctrl+S</b> to <i>save</i>.");
  REQUIRE(m.text == "Press Ctrl+S to save.");
  // "Drücken Sie Ctrl+S, um zu speichern.": Press->Drücken Sie, Ctrl+S->Ctrl+S,, to->um zu,
  // save.->speichern.
  const AlignmentSpans alignment = {{0, 5, 0, 7},   {0, 5, 8, 11},  {6, 12, 12, 19},
                                    {13, 15, 20, 22}, {13, 15, 23, 25}, {16, 21, 26, 36}};
  CHECK(render_markup(m, "Drücken Sie Ctrl+S, um zu speichern.", alignment) ==
        "Drücken Sie <b>Ctrl+S</b>, um zu <i>speichern</i>.");
}

TEST_CASE("markup: reordered siblings keep their words, nesting is kept", "[text][markup]") {
  const MarkupLine m = parse_markup("<a href=\"x?a=1&amp;b=2\"><b>red</b> <i>car</i></a> & more");
  REQUIRE(m.text == "red car & more");
  // "Auto rot & mehr": red->rot, car->Auto, &->&, more->mehr
  const AlignmentSpans alignment = {{0, 3, 5, 8}, {4, 7, 0, 4}, {8, 9, 9, 10}, {10, 14, 11, 15}};
  CHECK(render_markup(m, "Auto rot & mehr", alignment) ==
        "<a href=\"x?a=1&amp;b=2\"><i>Auto</i> <b>rot</b></a> &amp; mehr");
}

TEST_CASE("markup: void elements and comments are placed after the word before them",
          "[text][markup]") {
  const MarkupLine m = parse_markup("First line<br>second line<!-- c -->");
  REQUIRE(m.text == "First line second line");
  REQUIRE(m.elements.size() == 2);
  CHECK(m.elements[1].open == "<!-- c -->");
  const AlignmentSpans alignment = {{0, 5, 0, 5}, {6, 10, 6, 11}, {11, 17, 12, 18}, {18, 22, 19, 25}};
  CHECK(render_markup(m, "Erste Zeile zweite Zeile.", alignment) ==
        "Erste Zeile<br> zweite Zeile.<!-- c -->");
  // No alignment at all: every element still comes back, once.
  CHECK(render_markup(m, "Erste Zeile zweite Zeile.", {}) ==
        "Erste Zeile zweite Zeile.<br><!-- c -->");
}

TEST_CASE("markup: elements with no aligned word come back empty, in place", "[text][markup]") {
  const MarkupLine m = parse_markup("A <b>x</b> b");
  CHECK(render_markup(m, "A b", {{0, 1, 0, 1}}) == "A<b></b> b");
}

TEST_CASE("markup: protected spans stop at tags", "[text][markup]") {
  const MarkupLine m = parse_markup("prefixed with <b>/dev/mapper</b>/ here");
  REQUIRE(m.text == "prefixed with /dev/mapper/ here");
  const ProtectedText p = protect_markup(m, {});
  CHECK(p.text == "prefixed with 9001/ here");
  REQUIRE(p.spans.size() == 1);
  CHECK(p.spans[0].text == "/dev/mapper");
}

TEST_CASE("markup: spans touching at a tag keep stand-ins of their own", "[text][markup]") {
  const MarkupLine m = parse_markup("<a href=\"v\">%s</a>%s%s wants you");
  REQUIRE(m.text == "%s%s%s wants you");
  const ProtectedText p = protect_markup(m, {});
  CHECK(p.text == "9001 9002 wants you");
  REQUIRE(p.spans.size() == 2);
  CHECK(p.spans[1].text == "%s%s");
  CHECK(p.spans[1].spaced);
  // 9001 -> 9001 [0,4); 9002 -> 9002 [5,9); wants -> möchte [10,16)
  const Restored r = restore(p, "9001 9002 möchte dich", {{0, 4, 0, 4}, {5, 9, 5, 9}, {10, 15, 10, 16}});
  CHECK(r.text == "%s%s%s möchte dich");
  CHECK(render_markup(m, r.text, r.alignment) == "<a href=\"v\">%s</a>%s%s möchte dich");
}

TEST_CASE("markup: a stray aligned word does not stretch an element over the sentence",
          "[text][markup]") {
  // The model's own alignment of "Press Ctrl+S to save." -> "Drücken Sie Strg+S zum Speichern.":
  // Press->Drücken, Ctrl+S->Sie, Strg+S and Speichern., to->Strg+S, save.->Strg+S.
  const MarkupLine m = parse_markup("Press <b>Ctrl+S</b> to save.");
  const AlignmentSpans alignment = {{0, 5, 0, 7},     {6, 12, 8, 11},   {6, 12, 12, 18},
                                    {6, 12, 23, 33},  {13, 15, 12, 18}, {16, 21, 12, 18}};
  CHECK(render_markup(m, "Drücken Sie Strg+S zum Speichern.", alignment) ==
        "Drücken <b>Sie Strg+S</b> zum Speichern.");
}

TEST_CASE("markup: a sentence unit of the line is protected on its own", "[text][markup]") {
  const MarkupLine m = parse_markup("Open <b>%s</b>. Then see /tmp/<i>x</i> now.");
  REQUIRE(m.text == "Open %s. Then see /tmp/x now.");
  const ProtectedText first = protect_markup(m, {}, 0, 9);
  CHECK(first.text == "Open 9001. ");
  const ProtectedText second = protect_markup(m, {}, 9, m.text.size());
  CHECK(second.text == "Then see 9001x now.");
  REQUIRE(second.spans.size() == 1);
  CHECK(second.spans[0].text == "/tmp/");
}
