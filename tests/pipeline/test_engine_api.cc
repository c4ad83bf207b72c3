// The public API's per-call options and results as data (s2s/s2s.h): n-best apart from the beam,
// tokens and token scores, alignment as pairs, words and spans, notes on what was done to a line,
// streaming in input order, tokens heard as they are chosen, cancellation, and score_batch.
#include <omp.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "s2s/s2s.h"
#include "test_utils.h"

namespace s2s {
namespace {

// The shipped model: real sentences end with </s>, and it aligns (guided alignment).
const std::string& aligned_folder() {
  static const std::string folder = test::data_path("../../models/en-de");
  return folder;
}

const Engine& aligned_engine() {
  static const Engine engine(aligned_folder(), {{"threads", "1"}});
  return engine;
}

const std::vector<std::string> kLines = {"The licence is free.", "", "Hello world.",
                                         "The file was not found."};

// The code points of `text` in [begin, end).
std::string code_points(const std::string& text, Span span) {
  std::string out;
  std::size_t index = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts && i > 0) ++index;
    if (index >= span.begin && index < span.end) out += text[i];
  }
  return out;
}

}  // namespace

TEST_CASE("translate_batch: num_hypotheses is the n-best count, apart from the beam", "[api]") {
  TranslationOptions options;
  options.beam_size = 4;
  options.num_hypotheses = 2;
  const std::vector<TranslationResult> two = aligned_engine().translate_batch(kLines, options);
  const Engine whole_beam(aligned_folder(), {{"threads", "1"}, {"beam-size", "4"}, {"n-best", "true"}});
  const std::vector<std::vector<Candidate>> beam = whole_beam.translate_n_best(kLines);
  REQUIRE(two.size() == kLines.size());
  CHECK(two[1].hypotheses.empty());
  for (std::size_t i : {0, 2, 3}) {
    REQUIRE(two[i].hypotheses.size() == 2);
    REQUIRE(beam[i].size() > 2);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(two[i].hypotheses[k].text == beam[i][k].text);
      CHECK(two[i].hypotheses[k].score == Approx(beam[i][k].score));
    }
  }
  options.num_hypotheses = 5;
  CHECK_THROWS_WITH(aligned_engine().translate_batch(kLines, options),
                    Catch::Contains("num_hypotheses 5 is more than beam_size 4"));
}

TEST_CASE("translate_batch: tokens, token scores and scores as data", "[api]") {
  const std::vector<TranslationResult> results = aligned_engine().translate_batch(kLines);
  const Engine same(aligned_folder(), {{"threads", "1"}});
  const std::vector<std::vector<Candidate>> old = same.translate_n_best(kLines);
  for (std::size_t i : {0, 2, 3}) {
    REQUIRE(results[i].hypotheses.size() == 1);
    const Hypothesis& h = results[i].hypotheses[0];
    CHECK(h.text == old[i][0].text);
    CHECK(h.tokens.size() == h.token_scores.size());
    CHECK(h.tokens.back() == "</s>");
    CHECK(std::accumulate(h.token_scores.begin(), h.token_scores.end(), 0.0f) ==
          Approx(h.score).margin(1e-4));
    CHECK(h.alignment.empty());
  }
}

TEST_CASE("translate_batch: alignment as piece pairs, word pairs and character spans", "[api]") {
  TranslationOptions options;
  options.alignment = "hard";
  const std::vector<TranslationResult> results = aligned_engine().translate_batch(kLines, options);
  for (std::size_t i : {0, 2, 3}) {
    const Hypothesis& h = results[i].hypotheses.at(0);
    CHECK(h.alignment.size() == h.tokens.size());  // hard: one source piece per target piece
    CHECK_FALSE(h.alignment_text.empty());
    REQUIRE_FALSE(h.word_alignment.empty());
    REQUIRE(h.word_spans.size() == h.word_alignment.size());
    for (const auto& [source, target] : h.word_spans) {
      CHECK(source.end > source.begin);
      CHECK(code_points(kLines[i], source).find(' ') == std::string::npos);
      CHECK(code_points(h.text, target).find(' ') == std::string::npos);
    }
  }
  options.alignment = "soft";
  const Hypothesis soft = aligned_engine().translate_batch({kLines[0]}, options)[0].hypotheses[0];
  REQUIRE(soft.soft_alignment.size() == soft.tokens.size());
  for (const std::vector<float>& row : soft.soft_alignment)
    CHECK(std::accumulate(row.begin(), row.end(), 0.0f) == Approx(1.0f).margin(1e-3));
}

TEST_CASE("translate_batch: notes say what was done to a line", "[api]") {
  TranslationOptions options;
  options.max_input_length = 6;
  const std::string long_line = "the the the the the the the the the the the the";
  const TranslationResult r =
      aligned_engine().translate_batch({long_line, "One. Two."}, options)[0];
  CHECK(r.notes.split_for_length);
  CHECK(r.notes.source_tokens > 6);
  REQUIRE_FALSE(r.notes.warnings.empty());
  CHECK_THAT(r.notes.warnings[0], Catch::StartsWith("line 1: "));
  options = {};
  const TranslationResult two = aligned_engine().translate_batch({"One. Two."}, options)[0];
  CHECK(two.notes.sentences == 2);
  CHECK_FALSE(two.notes.split_for_length);
}

TEST_CASE("translate_batch: options of one call do not change the Engine's", "[api]") {
  TranslationOptions greedy;
  greedy.beam_size = 1;
  greedy.target_prefix = {"Das", "", "", ""};
  const std::vector<TranslationResult> prefixed = aligned_engine().translate_batch(kLines, greedy);
  CHECK(prefixed[0].hypotheses[0].tokens.front().find("Das") != std::string::npos);
  CHECK(prefixed[0].hypotheses[0].token_scores.front() == 0.0f);  // forced: scored 0
  const std::vector<TranslationResult> plain = aligned_engine().translate_batch(kLines);
  const Engine fresh(aligned_folder(), {{"threads", "1"}});
  CHECK(plain[0].hypotheses[0].text == fresh.translate({kLines[0]})[0]);
  greedy.target_prefix = {"one"};
  CHECK_THROWS_WITH(aligned_engine().translate_batch(kLines, greedy),
                    Catch::Contains("one per line"));
  TranslationOptions load;
  load.settings = {{"precision", "int8"}};
  CHECK_THROWS_AS(aligned_engine().translate_batch(kLines, load), UsageError);
  TranslationOptions bad;
  bad.settings = {{"beam-size", "zero"}};
  CHECK_THROWS_AS(aligned_engine().translate_batch(kLines, bad), UsageError);
}

TEST_CASE("translate_batch: sampling with a seed repeats, num_hypotheses samples", "[api]") {
  TranslationOptions options;
  options.sampling_topk = 0;  // the whole distribution
  options.seed = 7;
  options.num_hypotheses = 3;
  const std::vector<TranslationResult> a = aligned_engine().translate_batch(kLines, options);
  const std::vector<TranslationResult> b = aligned_engine().translate_batch(kLines, options);
  REQUIRE(a[0].hypotheses.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) CHECK(a[0].hypotheses[k].text == b[0].hypotheses[k].text);
  options.sampling_topk = 5;
  options.sampling_topp = 0.5f;
  CHECK_THROWS_AS(aligned_engine().translate_batch(kLines, options), UsageError);
}

TEST_CASE("translate_iterable: results in input order, window by window", "[api]") {
  std::vector<std::string> lines;
  for (int i = 0; i < 9; ++i) lines.push_back(kLines[static_cast<std::size_t>(i) % kLines.size()]);
  TranslationOptions options;
  options.settings = {{"maxi-batch", "2"}, {"batch-size", "1"}};
  std::size_t next = 0;
  std::vector<std::size_t> order;
  std::vector<std::string> texts;
  const std::size_t n = aligned_engine().translate_iterable(
      [&](std::string& line) {
        if (next == lines.size()) return false;
        line = lines[next++];
        return true;
      },
      [&](std::size_t index, TranslationResult r) {
        order.push_back(index);
        texts.push_back(r.hypotheses.empty() ? "" : r.hypotheses[0].text);
      },
      options);
  CHECK(n == lines.size());
  std::vector<std::size_t> expected(lines.size());
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(order == expected);
  CHECK(texts == aligned_engine().translate(lines));
}

TEST_CASE("translate_file writes the best text of every line", "[api]") {
  test::TempDir dir;
  const std::string input = dir.write("in.txt", "The license is free.\n\nHello world.\n");
  const std::string output = (dir.dir / "out.txt").string();
  CHECK(aligned_engine().translate_file(input, output) == 3);
  const std::vector<std::string> texts =
      aligned_engine().translate({"The license is free.", "", "Hello world."});
  CHECK(test::slurp(output) == texts[0] + "\n\n" + texts[2] + "\n");
  CHECK_THROWS_AS(aligned_engine().translate_file((dir.dir / "none").string(), output), InputError);
}

TEST_CASE("a cancel flag stops a call with Cancelled", "[api]") {
  std::atomic<bool> cancel{true};
  TranslationOptions options;
  options.cancel = &cancel;
  CHECK_THROWS_AS(aligned_engine().translate_batch(kLines, options), Cancelled);
  CHECK_THROWS_AS(aligned_engine().translate_batch(kLines, options), Error);
  cancel = false;
  CHECK(aligned_engine().translate_batch(kLines, options).size() == kLines.size());
  ScoringOptions scoring;
  std::atomic<bool> stop{true};
  scoring.cancel = &stop;
  CHECK_THROWS_AS(aligned_engine().score_batch({{"a", "b"}}, scoring), Cancelled);
}

TEST_CASE("translate_tokens: each token heard as it is chosen, and false ends there", "[api]") {
  std::vector<std::string> heard;
  const TranslationResult whole = aligned_engine().translate_tokens(
      kLines[0], [&](const TokenStep& step) {
        CHECK(step.step == heard.size());
        heard.push_back(step.token);
        return true;
      });
  REQUIRE(whole.hypotheses.size() == 1);
  CHECK(heard == whole.hypotheses[0].tokens);
  TranslationOptions greedy;
  greedy.beam_size = 1;
  CHECK(whole.hypotheses[0].text == aligned_engine().translate_batch({kLines[0]}, greedy)[0].hypotheses[0].text);
  REQUIRE(heard.size() > 3);
  std::size_t count = 0;
  const TranslationResult cut =
      aligned_engine().translate_tokens(kLines[0], [&](const TokenStep&) { return ++count < 2; });
  CHECK(cut.hypotheses[0].tokens.size() == 2);
  TranslationOptions beam;
  beam.beam_size = 4;
  beam.sampling_topk = 1;
  CHECK_THROWS_AS(aligned_engine().translate_tokens(kLines[0], [](const TokenStep&) { return true; }, beam),
                  UsageError);
}

TEST_CASE("score_batch: token scores and alignment of each pair", "[api]") {
  TranslationOptions options;
  options.alignment = "hard";
  const Hypothesis h = aligned_engine().translate_batch({kLines[0]}, options)[0].hypotheses[0];
  ScoringOptions scoring;
  scoring.alignment = "hard";
  const std::vector<ScoringResult> scored =
      aligned_engine().score_batch({{kLines[0], h.text}, {kLines[2], ""}}, scoring);
  REQUIRE(scored.size() == 2);
  CHECK(scored[0].score == Approx(h.score).margin(1e-3));
  CHECK(scored[0].tokens == h.tokens);
  CHECK(scored[0].alignment == h.alignment);  // scoring a line with its translation: the same pairs
  CHECK(scored[0].word_alignment == h.word_alignment);
  CHECK(scored[1].tokens == std::vector<std::string>{"</s>"});
  scoring.alignment = "sideways";
  CHECK_THROWS_AS(aligned_engine().score_batch({{"a", "b"}}, scoring), UsageError);
}

TEST_CASE("the settings table and the shipped model are public", "[api]") {
  bool beam = false;
  for (const SettingRow& row : setting_rows(Command::translate))
    if (row.key == "beam-size") beam = row.short_flag == "-b" && row.kind == SettingKind::whole_number;
  CHECK(beam);
  bool format = false;
  for (const SettingRow& row : setting_rows(Command::score))
    if (row.key == "format") format = row.choices == std::vector<std::string>{"text", "nbest", "jsonl"};
  CHECK(format);
  CHECK_FALSE(marian_flags(Command::translate).empty());
  CHECK(applies_from_model("beam-size"));
  CHECK_FALSE(applies_from_model("mini-batch"));
  CHECK(config_file("fast").size() > 8);
  CHECK_THROWS_AS(config_file("no-such-config"), UsageError);
  CHECK_THAT(describe_model(aligned_folder()), Catch::Contains("word alignment (--alignment): decoder layer"));
}

}  // namespace s2s

namespace s2s {

TEST_CASE("translate_batch: protected spans are kept and noted, per call", "[api]") {
  const std::string line = "The file {0} was not found.";
  const TranslationResult kept = aligned_engine().translate_batch({line})[0];
  CHECK(kept.notes.protected_spans == 1);
  CHECK(kept.hypotheses.at(0).text.find("{0}") != std::string::npos);
  TranslationOptions as_is;
  as_is.protect = false;
  CHECK(aligned_engine().translate_batch({line}, as_is)[0].notes.protected_spans == 0);
}

}  // namespace s2s

namespace s2s {

TEST_CASE("one Engine translates from two threads at once as from one", "[api]") {
  std::vector<std::string> lines;
  for (int i = 0; i < 12; ++i) lines.push_back(kLines[static_cast<std::size_t>(i) % kLines.size()]);
  const std::vector<std::string> alone = aligned_engine().translate(lines);
  std::vector<std::string> first, second;
  TranslationOptions greedy;
  greedy.beam_size = 1;
  const std::vector<TranslationResult> greedy_alone = aligned_engine().translate_batch(lines, greedy);
  std::vector<TranslationResult> greedy_threaded;
  std::thread a([&] { first = aligned_engine().translate(lines); });
  std::thread b([&] { greedy_threaded = aligned_engine().translate_batch(lines, greedy); });
  std::thread c([&] { second = aligned_engine().translate(lines); });
  a.join();
  b.join();
  c.join();
  CHECK(first == alone);
  CHECK(second == alone);
  REQUIRE(greedy_threaded.size() == greedy_alone.size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    CHECK(greedy_threaded[i].hypotheses.size() == greedy_alone[i].hypotheses.size());
  for (std::size_t i : {0, 2, 3})
    CHECK(greedy_threaded[i].hypotheses[0].text == greedy_alone[i].hypotheses[0].text);
}

// libgomp gives a thread it has not seen the process's initial count (here CTest's
// OMP_NUM_THREADS=1), not the count set where the Engine was made: each call sets its own.
TEST_CASE("a call runs on the Engine's thread count from any thread, and gives it back", "[api]") {
  const Engine two(aligned_folder(), {{"threads", "2"}});
  int during = 0, before = 0, after = 0;
  std::thread caller([&] {
    before = omp_get_max_threads();
    two.translate_tokens(kLines[0], [&](const TokenStep&) {
      during = omp_get_max_threads();
      return false;
    });
    after = omp_get_max_threads();
  });
  caller.join();
  CHECK(during == 2);
  CHECK(after == before);
}

TEST_CASE("a call's own options are kept for the next call, and a glossary file is read each time",
          "[api]") {
  TranslationOptions greedy;
  greedy.beam_size = 1;
  TranslationOptions beam;
  beam.beam_size = 4;
  const std::vector<TranslationResult> first = aligned_engine().translate_batch(kLines, greedy);
  const std::vector<TranslationResult> other = aligned_engine().translate_batch(kLines, beam);
  const std::vector<TranslationResult> again = aligned_engine().translate_batch(kLines, greedy);
  const Engine greedy_engine(aligned_folder(), {{"threads", "1"}, {"beam-size", "1"}});
  for (std::size_t i : {0, 2, 3}) {
    CHECK(again[i].hypotheses[0].text == first[i].hypotheses[0].text);
    CHECK(again[i].hypotheses[0].score == first[i].hypotheses[0].score);
    CHECK(first[i].hypotheses[0].text == greedy_engine.translate({kLines[i]})[0]);
    CHECK(other[i].hypotheses[0].text == aligned_engine().translate({kLines[i]})[0]);
  }
  const test::TempDir dir("engine-glossary");
  TranslationOptions terms;
  terms.settings = {{"glossary", (dir.dir / "terms.tsv").string()}};
  dir.write("terms.tsv", "licence\tGenehmigung\n");
  CHECK_THAT(aligned_engine().translate_batch({kLines[0]}, terms)[0].hypotheses[0].text,
             Catch::Contains("Genehmigung"));
  dir.write("terms.tsv", "licence\tErlaubnis\n");
  CHECK_THAT(aligned_engine().translate_batch({kLines[0]}, terms)[0].hypotheses[0].text,
             Catch::Contains("Erlaubnis"));
}

}  // namespace s2s
