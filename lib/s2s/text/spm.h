// A SentencePiece model (`source.spm`, `target.spm`, Marian `*.spm` vocabularies): splits text into
// pieces and joins pieces back into text. Thin wrapper over sentencepiece::SentencePieceProcessor
// that turns its status codes into s2s errors; encoding and decoding are thread-safe.
//
// Usage:
//   SentencePiece spm = SentencePiece::load("source.spm");
//   std::vector<std::string> pieces = spm.encode_pieces("Hello world");  // {"▁Hello", "▁world"}
//   std::string text = spm.decode_pieces(pieces);                        // "Hello world"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace s2s::text {

class SentencePiece {
 public:
  // ModelError naming the file if it is missing or not a SentencePiece model.
  static SentencePiece load(const std::string& path);

  SentencePiece(SentencePiece&&) noexcept;
  SentencePiece& operator=(SentencePiece&&) noexcept;
  ~SentencePiece();

  const std::string& path() const { return path_; }

  // InputError if the model cannot encode the line.
  std::vector<std::string> encode_pieces(const std::string& line) const;
  std::vector<std::int32_t> encode_ids(const std::string& line) const;
  // Pieces the model does not know are copied as they are; <unk> becomes " ⁇ ".
  std::string decode_pieces(const std::vector<std::string>& pieces) const;
  std::string decode_ids(const std::vector<std::int32_t>& ids) const;

  int piece_count() const;
  const std::string& piece(int id) const;  // id in [0, piece_count())
  int id_of(const std::string& piece) const;  // unk_id() for unknown pieces
  // False for control (<s>, </s>), unknown and unused pieces, which encoding never produces.
  bool is_text_piece(int id) const;
  // A byte piece (<0xE2>) of a byte_fallback model: characters without a piece of their own
  // are spelled as their UTF-8 bytes instead of <unk>, and decoding joins the bytes again.
  bool is_byte_piece(int id) const;
  int eos_id() const;  // -1 when the model has none
  int unk_id() const;

 private:
  SentencePiece() = default;
  std::string path_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
};

}  // namespace s2s::text
