// Deduplication (pipeline/dedup.h): the cache of finished lines against a plain list kept in
// recency order (eviction order, the byte budget, a line over the budget, hits refreshing
// recency), the window step (which lines are translated, where each result goes), and
// translate_deduplicated over the fixture model giving every line what translate() gives it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "s2s/formats/detect.h"
#include "s2s/pipeline/dedup.h"
#include "test_utils.h"

namespace s2s {
namespace {

// A result whose best hypothesis has `tokens` ids (and scores), marked with `mark` as its score.
pipeline::FinishedLine result(std::size_t tokens, float mark = 0.0f) {
  pipeline::FinishedLine r;
  search::Hypothesis h;
  h.ids.assign(tokens, 7);
  h.token_scores.assign(tokens, -0.5f);
  h.score = mark;
  r.translation.hypotheses.push_back(h);
  return r;
}

// The cache's expected content, most recently used first: what DedupCache must hold.
struct ReferenceLru {
  std::size_t budget;
  std::vector<std::pair<std::string, std::size_t>> entries;  // (line, bytes)

  void touch(const std::string& line) {
    const auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const auto& e) { return e.first == line; });
    if (it == entries.end()) return;
    const auto entry = *it;
    entries.erase(it);
    entries.insert(entries.begin(), entry);
  }
  void put(const std::string& line, std::size_t bytes) {
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const auto& e) { return e.first == line; }),
                  entries.end());
    if (bytes > budget) return;
    entries.insert(entries.begin(), {line, bytes});
    std::size_t total = 0;
    for (const auto& e : entries) total += e.second;
    while (total > budget) {
      total -= entries.back().second;
      entries.pop_back();
    }
  }
  std::size_t bytes() const {
    std::size_t total = 0;
    for (const auto& e : entries) total += e.second;
    return total;
  }
};

}  // namespace

TEST_CASE("dedup_bytes counts the line, the tokens and the strings of a result", "[pipeline]") {
  const std::size_t base = pipeline::dedup_bytes("abc", result(10));
  CHECK(pipeline::dedup_bytes("abcdef", result(10)) == base + 3);
  // Each token: an id and a score, 4 bytes each.
  CHECK(pipeline::dedup_bytes("abc", result(110)) == base + 100 * 8);
  pipeline::FinishedLine r = result(10);
  r.translation.source.text = std::string(50, 'x');
  r.translation.source.ids.assign(5, 1);
  CHECK(pipeline::dedup_bytes("abc", r) == base + 50 + 5 * 4);
  r.translation.hypotheses.push_back(r.translation.hypotheses.front());  // an n-best list
  CHECK(pipeline::dedup_bytes("abc", r) == base + 50 + 20 + sizeof(search::Hypothesis) + 10 * 8);
  // A line of units: their pieces, where they end, the joined alignment and the separators.
  r.translation.source.pieces.resize(3);
  r.translation.units.resize(1);
  r.translation.units[0].ends = {3, 6};
  r.translation.units[0].alignment.resize(4);
  r.translation.separators = {"", "  "};
  CHECK(pipeline::dedup_bytes("abc", r) ==
        base + 50 + 20 + sizeof(search::Hypothesis) + 10 * 8 +
            3 * sizeof(pipeline::AlignedSource::Piece) + sizeof(pipeline::JoinedUnits) +
            2 * sizeof(std::size_t) + 4 * 2 * sizeof(std::size_t) + 2 * sizeof(std::string) + 2);
}

TEST_CASE("dedup cache evicts the least recently used line first", "[pipeline]") {
  const std::size_t each = pipeline::dedup_bytes("a", result(4));
  pipeline::DedupCache cache(3 * each);  // room for three lines of this size
  cache.put("a", result(4, 1));
  cache.put("b", result(4, 2));
  cache.put("c", result(4, 3));
  CHECK(cache.size() == 3);
  CHECK(cache.bytes() == 3 * each);
  cache.put("d", result(4, 4));  // a is the oldest
  CHECK(!cache.contains("a"));
  CHECK((cache.contains("b") && cache.contains("c") && cache.contains("d")));

  SECTION("a hit makes its line the most recently used") {
    const pipeline::FinishedLine* b = cache.find("b");
    REQUIRE(b != nullptr);
    CHECK(b->translation.hypotheses.front().score == 2);
    cache.put("e", result(4, 5));  // c is now the oldest, not b
    CHECK(!cache.contains("c"));
    CHECK((cache.contains("b") && cache.contains("d") && cache.contains("e")));
    cache.put("f", result(4, 6));
    CHECK(!cache.contains("d"));
    CHECK(cache.contains("b"));
  }
  SECTION("contains leaves recency alone") {
    CHECK(cache.contains("b"));
    cache.put("e", result(4, 5));
    CHECK(!cache.contains("b"));
  }
  SECTION("putting a held line replaces its result and refreshes it") {
    cache.put("b", result(4, 20));
    cache.put("e", result(4, 5));
    CHECK(!cache.contains("c"));
    REQUIRE(cache.find("b") != nullptr);
    CHECK(cache.find("b")->translation.hypotheses.front().score == 20);
    CHECK(cache.size() == 3);
    CHECK(cache.bytes() == 3 * each);
  }
  SECTION("a bigger line evicts as many as it needs") {
    cache.put("big", result(4 + 2 * each / 8));  // about three lines' worth
    CHECK(cache.contains("big"));
    CHECK(cache.size() == 1);
    CHECK(cache.bytes() <= cache.budget());
  }
}

TEST_CASE("dedup cache does not hold a line bigger than its whole budget", "[pipeline]") {
  const std::size_t each = pipeline::dedup_bytes("a", result(4));
  pipeline::DedupCache cache(3 * each);
  cache.put("a", result(4));
  cache.put("b", result(4));
  cache.put("huge", result(10 * each));  // more than the budget alone: nothing evicted for it
  CHECK(!cache.contains("huge"));
  CHECK(cache.find("huge") == nullptr);
  CHECK((cache.contains("a") && cache.contains("b")));
  CHECK(cache.bytes() == 2 * each);
  // A line held before that grows past the budget is dropped, not kept stale.
  cache.put("a", result(10 * each));
  CHECK(!cache.contains("a"));
  CHECK(cache.bytes() == each);
  pipeline::DedupCache none(0);  // a budget of nothing holds nothing
  none.put("", result(0));
  CHECK(none.size() == 0);
}

TEST_CASE("dedup cache matches a plain recency list under random use", "[pipeline]") {
  std::mt19937 gen(3);
  const std::size_t budget = 4000;
  pipeline::DedupCache cache(budget);
  ReferenceLru reference{budget, {}};
  for (int step = 0; step < 3000; ++step) {
    const std::string line = "line " + std::to_string(gen() % 40);
    if (gen() % 3 == 0) {
      const bool held = cache.find(line) != nullptr;
      CHECK(held == std::any_of(reference.entries.begin(), reference.entries.end(),
                                [&](const auto& e) { return e.first == line; }));
      reference.touch(line);
    } else {
      const pipeline::FinishedLine r = result(gen() % 300);  // now and then over the budget
      reference.put(line, pipeline::dedup_bytes(line, r));
      cache.put(line, r);
    }
    REQUIRE(cache.bytes() <= budget);
    REQUIRE(cache.bytes() == reference.bytes());
    REQUIRE(cache.size() == reference.entries.size());
    for (const auto& e : reference.entries) REQUIRE(cache.contains(e.first));
  }
}

TEST_CASE("dedup window: each line not in the cache translated once, results sent to repeats",
          "[pipeline]") {
  pipeline::DedupCache cache(1 << 20);
  cache.put("c", result(2, 9));
  const std::vector<std::string> lines = {"a", "b", "a", "", "c", "", "b", "c", "a", "A"};
  const pipeline::DedupPlan plan = pipeline::plan_window(lines, cache);
  CHECK(plan.work == std::vector<std::string>{"a", "b", "", "", "", "", "", "", "", "A"});
  CHECK(plan.translate ==
        std::vector<bool>{true, true, false, true, false, false, false, false, false, true});
  CHECK(plan.repeats[0] == std::vector<std::size_t>{2, 8});
  CHECK(plan.repeats[1] == std::vector<std::size_t>{6});
  CHECK(plan.repeats[3] == std::vector<std::size_t>{5});  // the empty line: once, as any other
  CHECK(plan.repeats[4] == std::vector<std::size_t>{7});
  CHECK(plan.repeats[9].empty());
  REQUIRE(plan.hits.size() == 1);
  CHECK(plan.hits[0].first == 4);
  CHECK(plan.hits[0].second.translation.hypotheses.front().score == 9);
}

TEST_CASE("translate_deduplicated: every line done once with its own result, across windows",
          "[pipeline]") {
  pipeline::DedupCache cache(1 << 20);
  std::vector<std::string> translated;  // every line given to the fake translator
  // A fake translator: a line's result is marked with its length, its notes with its bytes 0xff.
  const pipeline::TranslateLines translate = [&](const std::vector<std::string>& work,
                                                 const pipeline::Translator::LineDone& done) {
    for (std::size_t i = work.size(); i-- > 0;) {  // in any order
      if (!work[i].empty()) translated.push_back(work[i]);
      pipeline::FinishedLine r = result(1, static_cast<float>(work[i].size()));
      r.notes.invalid_utf8 = static_cast<std::size_t>(std::count(work[i].begin(), work[i].end(), '\xff'));
      done(i, r.translation, r.notes);
    }
  };
  const auto run = [&](const std::vector<std::string>& lines) {
    std::vector<int> times(lines.size(), 0);
    pipeline::translate_deduplicated(
        lines, cache, translate,
        [&](std::size_t i, pipeline::Translation t, const pipeline::InputNotes& notes) {
          REQUIRE(i < lines.size());
          ++times[i];
          CHECK(t.hypotheses.front().score == static_cast<float>(lines[i].size()));
          CHECK(notes.invalid_utf8 ==
                static_cast<std::size_t>(std::count(lines[i].begin(), lines[i].end(), '\xff')));
        });
    CHECK(times == std::vector<int>(lines.size(), 1));
  };
  run({"one", "bad \xff", "three", "one", "bad \xff", "", "", "one"});
  CHECK(translated == std::vector<std::string>{"three", "bad \xff", "one"});
  translated.clear();
  run({"bad \xff", "four", "one", "four"});  // the cache has the first window's lines
  CHECK(translated == std::vector<std::string>{"four"});

  SECTION("a stopped translation leaves its lines (and their repeats) undone") {
    translated.clear();
    std::vector<std::size_t> done;
    pipeline::translate_deduplicated(
        {"five", "one", "five"}, cache,
        [](const std::vector<std::string>&, const pipeline::Translator::LineDone&) {},
        [&](std::size_t i, pipeline::Translation, const pipeline::InputNotes&) { done.push_back(i); });
    CHECK(done == std::vector<std::size_t>{1});  // only the cache's line
    CHECK(!cache.contains("five"));
  }
}

TEST_CASE("translate_deduplicated gives each line what translate() gives it", "[pipeline]") {
  const auto model = formats::load_model(test::data_path("models/marian-postnorm-swish-tiedall"));
  pipeline::TranslateOptions options;
  options.search.beam_size = 2;
  options.search.n_best = true;
  options.batch_size = 1;  // scores exact to the last digit (they depend on the batch)
  options.max_length = 12;  // the long line is split
  const pipeline::Translator translator(model, options);
  const std::string long_line = "the license is free . you may copy the program . this is the world";
  const std::vector<std::string> lines = {"the license is free", "Hello world", "",
                                          "the license is free", "bad \xff\xfe bytes", long_line,
                                          "Hello world", "bad \xff\xfe bytes", long_line, "  "};
  std::vector<pipeline::InputNotes> expected_notes;
  const std::vector<pipeline::Translation> expected = translator.translate(lines, 1, &expected_notes);
  REQUIRE(expected.size() == lines.size());
  REQUIRE(expected_notes[4].invalid_utf8 > 0);
  REQUIRE(expected_notes[5].long_line == pipeline::InputNotes::LongLine::split);

  // A budget that holds a few lines: the second window finds some in the cache, not all.
  for (const std::size_t budget : {std::size_t{0}, std::size_t{3000}, std::size_t{1} << 20}) {
    INFO("budget " << budget);
    pipeline::DedupCache cache(budget);
    for (const int workers : {1, 2}) {
      const pipeline::TranslateLines translate = [&](const std::vector<std::string>& work,
                                                     const pipeline::Translator::LineDone& done) {
        translator.translate_each(work, done, 1, nullptr, {workers, 1});
      };
      std::vector<pipeline::Translation> got(lines.size());
      std::vector<pipeline::InputNotes> notes(lines.size());
      pipeline::translate_deduplicated(
          lines, cache, translate,
          [&](std::size_t i, pipeline::Translation t, const pipeline::InputNotes& n) {
            got[i] = std::move(t);
            notes[i] = n;
          });
      for (std::size_t i = 0; i < lines.size(); ++i) {
        INFO("line " << i << ", workers " << workers);
        REQUIRE(got[i].hypotheses.size() == expected[i].hypotheses.size());
        for (std::size_t h = 0; h < got[i].hypotheses.size(); ++h) {
          CHECK(got[i].hypotheses[h].ids == expected[i].hypotheses[h].ids);
          CHECK(got[i].hypotheses[h].token_scores == expected[i].hypotheses[h].token_scores);
          CHECK(got[i].hypotheses[h].score == expected[i].hypotheses[h].score);
        }
        CHECK(notes[i].invalid_utf8 == expected_notes[i].invalid_utf8);
        CHECK(notes[i].long_line == expected_notes[i].long_line);
        CHECK(got[i].separators == expected[i].separators);
        REQUIRE(got[i].units.size() == expected[i].units.size());
        for (std::size_t h = 0; h < got[i].units.size(); ++h)
          CHECK(got[i].units[h].ends == expected[i].units[h].ends);
      }
      CHECK(cache.bytes() <= budget);
    }
  }
}

}  // namespace s2s
