// Word alignment as words and character spans beyond a line translated whole: `s2s score`'s jsonl
// "alignment" and "alignment_spans" (the same as translate gives for the same pair), and the
// joined alignment of a line split into pieces (pipeline/translator.h Translation::split_alignment).
#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <sstream>

#include "app/cli_runner.h"
#include "fixtures.h"
#include "golden_search.h"
#include "s2s/pipeline/alignment.h"
#include "s2s/pipeline/long_lines.h"

namespace s2s {
namespace {

using Json = nlohmann::json;
using Pairs = pipeline::AlignmentPairs;

const test::FixtureModel kFixture{"marian-align-layer1", false, 0, nullptr};

std::string folder() { return test::data_path("models/marian-align-layer1"); }

std::vector<Json> records(const std::string& out) {
  std::vector<Json> list;
  for (const std::string& line : test::split_lines(out)) list.push_back(Json::parse(line));
  return list;
}

Pairs pairs_of(const Json& list) {
  Pairs pairs;
  for (const auto& p : list) pairs.emplace_back(p[0].get<std::size_t>(), p[1].get<std::size_t>());
  return pairs;
}

// The code points of a UTF-8 string.
std::size_t char_count(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::size_t word_count(const std::string& s) {
  std::istringstream in(s);
  std::size_t n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

// The [begin, end) code points of each whitespace-separated word of s (what the test expects
// spans to point at, found here without the library).
std::vector<std::array<std::size_t, 2>> word_chars(const std::string& s) {
  std::vector<std::array<std::size_t, 2>> spans;
  std::size_t at = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    const bool space = s[i] == ' ';
    if (!space && !in_word) spans.push_back({at, at});
    if (!space) spans.back()[1] = at + 1;
    in_word = !space;
    ++at;
  }
  return spans;
}

// Sentences of the alignment goldens, and one with multi-byte characters.
std::vector<std::string> parity_sources() {
  const test::GoldenSearch g = test::load_golden_search(kFixture, "alignment");
  std::vector<std::string> sources;
  for (const auto& s : g.golden["sentences"]) sources.push_back(s["text"].get<std::string>());
  sources.push_back("Die Straße führt zum Café am Fluß.");
  return sources;
}

}  // namespace

TEST_CASE("score jsonl gives the word alignment translate gives for the same pair",
          "[app][alignment]") {
  const std::vector<std::string> sources = parity_sources();
  std::string input;
  for (const std::string& s : sources) input += s + "\n";
  const auto translated =
      test::run_s2s("translate -b 4 --alignment --format jsonl -m '" + folder() + "'", input);
  INFO(translated.err);
  REQUIRE(translated.exit_code == 0);
  const std::vector<Json> t = records(translated.out);
  REQUIRE(t.size() == sources.size());
  std::string pairs;
  for (std::size_t i = 0; i < sources.size(); ++i)
    pairs += sources[i] + "\t" + t[i]["translation"].get<std::string>() + "\n";
  const auto scored =
      test::run_s2s("score --alignment --format jsonl -m '" + folder() + "'", pairs);
  INFO(scored.err);
  REQUIRE(scored.exit_code == 0);
  const std::vector<Json> s = records(scored.out);
  REQUIRE(s.size() == sources.size());
  std::size_t compared = 0, with_spans = 0, ended = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    INFO("line " << i << ": " << sources[i] << " -> " << t[i]["translation"]);
    // The translation reads back as the same pieces, so teacher forcing runs the search's steps;
    // a translation cut at the length limit has no </s>, which score adds (a pair of its own).
    Json tokens = t[i]["tokens"];
    const bool cut = tokens.back() != "</s>";
    if (cut) tokens.push_back("</s>");
    if (s[i]["tokens"] != tokens) continue;  // junk of the random fixture may not read back
    ++compared;
    Pairs scored_pairs = pairs_of(s[i]["piece_alignment"]);
    if (cut) {
      const std::size_t eos = tokens.size() - 1;
      CHECK(std::count_if(scored_pairs.begin(), scored_pairs.end(),
                          [&](const auto& p) { return p.second == eos; }) == 1);
      scored_pairs.erase(std::remove_if(scored_pairs.begin(), scored_pairs.end(),
                                        [&](const auto& p) { return p.second == eos; }),
                         scored_pairs.end());
    } else {
      ++ended;
    }
    CHECK(scored_pairs == pairs_of(t[i]["piece_alignment"]));
    CHECK(s[i]["alignment"] == t[i]["alignment"]);
    CHECK(!s[i]["alignment"].empty());
    CHECK(s[i].contains("alignment_spans") == t[i].contains("alignment_spans"));
    if (s[i].contains("alignment_spans")) {
      CHECK(s[i]["alignment_spans"] == t[i]["alignment_spans"]);
      ++with_spans;
    }
  }
  INFO(compared << " of " << sources.size() << " pairs compared");
  CHECK(compared >= sources.size() / 2);
  CHECK(with_spans >= compared - 1);
  CHECK(ended >= 1);
}

TEST_CASE("score jsonl alignment spans count characters, not bytes", "[app][alignment]") {
  // Hand-counted: "Straße" is 6 characters (7 bytes), "Café." 5, "café." 5.
  const std::string source = "Die Straße führt zum Café.", target = "The street leads to the café.";
  const std::vector<std::array<std::size_t, 2>> source_words = {
      {0, 3}, {4, 10}, {11, 16}, {17, 20}, {21, 26}};
  const std::vector<std::array<std::size_t, 2>> target_words = {
      {0, 3}, {4, 10}, {11, 16}, {17, 19}, {20, 23}, {24, 29}};
  CHECK(word_chars(source) == source_words);
  CHECK(word_chars(target) == target_words);
  const auto r = test::run_s2s("score --alignment --format jsonl -m '" + folder() + "'",
                               source + "\t" + target + "\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json j = Json::parse(r.out);
  // The word pairs are the piece pairs seen through the pieces' words ('▁' starts one).
  const auto model = test::load_fixture(kFixture);
  const text::TextCodec& codec = model->codec();
  const auto words = [](const std::vector<std::string>& pieces) {
    std::vector<long> w;
    long word = -1;
    for (const std::string& p : pieces) {
      if (p == "</s>") {
        w.push_back(-1);
        continue;
      }
      if (word < 0 || p.rfind("\xe2\x96\x81", 0) == 0) ++word;
      w.push_back(word);
    }
    return w;
  };
  std::vector<std::string> source_pieces;
  for (std::int32_t id : codec.encode_source(source)) source_pieces.push_back(codec.source_vocab().piece(id));
  const std::vector<long> sw = words(source_pieces),
                          tw = words(j["tokens"].get<std::vector<std::string>>());
  std::set<std::pair<std::size_t, std::size_t>> expected;
  for (const auto& [s, t] : pairs_of(j["piece_alignment"]))
    if (sw.at(s) >= 0 && tw.at(t) >= 0) expected.emplace(sw[s], tw[t]);
  const Pairs found = pairs_of(j["alignment"]);
  CHECK(Pairs(expected.begin(), expected.end()) == found);
  REQUIRE(found.size() >= 5);
  REQUIRE(j["alignment_spans"].size() == found.size());
  for (std::size_t k = 0; k < found.size(); ++k) {
    const auto& span = j["alignment_spans"][k];
    CHECK(span[0].get<std::array<std::size_t, 2>>() == source_words.at(found[k].first));
    CHECK(span[1].get<std::array<std::size_t, 2>>() == target_words.at(found[k].second));
  }
}

TEST_CASE("source words of pieces continue across pieces", "[pipeline][alignment]") {
  const auto model = test::load_fixture(kFixture);
  const text::TextCodec& codec = model->codec();
  const text::Vocabulary& vocab = codec.source_vocab();
  const std::int32_t eos = vocab.eos_id();
  const std::vector<std::int32_t> a = codec.encode_source("Donaudampf"),
                                  b = codec.encode_source("schiff fährt heute");
  pipeline::AlignedSource source;
  source.ids = a;
  source.ids.insert(source.ids.end(), b.begin(), b.end());
  source.text = "Donaudampfschiff fährt heute";
  source.pieces = {{a.size(), false, false}, {source.ids.size(), false, true}};
  const auto expect = [&](long second_offset, bool skip) {
    std::vector<long> w = pipeline::word_of_piece(a, vocab, eos, false);
    std::vector<long> wb = pipeline::word_of_piece(b, vocab, eos, skip);
    for (long x : wb) w.push_back(x < 0 ? -1 : x + second_offset);
    return w;
  };
  // "schiff" continues the word "Donaudampf" of the piece before: 3 words, as the text has.
  CHECK(pipeline::source_words(source, vocab, eos) == expect(0, false));
  source.pieces[1].continues_word = false;  // a piece after whitespace starts a word
  CHECK(pipeline::source_words(source, vocab, eos) == expect(1, false));
  source.pieces[1].skip_first = true;  // its first id is a repeated label: no word
  CHECK(pipeline::source_words(source, vocab, eos) == expect(1, true));
  // A whole line: one piece.
  const pipeline::AlignedSource whole = pipeline::AlignedSource::whole(a, "Donaudampf", false);
  CHECK(pipeline::source_words(whole, vocab, eos) == pipeline::word_of_piece(a, vocab, eos, false));
}

TEST_CASE("a split line's alignment joins its pieces' alignments", "[app][alignment]") {
  const std::string line =
      "The house is small. The dog sleeps in the garden! My friend has a new car. To protect your";
  const std::size_t limit = 12;
  const auto model = test::load_fixture(kFixture);
  const text::TextCodec& codec = model->codec();
  const pipeline::TokenCounter count = [&](const std::string& s) {
    return codec.encode_source(s).size();
  };
  const std::vector<std::string> pieces = pipeline::split_to_limit(line, limit, count, &test::english_sentences());
  REQUIRE(pieces.size() >= 4);  // the fixture's pieces have junk translations, many over the limit
  const std::string options = "translate -b 4 --max-length " + std::to_string(limit) +
                              " --alignment -m '" + folder() + "'";
  const auto whole = test::run_s2s(options + " --format jsonl", line + "\n");
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  REQUIRE(whole.err.find("split into " + std::to_string(pieces.size()) + " pieces") !=
          std::string::npos);
  std::string piece_lines;
  for (const std::string& p : pieces) piece_lines += p + "\n";
  const auto separate = test::run_s2s(options + " --format jsonl", piece_lines);
  REQUIRE(separate.exit_code == 0);
  const std::vector<Json> parts = records(separate.out);
  REQUIRE(parts.size() == pieces.size());

  // The pieces' records joined by hand: tokens without each piece's </s> (a '▁' between two
  // pieces when the next does not start a word), one </s> at the end; pairs moved by the source
  // tokens and target tokens before; words and characters likewise.
  std::vector<std::string> tokens;
  Pairs pairs, words;
  std::vector<std::array<std::size_t, 4>> spans;
  std::string translation;
  std::size_t source_offset = 0, source_words = 0, source_chars = 0, target_words = 0,
              target_chars = 0, at = 0;
  bool all_spans = true, ended = false;
  const std::string mark = "\xe2\x96\x81";
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const Json& r = parts[k];
    auto piece_tokens = r["tokens"].get<std::vector<std::string>>();
    ended = !piece_tokens.empty() && piece_tokens.back() == "</s>";
    const std::size_t n = piece_tokens.size() - (ended ? 1 : 0);
    if (n > 0 && !tokens.empty() && piece_tokens[0].rfind(mark, 0) != 0) tokens.push_back(mark);
    const std::size_t target_offset = tokens.size();
    tokens.insert(tokens.end(), piece_tokens.begin(), piece_tokens.begin() + static_cast<long>(n));
    for (const auto& [s, t] : pairs_of(r["piece_alignment"]))
      if (t < n) pairs.emplace_back(s + source_offset, t + target_offset);
      else if (k + 1 == pieces.size() && ended) pairs.emplace_back(s + source_offset, SIZE_MAX);
    source_offset += codec.encode_source(pieces[k]).size();

    const std::size_t piece_at = line.find(pieces[k], at);
    source_chars = char_count(line.substr(0, piece_at));
    at = piece_at + pieces[k].size();
    const std::string text = r["translation"].get<std::string>();
    if (!text.empty() && !translation.empty()) translation += " ";
    target_chars = char_count(translation);
    translation += text;
    for (const auto& [s, t] : pairs_of(r["alignment"]))
      words.emplace_back(s + source_words, t + target_words);
    all_spans = all_spans && r.contains("alignment_spans");
    if (r.contains("alignment_spans"))
      for (const auto& sp : r["alignment_spans"])
        spans.push_back({sp[0][0].get<std::size_t>() + source_chars,
                         sp[0][1].get<std::size_t>() + source_chars,
                         sp[1][0].get<std::size_t>() + target_chars,
                         sp[1][1].get<std::size_t>() + target_chars});
    source_words += word_count(pieces[k]);
    for (std::size_t i = 0; i < n; ++i)  // words as the pieces make them: '▁' starts one
      target_words += i == 0 || piece_tokens[i].rfind(mark, 0) == 0;
  }
  REQUIRE(ended);  // the last piece's </s> ends the joined translation, with the piece's pairs
  tokens.push_back("</s>");
  for (auto& [s, t] : pairs)
    if (t == SIZE_MAX) t = tokens.size() - 1;
  std::sort(pairs.begin(), pairs.end());

  const Json j = Json::parse(whole.out);
  CHECK(j["translation"] == translation);
  REQUIRE(j["tokens"].get<std::vector<std::string>>() == tokens);
  CHECK(pairs_of(j["piece_alignment"]) == pairs);
  CHECK(!pairs.empty());
  CHECK(pairs_of(j["alignment"]) == words);  // the pieces' words are in order: already sorted
  REQUIRE(all_spans);
  REQUIRE(j.contains("alignment_spans"));
  std::vector<std::array<std::size_t, 4>> found;
  for (const auto& sp : j["alignment_spans"])
    found.push_back({sp[0][0].get<std::size_t>(), sp[0][1].get<std::size_t>(),
                     sp[1][0].get<std::size_t>(), sp[1][1].get<std::size_t>()});
  CHECK(found == spans);

  // text and nbest print the same pairs after " ||| ", as Marian would for the joined tokens.
  const std::string expected_text = pipeline::pairs_text(pairs);
  const auto text = test::run_s2s(options, line + "\n");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out == translation + " ||| " + expected_text + "\n");
  const auto nbest = test::run_s2s(options + " --format nbest", line + "\n");
  REQUIRE(nbest.exit_code == 0);
  CHECK(nbest.out.find("0 ||| " + translation + " ||| " + expected_text + " ||| F0= ") == 0);
}

TEST_CASE("a split line's word spans follow a word cut between pieces", "[app][alignment]") {
  // One word too long for a piece is cut between characters: its pieces are one word.
  const std::string line =
      "Donaudampfschiffahrtsgesellschaftskapitänsmützenabzeichenhalter sind schön.";
  const auto r = test::run_s2s(
      "translate -b 4 --max-length 6 --protect off --alignment --format jsonl -m '" + folder() + "'",
      line + "\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.find("split into") != std::string::npos);
  const Json j = Json::parse(r.out);
  const std::vector<std::array<std::size_t, 2>> source_words = word_chars(line);
  REQUIRE(source_words.size() == 3);
  const Pairs found = pairs_of(j["alignment"]);
  REQUIRE(!found.empty());
  for (const auto& [s, t] : found) CHECK(s < 3);
  const std::vector<std::array<std::size_t, 2>> target_words =
      word_chars(j["translation"].get<std::string>());
  REQUIRE(j.contains("alignment_spans"));
  REQUIRE(j["alignment_spans"].size() == found.size());
  for (std::size_t k = 0; k < found.size(); ++k) {
    CHECK(j["alignment_spans"][k][0].get<std::array<std::size_t, 2>>() ==
          source_words.at(found[k].first));
    CHECK(j["alignment_spans"][k][1].get<std::array<std::size_t, 2>>() ==
          target_words.at(found[k].second));
  }
}

TEST_CASE("a split line's soft alignment is left empty", "[app][alignment]") {
  const std::string line = "The house is small. The dog sleeps in the garden! My friend has a car.";
  const std::string options =
      "translate -b 4 --max-length 12 --alignment soft -m '" + folder() + "'";
  const auto text = test::run_s2s(options, line + "\n");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.size() > 6);
  CHECK(text.out.substr(text.out.size() - 6) == " ||| \n");
  const auto jsonl = test::run_s2s(options + " --format jsonl", line + "\n");
  REQUIRE(jsonl.exit_code == 0);
  const Json j = Json::parse(jsonl.out);
  CHECK(j["piece_alignment"].empty());
  CHECK(!j.contains("alignment"));
}

}  // namespace s2s
