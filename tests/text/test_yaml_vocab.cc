// The hand-written vocab.yml parser against yaml-cpp (what Marian uses) on committed fixtures and
// on a generated 30k-entry file, plus its error messages.
#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include "s2s/core/error.h"
#include "s2s/text/yaml_vocab.h"
#include "test_utils.h"

using namespace s2s;
using namespace s2s::text;
using Catch::Matchers::Contains;

namespace {

// What Marian does: YAML::Load, then iterate the map with as<std::string>() / as<id>().
VocabEntries yaml_cpp_entries(const std::string& path) {
  VocabEntries out;
  for (const auto& pair : YAML::LoadFile(path))
    out.emplace_back(pair.first.as<std::string>(), pair.second.as<int>());
  return out;
}

std::string show(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

void check_same(const VocabEntries& ours, const VocabEntries& reference) {
  REQUIRE(ours.size() == reference.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    INFO("entry " << i << ": ours '" << show(ours[i].first) << "' " << ours[i].second
                  << ", reference '" << show(reference[i].first) << "' " << reference[i].second);
    CHECK(ours[i] == reference[i]);
  }
}

std::string parse_error(const std::string& text) {
  try {
    parse_yaml_vocab(text, "v.yml");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

// A vocabulary of `n` awkward random pieces written by yaml-cpp's emitter (as marian-vocab does).
std::string write_generated_vocab(int n, const std::string& path) {
  const std::vector<std::string> alphabet = {
      "a", "b", "e", "s", "t", "\xe2\x96\x81", ":", " ", "#", "\"", "'", "\\", "-", "?", ">",
      "<", "{", "[", ",", "&", "*", "!", "|", "%", "@", "`", "\x01", "\t", "\xc3\xa9",
      "\xf0\x9f\x98\x80", "0", "1", "~", "/"};
  std::mt19937 gen(42);
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "</s>" << YAML::Value << 0 << YAML::Key << "<unk>" << YAML::Value << 1;
  std::set<std::string> seen = {"</s>", "<unk>"};
  for (int id = 2; id < n;) {
    std::string piece;
    const int len = id % 997 == 0 ? 1100 : 1 + static_cast<int>(gen() % 8);  // a few long keys
    for (int k = 0; k < len; ++k) piece += alphabet[gen() % alphabet.size()];
    if (!seen.insert(piece).second) continue;
    out << YAML::Key << piece << YAML::Value << id++;
  }
  out << YAML::EndMap;
  std::ofstream(path) << out.c_str() << "\n";
  return path;
}

}  // namespace

TEST_CASE("yaml vocab: tricky hand-written fixture matches yaml-cpp", "[text]") {
  const std::string path = test::data_path("vocab/tricky.vocab.yml");
  const VocabEntries ours = load_yaml_vocab(path);
  check_same(ours, yaml_cpp_entries(path));
  // Independent of yaml-cpp: the strings the YAML spec gives.
  std::map<int, std::string> by_id;
  for (const auto& [piece, id] : ours) by_id[id] = piece;
  CHECK(by_id[0] == "</s>");
  CHECK(by_id[2] == "\"");
  CHECK(by_id[3] == "it's");
  CHECK(by_id[4] == "a long key written in the complex form, as yaml-cpp and PyYAML do above 128 characters");
  CHECK(by_id[5] == ">>fra<<");
  CHECK(by_id[6] == "key: with a colon");
  CHECK(by_id[7] == "yes");
  CHECK(by_id[9] == "~");
  CHECK(by_id[11] == "\x01");
  CHECK(by_id[100] == "\xe2\x96\x81""de");
  CHECK(by_id[15] == "a#b");
  CHECK(by_id[17] == "tab\there");
  CHECK(by_id[18] == "\xc3\xa9t\xc3\xa9 \xc3\xa9");  // \x escapes are code points, not bytes
  CHECK(by_id[19] == "\xf0\x9f\x98\x80");
  CHECK(by_id[21] == " lead");
  CHECK(by_id[22] == "");
  CHECK(by_id[23] == "PyYAML splits long double-quoted keys with escaped line breaks: aaaa bbbb");
  CHECK(by_id[24] == "\xe2\x96\x81plain complex key");
  CHECK(by_id[25] == "folded single");
  CHECK(by_id[26] == std::string(1, '\0'));
  CHECK(by_id[29] == "spaced");
  CHECK(by_id[30] == "http://example.com");
  CHECK(by_id[31] == "x: y");
}

TEST_CASE("yaml vocab: PyYAML-written keys match PyYAML and yaml-cpp", "[text]") {
  const std::string path = test::data_path("text/pyyaml.vocab.yml");
  const VocabEntries ours = load_yaml_vocab(path);
  check_same(ours, yaml_cpp_entries(path));
  VocabEntries expected;  // the keys PyYAML was given, as JSON
  for (const auto& item : YAML::LoadFile(test::data_path("text/pyyaml.expected.json")))
    expected.emplace_back(item[0].as<std::string>(), item[1].as<int>());
  // PyYAML (YAML 1.1) treats U+2028, U+2029 and U+0085 as line breaks and writes them raw in a
  // single-quoted "? " key followed by two spaces of indentation; yaml-cpp (YAML 1.2) keeps the
  // spaces. Marian reads them as yaml-cpp does, so s2s does too.
  for (int id : {12, 13, 14}) expected[id].first += "  ";
  check_same(ours, expected);
}

TEST_CASE("yaml vocab: OPUS-MT style vocabulary matches yaml-cpp", "[text]") {
  const std::string path = test::data_path("text/opus.vocab.yml");
  check_same(load_yaml_vocab(path), yaml_cpp_entries(path));
}

TEST_CASE("yaml vocab: 30k generated entries match yaml-cpp", "[text]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("s2s_vocab_" + std::to_string(getpid()) + ".yml")).string();
  write_generated_vocab(30000, path);
  const auto t0 = std::chrono::steady_clock::now();
  const VocabEntries ours = load_yaml_vocab(path);
  const auto t1 = std::chrono::steady_clock::now();
  const VocabEntries reference = yaml_cpp_entries(path);
  const auto t2 = std::chrono::steady_clock::now();
  std::filesystem::remove(path);
  check_same(ours, reference);
  using ms = std::chrono::duration<double, std::milli>;
  if (std::getenv("S2S_TEST_TIMING"))
    WARN("30k-entry vocab.yml: s2s " << ms(t1 - t0).count() << " ms, yaml-cpp "
                                     << ms(t2 - t1).count() << " ms");
}

TEST_CASE("yaml vocab: small forms and line endings", "[text]") {
  CHECK(parse_yaml_vocab("\xEF\xBB\xBF</s>: 0\r\n<unk>: 1\r\n", "v.yml") ==
        VocabEntries{{"</s>", 0}, {"<unk>", 1}});
  CHECK(parse_yaml_vocab("\"a\":5\n'b' : 6\n", "v.yml") == VocabEntries{{"a", 5}, {"b", 6}});
  CHECK(parse_yaml_vocab("a: b: 3\n", "v.yml") == VocabEntries{{"a: b", 3}});  // the last ": "
  CHECK(parse_yaml_vocab("x:\t4", "v.yml") == VocabEntries{{"x", 4}});
  // yaml-cpp reads plain null keys as "null"; so does s2s (Marian parity).
  const std::string nulls = "~: 1\nnull: 2\n? NULL\n: 3\n";
  CHECK(parse_yaml_vocab(nulls, "v.yml") == VocabEntries{{"null", 1}, {"null", 2}, {"null", 3}});
  VocabEntries reference;
  for (const auto& pair : YAML::Load(nulls))
    reference.emplace_back(pair.first.as<std::string>(), pair.second.as<int>());
  CHECK(reference == VocabEntries{{"null", 1}, {"null", 2}, {"null", 3}});
  // yaml-cpp's \N and \_ are raw bytes, unlike \L and \P (see yaml_vocab.h).
  CHECK(parse_yaml_vocab("\"\\N\\_\\L\": 0", "v.yml") ==
        VocabEntries{{"\x85\xa0\xe2\x80\xa8", 0}});
  // A complex key may start on the next, more indented line.
  CHECK(parse_yaml_vocab("?\n  abc\n: 3\n", "v.yml") == VocabEntries{{"abc", 3}});
}

TEST_CASE("yaml vocab: errors name the file and line", "[text]") {
  CHECK_THAT(parse_error("a: 0\nb: -1\n"), Contains("v.yml:2: expected a non-negative integer id"));
  CHECK_THAT(parse_error("a: 0\nb: x\n"), Contains("v.yml:2:"));
  CHECK_THAT(parse_error("a: 0\n\n\"abc: 1\n"), Contains("v.yml:3: line break inside a double-quoted"));
  CHECK_THAT(parse_error("a: 0\n? \"abc\n: 1\n"), Contains("v.yml:2: unterminated double-quoted key"));
  CHECK_THAT(parse_error("'abc: 1"), Contains("v.yml:1: unterminated single-quoted key"));
  CHECK_THAT(parse_error("\"\\q\": 1"), Contains("v.yml:1: unknown escape '\\q'"));
  CHECK_THAT(parse_error("\"\\x4\": 1"), Contains("v.yml:1: escape needs 2 hex digits"));
  CHECK_THAT(parse_error("\"\\ud800\": 1"), Contains("not a valid Unicode code point"));
  CHECK_THAT(parse_error("a: 99999999999\n"), Contains("v.yml:1: id is too large"));
  CHECK_THAT(parse_error("a: 1 2\n"), Contains("v.yml:1: unexpected text"));
  CHECK_THAT(parse_error("a\n"), Contains("v.yml:1: expected 'piece: id'"));
  CHECK_THAT(parse_error("{a: 1, b: 2}\n"), Contains("v.yml:1: unsupported YAML construct"));
  CHECK_THAT(parse_error("- a\n"), Contains("v.yml:1: unsupported YAML construct"));
  CHECK_THAT(parse_error("x: 1\n: 2\n"), Contains("v.yml:2: ': id' line without a '? key'"));
  CHECK_THAT(parse_error("? \n: 3\n"), Contains("v.yml:2: empty complex key"));
  CHECK_THAT(parse_error("? abc\n"), Contains("v.yml:2: expected ': id' after the complex key 'abc'"));
  CHECK_THAT(parse_error("? abc\nd: 1\n"), Contains("expected ': id' after the complex key"));
  CHECK_THROWS_WITH(load_yaml_vocab("/nonexistent/v.yml"),
                    Contains("/nonexistent/v.yml: cannot open"));
}
