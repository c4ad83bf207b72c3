// Text <-> ids for one model: the first and last step of translation (docs/architecture.md,
// "The path of a line").
//
// Encoding (Marian corpus_base.cpp + OPUS-MT preprocessing; docs/models.md, "The source side"):
//   line -> SentencePiece pieces -> vocabulary ids (unknown piece -> unk id) -> </s> appended.
//   With a .spm vocabulary the ids are the SentencePiece model's own (its Encode), as in Marian.
//   Without a SentencePiece model (empty spm path) the line is pre-tokenized: split on spaces,
//   empty tokens dropped (Marian DefaultVocab::encode).
// Decoding: ids up to the first </s> -> pieces -> SentencePiece DecodePieces (.spm vocabularies:
//   DecodeIds, as Marian). Pieces the target SentencePiece model does not know (possible with a
//   joint vocabulary) get '▁' -> ' ', as OPUS-MT's postprocess does, instead of being copied raw.
//   Without a SentencePiece model the pieces are joined with spaces. Unused ids decode to nothing;
//   ids outside the vocabulary are a ModelError (the model and vocabulary disagree).
//
// Usage:
//   TextCodec codec = TextCodec::load("source.spm", "vocab.yml", 0, "target.spm", "vocab.yml", 0);
//   std::vector<std::int32_t> src = codec.encode_source("Hello world");   // ends with eos
//   std::string text = codec.decode_target(output_ids);
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "s2s/text/languages.h"
#include "s2s/text/spm.h"
#include "s2s/text/vocab.h"

namespace s2s::text {

// How many pieces a SentencePiece model can produce that its vocabulary has no id for (they all
// become <unk>); the "model doctor" check for a mismatched vocabulary.
struct VocabCoverage {
  int spm_pieces = 0;                 // pieces encoding can produce (not control/unknown/unused)
  int missing = 0;                    // of those, pieces absent from the vocabulary
  std::vector<std::string> examples;  // the first few missing pieces, in SentencePiece id order
  // byte_fallback: with all 256 byte pieces in the vocabulary no character is ever <unk>.
  int byte_pieces = 0;                // of spm_pieces, byte pieces (<0x00>..<0xFF>)
  int missing_byte_pieces = 0;        // of those, absent from the vocabulary
  bool spells_everything() const { return byte_pieces == 256 && missing_byte_pieces == 0; }
};

VocabCoverage vocab_coverage(const SentencePiece& spm, const Vocabulary& vocab,
                             int max_examples = 10);

class TextCodec {
 public:
  // A side's SentencePiece model may be absent (pre-tokenized text). With a .spm vocabulary the
  // model must have the same pieces as the vocabulary (ModelError otherwise).
  TextCodec(std::optional<SentencePiece> source_spm, Vocabulary source_vocab,
            std::optional<SentencePiece> target_spm, Vocabulary target_vocab);

  // Loads both sides; an empty spm path means no SentencePiece model, and a .spm vocabulary is
  // its own SentencePiece model. dim limits as in Vocabulary::load (0: no limit).
  static TextCodec load(const std::string& source_spm, const std::string& source_vocab,
                        dim_t source_dim, const std::string& target_spm,
                        const std::string& target_vocab, dim_t target_dim);

  std::vector<std::int32_t> encode_source(const std::string& line) const;
  // How the source side spells `text`: all with pieces of the vocabulary; some of it only with
  // byte pieces (byte_fallback: a character too rare in the training text to get a piece of its
  // own, so the model has hardly seen it); or some of it not at all (<unk>).
  enum class Spelling { pieces, with_bytes, unknown };
  Spelling source_spelling(const std::string& text) const;
  // Marian and HF append </s> to the source; OpenNMT-py models (via CTranslate2) do not. Set by
  // the loader before the codec is shared.
  void set_add_source_eos(bool add) { source_.append_eos = add; }
  // NLLB-200 / M2M-100 (text/languages.h): a line whose first word is one of these tokens gets it
  // as its source-language token, placed as the family places it ([lang] text </s>, or text </s>
  // [lang] for NLLB's legacy_behaviour); translations show neither them nor <s> <pad> <unk>
  // <mask> (HF decodes with skip_special_tokens). Set by the loader before the codec is shared.
  void set_languages(LanguageTokens languages);
  const LanguageTokens& languages() const { return languages_; }
  // For scoring: the target sentence as the decoder must produce it, </s> included.
  std::vector<std::int32_t> encode_target(const std::string& line) const;
  std::string decode_target(const std::vector<std::int32_t>& ids) const;
  // The target pieces of ids up to the first </s> (unused ids skipped), e.g. for n-best output.
  std::vector<std::string> target_pieces(const std::vector<std::int32_t>& ids) const;

  const Vocabulary& source_vocab() const { return source_.vocab; }
  const Vocabulary& target_vocab() const { return target_.vocab; }
  VocabCoverage source_coverage() const;
  VocabCoverage target_coverage() const;

 private:
  struct Side {
    std::optional<SentencePiece> spm;
    Vocabulary vocab;
    bool spm_ids = false;  // .spm vocabulary: ids are the SentencePiece model's own
    bool append_eos = true;
  };
  static Side make_side(std::optional<SentencePiece> spm, Vocabulary vocab);
  static std::vector<std::int32_t> encode(const Side& side, const std::string& line);
  bool is_hidden_target(std::int32_t id) const {
    return std::binary_search(hidden_target_ids_.begin(), hidden_target_ids_.end(), id);
  }
  // encode_source for a line that starts with a language token (languages_).
  std::vector<std::int32_t> encode_with_language(const std::string& line) const;

  Side source_;
  Side target_;
  LanguageTokens languages_;
  // Target ids decoded to nothing (set_languages): language tokens and the specials. Sorted.
  std::vector<std::int32_t> hidden_target_ids_;
};

}  // namespace s2s::text
