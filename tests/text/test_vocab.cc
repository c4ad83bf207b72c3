// Vocabulary loading: the four file kinds, special ids (with Marian's back-compat rule), non-dense
// ids, --dim-vocabs, duplicates and errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "s2s/core/error.h"
#include "s2s/text/vocab.h"
#include "test_utils.h"

using namespace s2s;
using namespace s2s::text;
using Catch::Matchers::Contains;

namespace {

std::string temp_file(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("s2s_vocab_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

std::string load_error(const std::string& path, dim_t dim = 0) {
  try {
    Vocabulary::load(path, dim);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("vocab: yml with non-dense ids, holes and a language label", "[text]") {
  const Vocabulary v = Vocabulary::load(test::data_path("vocab/tricky.vocab.yml"));
  CHECK(v.format() == VocabFormat::yaml);
  CHECK(v.eos_id() == 0);
  CHECK(v.unk_id() == 1);
  CHECK(v.size() == 1001);
  CHECK(v.piece(13) == "");  // unused id
  CHECK(v.piece(100) == "\xe2\x96\x81""de");
  CHECK(v.id_of("it's") == 3);
  CHECK(v.id_of("never seen") == v.unk_id());
  CHECK_FALSE(v.contains("never seen"));
  CHECK(v.language_tokens() == std::vector<std::string>{">>fra<<"});

  const Vocabulary limited = Vocabulary::load(test::data_path("vocab/tricky.vocab.yml"), 100);
  CHECK(limited.size() == 33);  // ids 100 and 1000 dropped
  CHECK(limited.id_of("\xe2\x96\x81""de") == limited.unk_id());
}

TEST_CASE("vocab: OPUS-MT yml, its JSON twin, and never assuming </s>=0", "[text]") {
  const Vocabulary yml = Vocabulary::load(test::data_path("text/opus.vocab.yml"));
  const Vocabulary json = Vocabulary::load(test::data_path("text/opus.vocab.json"));
  CHECK(json.format() == VocabFormat::json);
  CHECK(yml.eos_id() == 25);  // sorted-union numbering (recipe b): </s> is not 0
  CHECK(yml.unk_id() == 27);
  CHECK(yml.piece(7) == "");  // the fixture leaves id 7 unused
  REQUIRE(json.size() == yml.size());
  for (int id = 0; id < yml.size(); ++id) CHECK(json.piece(id) == yml.piece(id));
  CHECK(json.eos_id() == yml.eos_id());
  CHECK(json.unk_id() == yml.unk_id());
}

TEST_CASE("vocab: Marian's special-id rules", "[text]") {
  using F = VocabFormat;
  SECTION("Nematus names at ids 0 and 1") {
    const Vocabulary v = Vocabulary::from_entries({{"eos", 0}, {"UNK", 1}, {"a", 2}}, "n.yml", F::yaml);
    CHECK(v.eos_id() == 0);
    CHECK(v.unk_id() == 1);
  }
  SECTION("unused ids 0 and 1 win over </s> and <unk> in yml/json, not in text") {
    const VocabEntries e = {{"a", 2}, {"</s>", 3}, {"<unk>", 4}};
    const Vocabulary yml = Vocabulary::from_entries(e, "h.yml", F::yaml);
    CHECK(yml.eos_id() == 0);
    CHECK(yml.unk_id() == 1);
    const Vocabulary text = Vocabulary::from_entries(e, "h.txt", F::text);
    CHECK(text.eos_id() == 3);
    CHECK(text.unk_id() == 4);
  }
  SECTION("ids 0 and 1 taken by ordinary pieces: look the names up") {
    const Vocabulary v =
        Vocabulary::from_entries({{"a", 0}, {"b", 1}, {"</s>", 7}, {"<unk>", 5}}, "o.yml", F::yaml);
    CHECK(v.eos_id() == 7);
    CHECK(v.unk_id() == 5);
  }
  SECTION("missing </s> or <unk>") {
    CHECK_THROWS_WITH(Vocabulary::from_entries({{"a", 0}, {"b", 1}}, "m.yml", F::yaml),
                      Contains("m.yml: no entry for </s>"));
    CHECK_THROWS_WITH(Vocabulary::from_entries({{"</s>", 0}, {"b", 1}}, "m.yml", F::yaml),
                      Contains("m.yml: no entry for <unk>"));
  }
  SECTION("duplicates behave like Marian's std::map") {
    const Vocabulary v = Vocabulary::from_entries(
        {{"</s>", 0}, {"<unk>", 1}, {"a", 5}, {"a", 6}, {"c", 5}, {"b", 5}}, "d.yml", F::yaml);
    CHECK(v.id_of("a") == 5);  // the first id of a repeated piece
    CHECK(v.size() == 6);      // a: 6 was ignored
    CHECK(v.piece(5) == "c");  // the lexicographically last piece of a shared id
    CHECK(v.id_of("b") == 5);
  }
}

TEST_CASE("vocab: SentencePiece vocabularies use the model's ids", "[text]") {
  const Vocabulary marian = Vocabulary::load(test::data_path("text/marian.spm"), 10);
  CHECK(marian.format() == VocabFormat::spm);
  CHECK(marian.size() == 400);  // dim limit ignored, as in Marian
  CHECK(marian.eos_id() == 0);
  CHECK(marian.unk_id() == 1);
  CHECK(marian.piece(0) == "</s>");
  const Vocabulary defaults = Vocabulary::load(test::data_path("text/default.spm"));
  CHECK(defaults.eos_id() == 2);
  CHECK(defaults.unk_id() == 0);
  CHECK(defaults.id_of("<s>") == 1);
}

TEST_CASE("vocab: plain text", "[text]") {
  const Vocabulary v = Vocabulary::load(test::data_path("text/default.vocab.txt"));
  CHECK(v.format() == VocabFormat::text);
  CHECK(v.size() == 300);
  CHECK(v.unk_id() == 0);  // a cut -f1 of a default SentencePiece .vocab
  CHECK(v.eos_id() == 2);

  const std::string crlf = temp_file("crlf.txt", "<unk>\r\n</s>\r\nab\r\n");
  const Vocabulary w = Vocabulary::load(crlf);
  CHECK(w.id_of("ab") == 2);
  CHECK(w.eos_id() == 1);
  std::filesystem::remove(crlf);

  const std::string empty_line = temp_file("empty_line.txt", "</s>\n<unk>\n\nb\n");
  CHECK_THAT(load_error(empty_line), Contains(empty_line + ":3: empty line"));
  const std::string duplicate = temp_file("dup.txt", "</s>\n<unk>\nb\nb\n");
  CHECK_THAT(load_error(duplicate), Contains(duplicate + ":4: duplicate piece 'b' (first on line 3)"));
  std::filesystem::remove(empty_line);
  std::filesystem::remove(duplicate);
}

TEST_CASE("vocab: broken files", "[text]") {
  for (const char* name : {"missing.yml", "missing.json", "missing.spm", "missing.txt"}) {
    const std::string path = "/nonexistent/" + std::string(name);
    CHECK_THAT(load_error(path), Contains(path + ": "));
  }
  struct Case {
    const char* name;
    const char* content;
    const char* message;
  };
  const Case cases[] = {
      {"empty.yml", "", "empty vocabulary"},
      {"comments.yml", "# nothing\n---\n", "empty vocabulary"},
      {"empty.txt", "", "empty vocabulary"},
      {"bad.yml", "</s>: 0\n<unk>: one\n", ":2: expected a non-negative integer id"},
      {"huge.yml", "</s>: 0\n<unk>: 1\na: 2000000000\n", "out of range"},
      {"bad.json", "{\"</s>\": 0, ", "not valid JSON"},
      {"list.json", "[1, 2]", "entry 0 is 1, expected a token string"},
      {"scalar.json", "42", "expected a JSON object"},
      {"neg.json", "{\"</s>\": 0, \"<unk>\": -1}", "the id of '<unk>' is -1"},
      {"float.json", "{\"</s>\": 0, \"<unk>\": 1.5}", "the id of '<unk>' is 1.5"},
      {"garbage.spm", "\x01\x02garbage\xff", "not a valid SentencePiece model"},
      {"yaml.spm", "</s>: 0\n", "not a valid SentencePiece model"},
  };
  for (const Case& c : cases) {
    const std::string path = temp_file(c.name, c.content);
    INFO(c.name);
    CHECK_THAT(load_error(path), Contains(path + ":") && Contains(c.message));
    std::filesystem::remove(path);
  }
}
