// Vocabulary loading for the four file kinds, and Marian's rules for duplicates, --dim-vocabs and
// the special ids.
#include "s2s/text/vocab.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "s2s/core/error.h"
#include "s2s/text/spm.h"

namespace s2s::text {
namespace {

// Ids are used as indices into a dense table; an id this large means a corrupt file, not a real
// vocabulary (the largest multilingual vocabularies have a few hundred thousand pieces).
constexpr int kMaxId = 1 << 24;
// Ids may leave holes, but the table (32 bytes per id) must stay in proportion to the file: at most
// as many holes as listed pieces, plus 2^16. A 12-byte "x: 16777215" would otherwise take 512 MB
// (found by tools/fuzz); real vocabularies are dense or nearly so.
constexpr std::size_t kMaxUnusedIds = 1 << 16;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open the vocabulary file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ModelError(path + ": cannot read the vocabulary file");
  return buffer.str();
}

VocabEntries parse_json(const std::string& text, const std::string& path) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(path + ": not valid JSON (" + e.what() + ")");
  }
  VocabEntries entries;
  if (json.is_array()) {
    // CTranslate2 writes its vocabularies as a list of tokens: the id is the position.
    for (std::size_t i = 0; i < json.size(); ++i) {
      if (!json[i].is_string())
        throw ModelError(path + ": entry " + std::to_string(i) + " is " + json[i].dump() +
                          ", expected a token string");
      entries.emplace_back(json[i].get<std::string>(), static_cast<int>(i));
    }
    return entries;
  }
  if (!json.is_object())
    throw ModelError(path + ": expected a JSON object {\"piece\": id, ...} or a list of tokens");
  for (const auto& [piece, id] : json.items()) {
    // nlohmann stores non-negative integers as unsigned; negatives and floats are not ids.
    if (!id.is_number_unsigned() || id.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxId))
      throw ModelError(path + ": the id of '" + piece + "' is " + id.dump() +
                        ", expected a non-negative integer");
    entries.emplace_back(piece, id.get<int>());
  }
  return entries;
}

// One piece per line; Marian aborts on empty lines and duplicates.
VocabEntries parse_text(const std::string& text, const std::string& path) {
  VocabEntries entries;
  std::unordered_map<std::string, int> seen;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string piece = text.substr(pos, end - pos);
    if (!piece.empty() && piece.back() == '\r') piece.pop_back();  // as Marian's io::getline
    const int line = static_cast<int>(entries.size()) + 1;
    if (piece.empty()) throw ModelError(path + ":" + std::to_string(line) + ": empty line");
    if (!seen.emplace(piece, line).second)
      throw ModelError(path + ":" + std::to_string(line) + ": duplicate piece '" + piece +
                        "' (first on line " + std::to_string(seen[piece]) + ")");
    entries.emplace_back(std::move(piece), line - 1);
    pos = end + 1;
  }
  return entries;
}

}  // namespace

VocabFormat vocab_format_of(const std::string& path) {
  if (ends_with(path, ".spm")) return VocabFormat::spm;
  if (ends_with(path, ".yml") || ends_with(path, ".yaml")) return VocabFormat::yaml;
  if (ends_with(path, ".json")) return VocabFormat::json;
  return VocabFormat::text;
}

Vocabulary Vocabulary::load(const std::string& path, dim_t dim_limit) {
  const VocabFormat format = vocab_format_of(path);
  switch (format) {
    case VocabFormat::spm: {
      const SentencePiece spm = SentencePiece::load(path);
      Vocabulary v;
      v.path_ = path;
      v.format_ = format;
      v.pieces_.resize(spm.piece_count());
      for (int id = 0; id < spm.piece_count(); ++id) {
        v.pieces_[id] = spm.piece(id);
        v.ids_.emplace(v.pieces_[id], id);
      }
      v.eos_id_ = spm.eos_id();
      v.unk_id_ = spm.unk_id();
      if (v.eos_id_ < 0)
        throw ModelError(path + ": the SentencePiece model has no </s> (trained with eos_id=-1)");
      return v;
    }
    case VocabFormat::yaml:
      return from_entries(load_yaml_vocab(path), path, format, dim_limit);
    case VocabFormat::json:
      return from_entries(parse_json(read_file(path), path), path, format, dim_limit);
    case VocabFormat::text:
      break;
  }
  return from_entries(parse_text(read_file(path), path), path, format, dim_limit);
}

Vocabulary Vocabulary::from_entries(const VocabEntries& entries, const std::string& path,
                                    VocabFormat format, dim_t dim_limit) {
  Vocabulary v;
  v.path_ = path;
  v.format_ = format;
  int max_id = -1;
  for (const auto& [piece, id] : entries) {
    if (id < 0 || id > kMaxId)
      throw ModelError(path + ": id " + std::to_string(id) + " of '" + piece +
                        "' is out of range [0, " + std::to_string(kMaxId) + "]");
    if (dim_limit > 0 && id >= dim_limit) continue;
    // Marian inserts into a std::map first: a repeated piece keeps its first id.
    if (v.ids_.emplace(piece, id).second) max_id = std::max(max_id, id);
  }
  if (max_id < 0) throw ModelError(path + ": empty vocabulary");
  const std::size_t used = v.ids_.size();
  if (static_cast<std::size_t>(max_id) + 1 > 2 * used + kMaxUnusedIds)
    throw ModelError(path + ": ids go up to " + std::to_string(max_id) + " but only " +
                      std::to_string(used) + " pieces are listed; the file is corrupt");
  v.pieces_.resize(static_cast<std::size_t>(max_id) + 1);
  // Marian fills id -> piece in map (piece) order, so the lexicographically last piece wins.
  for (const auto& [piece, id] : v.ids_)
    if (v.pieces_[id] < piece) v.pieces_[id] = piece;

  const bool back_compat = format == VocabFormat::yaml || format == VocabFormat::json;
  auto required = [&](const std::string& piece, const std::string& nematus, int nematus_id) {
    if (back_compat && nematus_id < v.size() &&
        (v.pieces_[nematus_id].empty() || v.pieces_[nematus_id] == nematus))
      return nematus_id;
    const auto it = v.ids_.find(piece);
    if (it == v.ids_.end())
      throw ModelError(path + ": no entry for " + piece +
                        " (Marian vocabularies must contain </s> and <unk>)");
    return it->second;
  };
  v.eos_id_ = required("</s>", "eos", 0);
  v.unk_id_ = required("<unk>", "UNK", 1);
  return v;
}

int Vocabulary::id_of(const std::string& piece) const {
  const auto it = ids_.find(piece);
  return it == ids_.end() ? unk_id_ : it->second;
}

const std::string& Vocabulary::piece(int id) const {
  S2S_CHECK(id >= 0 && id < size(), "id ", id, " outside vocabulary ", path_, " of size ", size());
  return pieces_[id];
}

std::vector<std::string> Vocabulary::language_tokens() const {
  std::vector<std::string> out;
  for (const std::string& p : pieces_)
    if (p.size() > 4 && p.compare(0, 2, ">>") == 0 && ends_with(p, "<<")) out.push_back(p);
  return out;
}

}  // namespace s2s::text
