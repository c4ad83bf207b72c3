// A SentencePiece vocabulary with byte_fallback (tests/data/text/byte-fallback.spm and its
// vocab.yml, made by make_byte_fallback_spm.py next to them): characters it has no piece for are
// spelled as UTF-8 byte pieces, decoded back to the same characters, never <unk>; the protection
// keeps them without a warning, and `s2s info` says whether a model's vocabulary can spell
// everything.
#include <catch2/catch.hpp>

#include <algorithm>

#include "../app/cli_runner.h"
#include "s2s/text/codec.h"
#include "s2s/text/protect.h"
#include "test_utils.h"

using namespace s2s;
using namespace s2s::text;

namespace {

std::string path_of(const char* name) { return test::data_path(std::string("text/") + name); }

// The two ways a model folder names its vocabulary: the .spm itself (ids are SentencePiece's), or
// a vocab.yml beside source.spm/target.spm as the default model ships (ids looked up by piece).
TextCodec spm_codec() {
  return TextCodec::load(path_of("byte-fallback.spm"), path_of("byte-fallback.spm"), 0,
                         path_of("byte-fallback.spm"), path_of("byte-fallback.spm"), 0);
}
TextCodec yml_codec() {
  return TextCodec::load(path_of("byte-fallback.spm"), path_of("byte-fallback.vocab.yml"), 0,
                         path_of("byte-fallback.spm"), path_of("byte-fallback.vocab.yml"), 0);
}

// Characters the model learned no piece for: euro sign, backslash, at sign, an emoji (4 UTF-8
// bytes) and a CJK character (3 bytes).
const std::vector<std::string> kUnseen = {"\xe2\x82\xac", "\\", "@", "\xf0\x9f\x98\x80",
                                          "\xe4\xb8\xad"};

}  // namespace

TEST_CASE("byte fallback: unseen characters are byte pieces and come back as the same UTF-8",
          "[text][byte-fallback]") {
  const SentencePiece spm = SentencePiece::load(path_of("byte-fallback.spm"));
  // The euro sign is its three UTF-8 bytes.
  CHECK(spm.encode_pieces("\xe2\x82\xac") ==
        std::vector<std::string>{"\xe2\x96\x81", "<0xE2>", "<0x82>", "<0xAC>"});
  CHECK(spm.is_byte_piece(spm.id_of("<0xE2>")));
  CHECK_FALSE(spm.is_byte_piece(spm.id_of("e")));
  for (const TextCodec& codec : {spm_codec(), yml_codec()}) {
    const int unk = codec.source_vocab().unk_id();
    for (const std::string& c : kUnseen) {
      // A model that copies its input produces the source ids (the joint vocabulary) as target.
      const std::string line = "Pay 5" + c + " to a" + c + "b, " + c + c + ".";
      std::vector<std::int32_t> ids = codec.encode_source(line);
      INFO(line);
      CHECK(std::find(ids.begin(), ids.end(), unk) == ids.end());
      CHECK(codec.decode_target(ids) == line);
      CHECK(codec.decode_target(codec.encode_target(c)) == c);
    }
  }
}

TEST_CASE("byte fallback: byte-spelled characters are kept without a warning",
          "[text][byte-fallback]") {
  for (const TextCodec& codec : {spm_codec(), yml_codec()}) {
    CHECK(codec.source_spelling("e") == TextCodec::Spelling::pieces);
    CHECK(codec.source_spelling("a\xe2\x82\xac") == TextCodec::Spelling::with_bytes);
    for (const std::string& c : kUnseen) {
      const std::string line = "It costs 5" + c + " or " + c + " now.";
      const ProtectedText p = protect(line, {&codec});
      INFO(line);
      // Nothing is <unk>, so nothing to warn about; the tokens holding the characters the model
      // spells only in bytes are masked ("5€" and "€") and come back exactly.
      CHECK(p.unspellable.empty());
      REQUIRE(p.spans.size() == 2);
      CHECK(p.spans[0].text == "5" + c);
      CHECK(p.spans[1].text == c);
      CHECK(p.spans[0].kind == SpanKind::unspellable);
      const std::string model_output =
          "Es kostet " + p.spans[0].stand_in + " oder " + p.spans[1].stand_in + " jetzt.";
      CHECK(restore(p, model_output, {}).text == "Es kostet 5" + c + " oder " + c + " jetzt.");
    }
  }
  // Without byte pieces (the same sentences learned without byte_fallback) they are unspellable.
  const std::string spm = path_of("no-byte-fallback.spm"),
                    yml = path_of("no-byte-fallback.vocab.yml");
  const TextCodec old = TextCodec::load(spm, yml, 0, spm, yml, 0);
  CHECK(protect("It costs 5\xe2\x82\xac or \\ now.", {&old}).unspellable ==
        std::vector<std::string>{"\xe2\x82\xac", "\\"});
}

TEST_CASE("byte fallback: the coverage check counts byte pieces", "[text][byte-fallback]") {
  for (const TextCodec& codec : {spm_codec(), yml_codec()}) {
    const VocabCoverage c = codec.source_coverage();
    CHECK(c.byte_pieces == 256);
    CHECK(c.missing_byte_pieces == 0);
    CHECK(c.spells_everything());
  }
  // The byte-fallback model with a vocabulary that lacks its byte pieces spells nothing new.
  const TextCodec mismatched = TextCodec::load(
      path_of("byte-fallback.spm"), path_of("opus.vocab.yml"), 0, path_of("byte-fallback.spm"),
      path_of("opus.vocab.yml"), 0);
  CHECK(mismatched.source_coverage().byte_pieces == 256);
  CHECK(mismatched.source_coverage().missing_byte_pieces == 256);
  CHECK_FALSE(mismatched.source_coverage().spells_everything());
}

TEST_CASE("s2s info: says whether the vocabulary can spell every character",
          "[text][byte-fallback][cli]") {
  // A model whose SentencePiece has no byte pieces. (A model whose vocabulary lacks the byte
  // pieces of its SentencePiece model is refused by the loader; the coverage test above checks
  // that case.)
  const auto old = test::run_s2s("info -m '" + test::data_path("models/marian-align-layer1") + "'");
  INFO(old.err);
  REQUIRE(old.exit_code == 0);
  CHECK(old.out.find("  source byte fallback: no, characters without a piece become <unk>\n") !=
        std::string::npos);
}
