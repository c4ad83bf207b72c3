// SentencePiece wrapper and TextCodec on the committed tiny models (tools/fixtures/
// make_text_fixtures.py): round trips, vocab ids that differ from SentencePiece ids, <unk>, </s>,
// coverage, and errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "s2s/core/error.h"
#include "s2s/text/codec.h"
#include "test_utils.h"

using namespace s2s;
using namespace s2s::text;
using Catch::Matchers::Contains;

namespace {

const std::string kSpace = "\xe2\x96\x81";

const std::vector<std::string> kLines = {
    "Everyone is permitted to copy and distribute verbatim copies of this license.",
    "This License is free software.",
    "Hello world, 2007.",
    "",
};

std::string path_of(const char* name) { return test::data_path(std::string("text/") + name); }

}  // namespace

TEST_CASE("spm: load, pieces, ids", "[text]") {
  const SentencePiece spm = SentencePiece::load(path_of("marian.spm"));
  CHECK(spm.piece_count() == 400);
  CHECK(spm.eos_id() == 0);
  CHECK(spm.unk_id() == 1);
  CHECK(spm.piece(0) == "</s>");
  CHECK_FALSE(spm.is_text_piece(0));
  CHECK_FALSE(spm.is_text_piece(1));
  CHECK(spm.is_text_piece(spm.id_of(kSpace + "the")));
  CHECK(spm.id_of("no such piece") == spm.unk_id());
  for (const std::string& line : kLines) {
    INFO(line);
    const std::vector<std::string> pieces = spm.encode_pieces(line);
    CHECK(spm.decode_pieces(pieces) == line);
    const std::vector<std::int32_t> ids = spm.encode_ids(line);
    REQUIRE(ids.size() == pieces.size());
    for (std::size_t i = 0; i < ids.size(); ++i) CHECK(spm.piece(ids[i]) == pieces[i]);
    CHECK(spm.decode_ids(ids) == line);
  }
  const SentencePiece defaults = SentencePiece::load(path_of("default.spm"));
  CHECK(defaults.eos_id() == 2);
  CHECK(defaults.unk_id() == 0);
}

TEST_CASE("spm: errors name the file", "[text]") {
  CHECK_THROWS_WITH(SentencePiece::load("/nonexistent/x.spm"),
                    Contains("/nonexistent/x.spm: SentencePiece model not found"));
  CHECK_THROWS_AS(SentencePiece::load(path_of("opus.vocab.yml")), ModelError);
  CHECK_THROWS_WITH(SentencePiece::load(path_of("opus.vocab.yml")),
                    Contains(path_of("opus.vocab.yml") + ": not a valid SentencePiece model"));
  const auto empty = std::filesystem::temp_directory_path() /
                     ("s2s_empty_" + std::to_string(getpid()) + ".spm");
  std::ofstream(empty).close();
  CHECK_THROWS_WITH(SentencePiece::load(empty.string()), Contains(empty.string() + ": "));
  std::filesystem::remove(empty);
}

TEST_CASE("codec: .spm vocabularies use SentencePiece ids", "[text]") {
  const TextCodec codec = TextCodec::load("", path_of("marian.spm"), 0, "", path_of("marian.spm"), 0);
  const SentencePiece spm = SentencePiece::load(path_of("marian.spm"));
  for (const std::string& line : kLines) {
    INFO(line);
    std::vector<std::int32_t> expected = spm.encode_ids(line);
    expected.push_back(0);  // </s>
    const std::vector<std::int32_t> ids = codec.encode_source(line);
    CHECK(ids == expected);
    CHECK(codec.decode_target(ids) == line);
    std::vector<std::int32_t> more = ids;  // anything after </s> is ignored
    more.insert(more.end(), {5, 6, 7});
    CHECK(codec.decode_target(more) == line);
  }
  CHECK(codec.encode_source("") == std::vector<std::int32_t>{0});
  // A character the model never saw is <unk> (id 1 here), and decodes to " ⁇ ".
  const std::vector<std::int32_t> unk = codec.encode_source("free!");
  CHECK(std::count(unk.begin(), unk.end(), 1) == 1);
  CHECK(codec.decode_target(unk) == "free \xe2\x81\x87 ");
  CHECK(codec.source_coverage().missing == 0);
  CHECK(codec.source_coverage().spm_pieces == 398);  // all but </s> and <unk>
}

TEST_CASE("codec: yml vocabulary with ids unlike the SentencePiece ids", "[text]") {
  const std::string yml = path_of("opus.vocab.yml");
  const TextCodec codec =
      TextCodec::load(path_of("marian.spm"), yml, 0, path_of("default.spm"), yml, 0);
  const Vocabulary& vocab = codec.source_vocab();
  const SentencePiece src = SentencePiece::load(path_of("marian.spm"));
  CHECK(codec.target_vocab().eos_id() == 25);

  for (const std::string& line : kLines) {
    INFO(line);
    const std::vector<std::int32_t> ids = codec.encode_source(line);
    const std::vector<std::string> pieces = src.encode_pieces(line);
    REQUIRE(ids.size() == pieces.size() + 1);
    for (std::size_t i = 0; i < pieces.size(); ++i) CHECK(ids[i] == vocab.id_of(pieces[i]));
    CHECK(ids.back() == vocab.eos_id());
    if (!pieces.empty()) CHECK(ids != src.encode_ids(line));  // a different id space
    const std::vector<std::int32_t> target = codec.encode_target(line);
    CHECK(target.back() == 25);
    CHECK(codec.decode_target(target) == line);
  }

  // Pieces with an "x" are not in the yml: they become <unk>, which decodes to " ⁇ ".
  const std::vector<std::int32_t> ids = codec.encode_source("the extent of this");
  CHECK(std::count(ids.begin(), ids.end(), vocab.unk_id()) == 1);
  CHECK_THAT(codec.decode_target(codec.encode_target("an example")), Contains("\xe2\x81\x87"));

  const VocabCoverage source = codec.source_coverage();
  CHECK(source.spm_pieces == 398);
  CHECK(source.missing == 8);  // the 8 pieces of marian.spm that contain "x"
  CHECK(std::find(source.examples.begin(), source.examples.end(), kSpace + "extent") !=
        source.examples.end());
  CHECK(codec.target_coverage().missing == 3);
}

TEST_CASE("codec: decoding pieces the target SentencePiece model lacks", "[text]") {
  const std::string yml = path_of("opus.vocab.yml");
  const TextCodec codec =
      TextCodec::load(path_of("marian.spm"), yml, 0, path_of("default.spm"), yml, 0);
  const Vocabulary& v = codec.target_vocab();
  const std::int32_t convey = v.id_of(kSpace + "Convey");  // only in marian.spm
  const std::int32_t license = v.id_of(kSpace + "License");
  REQUIRE(convey != v.unk_id());
  CHECK(codec.decode_target({convey, license}) == "Convey License");
  CHECK(codec.decode_target({license, convey, v.eos_id(), license}) == "License Convey");
  CHECK(codec.target_pieces({license, 7, convey}) ==
        std::vector<std::string>{kSpace + "License", kSpace + "Convey"});  // 7 is unused
  CHECK_THROWS_WITH(codec.decode_target({license, 100000}),
                    Contains(yml + ": the model produced id 100000"));
}

TEST_CASE("codec: pre-tokenized text without SentencePiece", "[text]") {
  const std::string yml = path_of("opus.vocab.yml");
  const TextCodec codec = TextCodec::load("", yml, 0, "", yml, 0);
  const Vocabulary& v = codec.source_vocab();
  const std::vector<std::int32_t> ids = codec.encode_source(kSpace + "the  " + kSpace + "copy zzz");
  CHECK(ids == std::vector<std::int32_t>{v.id_of(kSpace + "the"), v.id_of(kSpace + "copy"),
                                         v.unk_id(), v.eos_id()});
  CHECK(codec.decode_target(ids) == kSpace + "the " + kSpace + "copy <unk>");
  CHECK(codec.source_coverage().spm_pieces == 0);
}

TEST_CASE("codec: errors", "[text]") {
  const std::string yml = path_of("opus.vocab.yml");
  CHECK_THROWS_WITH(TextCodec::load("/nonexistent/source.spm", yml, 0, "", yml, 0),
                    Contains("/nonexistent/source.spm: SentencePiece model not found"));
  CHECK_THROWS_WITH(TextCodec::load("", "/nonexistent/vocab.yml", 0, "", yml, 0),
                    Contains("/nonexistent/vocab.yml: cannot open"));
  // A .spm vocabulary split by a different SentencePiece model would mix two id spaces.
  CHECK_THROWS_WITH(TextCodec::load(path_of("default.spm"), path_of("marian.spm"), 0, "", yml, 0),
                    Contains(path_of("marian.spm") + ": this SentencePiece vocabulary differs"));
}
