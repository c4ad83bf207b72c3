// The constraint state and bank allocation of search/constraints.h against the rules of
// tools/reference/constrained_search.py (Constraints.advance/allowed, bank_sizes).
#include <catch2/catch.hpp>

#include "s2s/search/constraints.h"

namespace s2s {

TEST_CASE("constraint state advances as the reference's", "[glossary]") {
  const search::Constraints c({{5}, {7, 8, 9}, {7, 3}});
  CHECK(c.total() == 6);
  search::ConstraintState s = c.start();
  CHECK(s.bank == 0);
  CHECK(c.allowed(s) == std::vector<std::int32_t>{5, 7});  // first tokens, no repeats
  s = c.advance(s, 7);  // the first phrase starting with 7 in list order
  CHECK((s.cur == 1 && s.prog == 1 && s.bank == 1));
  CHECK(c.allowed(s) == std::vector<std::int32_t>{8});
  s = c.advance(s, 8);
  CHECK((s.cur == 1 && s.prog == 2 && s.bank == 2));
  // Breaking the phrase resets its progress; the breaking token may start another phrase.
  s = c.advance(s, 5);
  CHECK((s.cur == -1 && s.bank == 1 && s.met[0] == 1 && s.met[1] == 0));
  s = c.advance(s, 4);  // neither continues nor starts anything
  CHECK(s.bank == 1);
  s = c.advance(s, 7);
  s = c.advance(s, 8);
  s = c.advance(s, 9);
  CHECK((s.cur == -1 && s.bank == 4 && s.met[1] == 1));
  CHECK(c.allowed(s) == std::vector<std::int32_t>{7});  // only [7 3] is left
  s = c.advance(s, 7);
  CHECK((s.cur == 2 && s.prog == 1 && s.bank == 5));
  s = c.advance(s, 3);
  CHECK((s.bank == 6 && s.bank == c.total() && c.allowed(s).empty()));
  s = c.advance(s, 5);  // met phrases are not met again
  CHECK(s.bank == 6);
  CHECK(search::Constraints().empty());
}

TEST_CASE("bank sizes as the reference allocates them", "[glossary]") {
  using V = std::vector<dim_t>;
  CHECK(search::bank_sizes(4, V{9}) == V{4});                // no constraints: one bank
  CHECK(search::bank_sizes(4, V{5, 5}) == V{2, 2});
  CHECK(search::bank_sizes(5, V{5, 5, 5}) == V{1, 1, 3});    // the remainder to the top bank
  CHECK(search::bank_sizes(4, V{5, 1, 0}) == V{3, 1, 0});    // short banks pass slots down
  CHECK(search::bank_sizes(4, V{1, 1, 5}) == V{1, 1, 2});
  CHECK(search::bank_sizes(6, V{1, 4, 1, 2}) == V{1, 2, 1, 2});  // bank 0's excess goes up
  CHECK(search::bank_sizes(6, V{0, 6, 0, 0}) == V{0, 6, 0, 0});
}

TEST_CASE("whole-word terms: which pieces continue a word, and when a term has ended", "[glossary]") {
  // As tools/reference/test_constrained_search.py's test_whole_words.
  const std::vector<std::string> pieces = {"</s>", "<unk>", "\u2581T", "b", ".", "\u2581x", "c", "\u2581y"};
  CHECK(search::word_continuations(pieces) == std::vector<std::int32_t>{3, 6});
  CHECK_FALSE(search::continues_word("\u00bb"));      // »
  CHECK_FALSE(search::continues_word("\u2026x"));     // …
  CHECK(search::continues_word("\u00e9t"));           // ét
  CHECK_FALSE(search::continues_word(""));
  CHECK_FALSE(search::continues_word("<0x41>"));
  CHECK(search::continues_word("-Datei"));           // a hyphen joins a compound
  CHECK(search::continues_word("\u2010x"));
  CHECK_FALSE(search::continues_word(","));
  CHECK_FALSE(search::continues_word("\u2019s"));    // ’s
  const search::Constraints c({{3, 4}, {5}}, true);
  CHECK(c.whole_words());
  search::ConstraintState s = c.advance(c.start(), 3);
  CHECK_FALSE(s.term_ended);
  s = c.advance(s, 4);
  CHECK(s.term_ended);                // [3 4] completed by this token
  CHECK_FALSE(c.advance(s, 9).term_ended);
  CHECK(c.advance(s, 5).term_ended);  // [5] met at once
}

}  // namespace s2s
