// The I/O contract under hostile input, run for real (docs/user-guide.md, "Guarantees"): invalid
// UTF-8, NUL and control bytes, a byte order mark, CR, right-to-left marks, encoded surrogates,
// a 100,000-character line and a 1 MB line without a final newline never crash, never shift lines and
// never make stdout invalid UTF-8; long lines are split, truncated or refused as --long-lines
// says, with the exact warnings; score's --skip-bad and long pairs.
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "cli_runner.h"
#include "s2s/formats/detect.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/text/protect.h"
#include "test_utils.h"

namespace s2s {
namespace {

const std::string kModel = "marian-postnorm-swish-tiedall";

std::string model_arg(const std::string& name = kModel) {
  return "-m '" + test::data_path("models/" + name) + "'";
}

std::shared_ptr<const model::Model> load(const std::string& name = kModel) {
  return formats::load_model(test::data_path("models/" + name));
}

// A UTF-8 validator written from RFC 3629's grammar, independent of the library's.
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c <= 0x7F) n = 0;
    else if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) n = 2;
    else if (c == 0xED) n = 2, hi = 0x9F;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) n = 3, hi = 0x8F;
    else return false;
    if (i + n >= s.size() && n > 0) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const unsigned char d = b(i + k);
      if (d < (k == 1 ? lo : 0x80) || d > (k == 1 ? hi : 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

// Sentences of random words, `bytes` long or a little less, no newline.
std::string long_text(std::size_t bytes, unsigned seed) {
  const char* const words[] = {"the",   "license", "is",     "free", "software", "copy",
                               "world", "and",     "of",     "this", "Hello",    "verbatim",
                               "permit", "Gr\xC3\xBC\xC3\x9F" "e", "\xE6\x9D\xB1\xE4\xBA\xAC"};
  std::mt19937 gen(seed);
  std::string text;
  while (text.size() < bytes) {
    const int n = 3 + static_cast<int>(gen() % 20);
    for (int w = 0; w < n; ++w) text += std::string(w ? " " : "") + words[gen() % 15];
    text += gen() % 4 == 0 ? ", " : ". ";
  }
  while (text.size() > bytes) text.pop_back();
  while (!text.empty() && (text.back() == ' ' || (text.back() & 0xC0) == 0x80 ||
                           static_cast<unsigned char>(text.back()) >= 0xC0))
    text.pop_back();  // end on a whole character
  return text;
}

// The text the model reads of a line: what it cannot spell masked (text/protect.h).
std::string masked(const model::Model& model, const std::string& line) {
  return text::protect(line, {&model.codec()}).text;
}

// What the CLI says about a line the Translator splits, computed with the library.
std::string split_warning(const model::Model& model, std::size_t line_number,
                          const std::string& original, std::size_t limit) {
  const text::TextCodec& codec = model.codec();
  const std::string line = masked(model, original);
  const pipeline::TokenCounter count = [&](const std::string& s) {
    return codec.encode_source(s).size();
  };
  const std::size_t tokens = line.size() <= pipeline::kCountBytes
                                 ? count(line)
                                 : pipeline::count_in_chunks(line, limit, count).tokens;
  const std::size_t pieces = pipeline::split_to_limit(line, limit, count, &test::english_sentences()).size();
  return "s2s: warning: " +
         pipeline::too_long_message(line_number, tokens, pipeline::TokenLimit::of(limit, 0)) +
         ": split into " + std::to_string(pieces) + " pieces, translated separately and joined\n";
}

}  // namespace

TEST_CASE("translate: hostile bytes never crash, shift lines or leak into stdout", "[cli]") {
  const std::string fffd = "\xEF\xBF\xBD";
  const std::string rtl = "\xE2\x80\x8F\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D \xE2\x80\x8Fworld";
  const std::string big = long_text(100000, 7);
  REQUIRE(big.size() > 99990);
  // (input line, what s2s must treat it as)
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"\xEF\xBB\xBFHello world", "Hello world"},  // a byte order mark starts the input
      {"bad \xFF\xFE bytes", "bad " + fffd + fffd + " bytes"},
      {std::string("nul\0byte", 8), "nul byte"},
      {"ctrl \x01\x1B[31m esc\x7F", "ctrl   [31m esc "},
      {"crlf line\r", "crlf line"},
      {"lone\rcr", "lone cr"},
      {"", ""},
      {"\t \t", "\t \t"},
      {rtl, rtl},
      {"surrogate \xED\xA0\x80 end", "surrogate " + fffd + fffd + fffd + " end"},
      {"tab\tseparated\tfields", "tab\tseparated\tfields"},
      {"\x01\x02\x03", "   "},  // only controls: a blank line, an empty record
      {"c1 \xC2\x85 next", "c1   next"},
      {big, big},
      {"the last line", "the last line"},
  };
  std::string dirty, clean;
  for (const auto& [in, as] : lines) {
    dirty += in + "\n";
    clean += as + "\n";
  }
  // A short decoding limit keeps the tiny model's translation of the 100,000-character line
  // fast; it changes nothing else here.
  const std::string args = "translate -b 1 --max-length-factor 0.2 " + model_arg();
  const auto r = test::run_s2s(args, dirty);
  REQUIRE(r.exit_code == 0);
  const auto expected = test::run_s2s(args + " --quiet", clean);
  REQUIRE(expected.exit_code == 0);
  CHECK(test::count_lines(r.out) == static_cast<int>(lines.size()));
  CHECK(r.out == expected.out);
  CHECK(valid_utf8(r.out));
  const std::vector<std::string> out = split_lines(r.out);
  REQUIRE(out.size() == lines.size());
  for (std::size_t i : {6, 7, 11}) CHECK(out[i].empty());
  CHECK(!out[13].empty());
  const auto model = load();
  // The tiny model cannot spell U+FFFD, Hebrew or some words of `big`: kept, and named.
  const std::string unspellable = "s2s: warning: line 14: the model's vocabulary cannot spell "
                                  "'\xC3\xBC', '\xC3\x9F', '\xE6\x9D\xB1', '\xE4\xBA\xAC': kept as "
                                  "in the source\n";
  CHECK(r.err == "s2s: warning: line 2: the model's vocabulary cannot spell '" + fffd +
                     "': kept as in the source\n"
                     "s2s: warning: line 2: invalid UTF-8 replaced with U+FFFD (2 sequences)\n"
                     "s2s: warning: line 9: the model's vocabulary cannot spell '\xE2\x80\x8F', "
                     "'\xD7\xA9', '\xD7\x9C', '\xD7\x95', '\xD7\x9D': kept as in the source\n"
                     "s2s: warning: line 10: the model's vocabulary cannot spell '" + fffd +
                     "': kept as in the source\n"
                     "s2s: warning: line 10: invalid UTF-8 replaced with U+FFFD (3 sequences)\n" +
                     unspellable + split_warning(*model, 14, big, 256));
  CHECK(test::run_s2s(args + " --quiet", dirty).err.empty());
}

TEST_CASE("translate: a 1 MB line without a final newline, split or truncated", "[cli]") {
  const std::string big = long_text(1000000, 11);
  const std::string input = "the first line\n" + big;  // no newline at the end
  const std::string args = "translate -b 1 --max-length-factor 0.01 " + model_arg();
  const auto model = load();
  const std::string unspellable = "s2s: warning: line 2: the model's vocabulary cannot spell "
                                  "'\xC3\xBC', '\xC3\x9F', '\xE6\x9D\xB1', '\xE4\xBA\xAC': kept as "
                                  "in the source\n";
  SECTION("split") {
    const auto r = test::run_s2s(args, input);
    REQUIRE(r.exit_code == 0);
    CHECK(test::count_lines(r.out) == 2);
    CHECK(valid_utf8(r.out));
    CHECK(r.err == unspellable + split_warning(*model, 2, big, 256));
  }
  SECTION("truncate") {
    // The line whole (its sentences would each be translated, the long ones truncated).
    const auto r = test::run_s2s(args + " --long-lines truncate --sentence-split off", input);
    REQUIRE(r.exit_code == 0);
    CHECK(test::count_lines(r.out) == 2);
    CHECK(valid_utf8(r.out));
    const pipeline::TokenCounter count = [&](const std::string& s) {
      return model->codec().encode_source(s).size();
    };
    CHECK(r.err == unspellable + "s2s: warning: line 2: " +
                       std::to_string(pipeline::count_in_chunks(masked(*model, big), 256, count).tokens) +
                       " tokens, more than the limit of 256 (--max-length): truncated to its "
                       "first 256 tokens\n");
  }
}

TEST_CASE("translate: --long-lines split, truncate and fail, and --max-length", "[cli]") {
  const std::vector<std::string> sentences = {"The license is free.", "You may copy the program!",
                                              "Is this the world?", "Hello world."};
  std::string line, separate;
  for (const std::string& s : sentences) {
    line += (line.empty() ? "" : " ") + s;
    separate += s + "\n";
  }
  const auto model = load();
  const std::size_t tokens = model->codec().encode_source(line).size();
  const std::string input = "Hello world\n" + line + "\nthe end\n";
  // Lines whole: sentences would each fit (the last section shows). The text as it is: the
  // model cannot spell its '?', which protection would mask and name.
  const std::string args =
      "translate -b 1 --max-length 12 --sentence-split off --protect off " + model_arg();
  const std::string head = "line 2: " + std::to_string(tokens) +
                           " tokens, more than the limit of 12 (--max-length)";

  SECTION("split: the sentences' own translations joined with a space") {
    const auto r = test::run_s2s(args, input);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err == "s2s: warning: " + head +
                       ": split into 4 pieces, translated separately and joined\n");
    const auto parts = test::run_s2s(args, separate);
    std::string joined;
    for (const std::string& p : split_lines(parts.out))
      if (!p.empty()) joined += (joined.empty() ? "" : " ") + p;
    const auto out = split_lines(r.out);
    REQUIRE(out.size() == 3);
    CHECK(out[1] == joined);
    // The other lines are as they are alone (translations held to the same limit); the
    // default is split.
    const auto plain = split_lines(test::run_s2s(args, "Hello world\nthe end\n").out);
    REQUIRE(plain.size() == 2);
    CHECK(out[0] == plain[0]);
    CHECK(out[2] == plain[1]);
    CHECK(test::run_s2s(args + " --long-lines split", input).out == r.out);
    // Windows of one line: the line is still counted over the whole input.
    const auto windows = test::run_s2s(args + " --maxi-batch 1 --batch-size 1", input);
    CHECK(windows.out == r.out);
    CHECK(windows.err == r.err);
    CHECK(test::run_s2s(args + " --quiet", input).err.empty());
    // The other formats give the same text: jsonl decodes the joined hypothesis at once, text
    // and nbest piece by piece.
    const auto jsonl = split_lines(test::run_s2s(args + " --format jsonl", input).out);
    REQUIRE(jsonl.size() == 3);
    const auto record = nlohmann::json::parse(jsonl[1]);
    CHECK(record["translation"] == out[1]);
    const auto nbest = split_lines(test::run_s2s(args + " --format nbest --n-best", input).out);
    REQUIRE(nbest.size() >= 3);
    const auto second = std::find_if(nbest.begin(), nbest.end(),
                                     [](const std::string& l) { return l.rfind("1 ||| ", 0) == 0; });
    REQUIRE(second != nbest.end());
    CHECK(second->rfind("1 ||| " + out[1] + " ||| F0= ", 0) == 0);
    CHECK(std::count_if(nbest.begin(), nbest.end(),
                        [](const std::string& l) { return l.rfind("1 ||| ", 0) == 0; }) == 1);
  }
  SECTION("truncate") {
    const auto r = test::run_s2s(args + " --long-lines truncate", input);
    REQUIRE(r.exit_code == 0);
    CHECK(test::count_lines(r.out) == 3);
    CHECK(r.err == "s2s: warning: " + head + ": truncated to its first 12 tokens\n");
    const auto dir = test::temp_dir("yaml");
    std::ofstream(dir / "c.yml") << "max-length: 12\nlong-lines: truncate\nsentence-split: off\nprotect: off\n";
    const auto yaml = test::run_s2s(
        "translate -b 1 --config '" + (dir / "c.yml").string() + "' " + model_arg(), input);
    CHECK(yaml.out == r.out);
    CHECK(yaml.err == r.err);
    std::filesystem::remove_all(dir);
  }
  SECTION("fail: an input error naming the line, exit 1") {
    const auto r = test::run_s2s(args + " --long-lines fail --maxi-batch 1", input);
    CHECK(r.exit_code == 1);
    CHECK(r.err == "s2s: error: " + head + "; --long-lines split or truncate would translate it\n");
    CHECK(split_lines(r.out).size() <= 1);  // at most the line before it
  }
  SECTION("sentences (the default): each fits, the same translation without a warning") {
    const auto split = test::run_s2s(args, input);
    const std::string sentences_args = "translate -b 1 --max-length 12 --protect off " + model_arg();
    const auto r = test::run_s2s(sentences_args, input);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out == split.out);
    CHECK(test::run_s2s(sentences_args + " --long-lines fail", input).exit_code == 0);
  }
  SECTION("usage errors") {
    const auto bad = test::run_s2s(args + " --long-lines crop", input);
    CHECK(bad.exit_code == 2);
    CHECK(test::run_s2s(args + " --max-length 0", input).exit_code == 2);
    const auto tiny = test::run_s2s("translate --max-length 1 " + model_arg(), input);
    CHECK(tiny.exit_code == 2);
    CHECK(tiny.err == "s2s: error: the limit of 1 (--max-length) leaves no room for text: the "
                      "model adds 1 token (</s>, language label) to every sentence\n");
  }
}

TEST_CASE("translate: a learned position table lowers the limit", "[cli]") {
  std::string line;
  for (int i = 0; i < 40; ++i) line += "The license is free. ";
  const auto model = load("marian-ffn3-learnedpos-legacyW");
  REQUIRE(model->config().max_positions == 64);
  // The line whole: its sentences would each fit.
  const auto r = test::run_s2s(
      "translate -b 1 --sentence-split off " + model_arg("marian-ffn3-learnedpos-legacyW"),
      "short\n" + line + "\n");
  REQUIRE(r.exit_code == 0);
  CHECK(test::count_lines(r.out) == 2);
  const pipeline::TokenCounter count = [&](const std::string& s) {
    return model->codec().encode_source(s).size();
  };
  CHECK(r.err == "s2s: warning: line 2: " + std::to_string(count(line)) +
                     " tokens, more than the limit of 64 (the model's position table): split "
                     "into " +
                     std::to_string(pipeline::split_to_limit(line, 64, count, &test::english_sentences()).size()) +
                     " pieces, translated separately and joined\n");
}

TEST_CASE("score: hostile bytes, --skip-bad, long pairs", "[cli]") {
  const std::string good = "the license is free\tdie Lizenz ist frei\n";
  SECTION("bytes are cleaned as translate cleans them, with the same warnings") {
    const auto r = test::run_s2s(
        "score " + model_arg(),
        "\xEF\xBB\xBFHello\tworld\r\n" + std::string("nul\0byte\tba\xFFr\n", 14) + good);
    REQUIRE(r.exit_code == 0);
    const auto clean =
        test::run_s2s("score " + model_arg(), "Hello\tworld\nnul byte\tba\xEF\xBF\xBDr\n" + good);
    CHECK(r.out == clean.out);
    CHECK(r.err == "s2s: warning: line 2: invalid UTF-8 replaced with U+FFFD (1 sequence)\n");
  }
  SECTION("--skip-bad: an empty record for a line without a tab, in every format") {
    const std::string input = good + "no tab here\n" + good;
    const auto strict = test::run_s2s("score " + model_arg(), input);
    CHECK(strict.exit_code == 1);
    CHECK(strict.err == "s2s: error: standard input: line 2 has no tab between source and target\n");
    const std::string warning =
        "s2s: warning: standard input: line 2 has no tab between source and target; its record "
        "is left empty (--skip-bad)\n";
    const auto text = test::run_s2s("score --skip-bad " + model_arg(), input);
    REQUIRE(text.exit_code == 0);
    CHECK(text.err == warning);
    const auto out = split_lines(text.out);
    REQUIRE(out.size() == 3);
    CHECK(out[1].empty());
    CHECK(!out[0].empty());
    CHECK(out[2] == out[0]);
    const auto words = split_lines(test::run_s2s("score --skip-bad --word-scores " + model_arg(), input).out);
    REQUIRE(words.size() == 3);
    CHECK(words[1].empty());
    const auto jsonl =
        split_lines(test::run_s2s("score --skip-bad --format jsonl " + model_arg(), input).out);
    REQUIRE(jsonl.size() == 3);
    CHECK(jsonl[1] == "{\"skipped\":true}");
    CHECK(nlohmann::json::parse(jsonl[0]).contains("score"));
    // Summaries leave the skipped line out.
    const auto summary = test::run_s2s("score --skip-bad --summary ce-sum " + model_arg(), input);
    const auto two = test::run_s2s("score --summary ce-sum " + model_arg(), good + good);
    CHECK(summary.out == two.out);
    CHECK(test::run_s2s("score --skip-bad --quiet " + model_arg(), input).err.empty());
  }
  SECTION("--skip-bad in n-best rescoring: an empty line for a line that is not n-best") {
    const auto dir = test::temp_dir("nbest");
    const std::string src = (dir / "src.txt").string(), list = (dir / "list.nbest").string();
    std::ofstream(src) << "the license is free\n";
    std::ofstream(list) << "0 ||| die Lizenz ||| F0= -1 ||| -1\nnot an n-best line\n"
                           "0 ||| frei ||| F0= -2 ||| -2\n0 ||| two fields only\n";
    const std::string args = "score " + model_arg() + " --source '" + src + "' --n-best '" + list + "'";
    CHECK(test::run_s2s(args).exit_code == 1);
    const auto r = test::run_s2s(args + " --skip-bad");
    REQUIRE(r.exit_code == 0);
    const auto out = split_lines(r.out);
    REQUIRE(out.size() == 4);
    CHECK(out[0].rfind("0 ||| die Lizenz ||| F0= -1 Fscore= ", 0) == 0);
    CHECK(out[1].empty());
    CHECK(out[2].rfind("0 ||| frei ||| ", 0) == 0);
    CHECK(out[3].empty());
    CHECK(test::count_lines(r.err) == 2);
    std::filesystem::remove_all(dir);
  }
  SECTION("a side longer than --max-length is truncated with a warning, or fails") {
    const std::string big = long_text(100000, 3);
    const auto model = load();
    const pipeline::TokenCounter count = [&](const std::string& s) {
      return model->codec().encode_target(s).size();
    };
    const std::string input = good + "short\t" + big + "\n";
    const std::string head = "line 2: target " +
                             std::to_string(pipeline::count_in_chunks(big, 1000, count).tokens) +
                             " tokens, more than the limit of 1000 (--max-length)";
    const auto r = test::run_s2s("score " + model_arg(), input);
    REQUIRE(r.exit_code == 0);
    CHECK(test::count_lines(r.out) == 2);
    CHECK(r.err == "s2s: warning: " + head + ": truncated to fit (a pair cannot be split)\n");
    // The score is the truncated pair's.
    const std::string cut = pipeline::truncate_to_limit(big, 1000, count);
    const auto same = test::run_s2s("score " + model_arg(), good + "short\t" + cut + "\n");
    CHECK(same.out == r.out);
    CHECK(test::run_s2s("score --long-lines truncate " + model_arg(), input).out == r.out);
    const auto fail = test::run_s2s("score --long-lines fail " + model_arg(), input);
    CHECK(fail.exit_code == 1);
    CHECK(fail.err == "s2s: error: " + head + "; --long-lines truncate would score it truncated\n");
    const auto limited = test::run_s2s("score --max-length 5 " + model_arg(), "a b c d e f g h\tx\n");
    CHECK(limited.exit_code == 0);
    CHECK(limited.err.find("line 1: source ") != std::string::npos);
  }
}

}  // namespace s2s
