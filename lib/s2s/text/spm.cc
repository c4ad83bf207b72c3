// SentencePiece wrapper: status codes become ModelError (loading), InputError (encoding user
// text) or InternalError (decoding ids the engine produced).
#include "s2s/text/spm.h"

#include <sentencepiece_processor.h>

#include <filesystem>

#include "s2s/core/error.h"

namespace s2s::text {

SentencePiece::SentencePiece(SentencePiece&&) noexcept = default;
SentencePiece& SentencePiece::operator=(SentencePiece&&) noexcept = default;
SentencePiece::~SentencePiece() = default;

SentencePiece SentencePiece::load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ModelError(path + ": SentencePiece model not found");
  SentencePiece spm;
  spm.path_ = path;
  spm.processor_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = spm.processor_->Load(path);
  if (!status.ok())
    throw ModelError(path + ": not a valid SentencePiece model (" + status.ToString() + ")");
  if (spm.processor_->GetPieceSize() <= 0)
    throw ModelError(path + ": SentencePiece model has no pieces");
  return spm;
}

std::vector<std::string> SentencePiece::encode_pieces(const std::string& line) const {
  std::vector<std::string> pieces;
  const auto status = processor_->Encode(line, &pieces);
  if (!status.ok())
    throw InputError(path_ + ": cannot encode the input line (" + status.ToString() + ")");
  return pieces;
}

std::vector<std::int32_t> SentencePiece::encode_ids(const std::string& line) const {
  std::vector<int> ids;
  const auto status = processor_->Encode(line, &ids);
  if (!status.ok())
    throw InputError(path_ + ": cannot encode the input line (" + status.ToString() + ")");
  return std::vector<std::int32_t>(ids.begin(), ids.end());
}

std::string SentencePiece::decode_pieces(const std::vector<std::string>& pieces) const {
  std::string text;
  const auto status = processor_->Decode(pieces, &text);
  if (!status.ok())
    throw InternalError(path_ + ": cannot decode pieces (" + status.ToString() + ")");
  return text;
}

std::string SentencePiece::decode_ids(const std::vector<std::int32_t>& ids) const {
  std::string text;
  const auto status = processor_->Decode(std::vector<int>(ids.begin(), ids.end()), &text);
  if (!status.ok())
    throw InternalError(path_ + ": cannot decode ids (" + status.ToString() + ")");
  return text;
}

int SentencePiece::piece_count() const { return processor_->GetPieceSize(); }

const std::string& SentencePiece::piece(int id) const {
  S2S_CHECK(id >= 0 && id < piece_count(), "piece id ", id, " out of range [0, ", piece_count(),
            ") for ", path_);
  return processor_->IdToPiece(id);
}

int SentencePiece::id_of(const std::string& piece) const { return processor_->PieceToId(piece); }

bool SentencePiece::is_text_piece(int id) const {
  return !processor_->IsControl(id) && !processor_->IsUnknown(id) && !processor_->IsUnused(id);
}

bool SentencePiece::is_byte_piece(int id) const { return processor_->IsByte(id); }

int SentencePiece::eos_id() const { return processor_->eos_id(); }
int SentencePiece::unk_id() const { return processor_->unk_id(); }

}  // namespace s2s::text
