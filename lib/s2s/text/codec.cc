// TextCodec: SentencePiece + vocabulary per side, and the vocabulary coverage check.
#include "s2s/text/codec.h"

#include <algorithm>
#include <filesystem>

#include "s2s/core/error.h"
#include "s2s/core/strings.h"

namespace s2s::text {
namespace {

const std::string kSpaceSymbol = "\xe2\x96\x81";  // U+2581, SentencePiece's word-boundary mark

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

std::string replace_space_symbol(const std::string& piece) {
  std::string out;
  for (std::size_t i = 0; i < piece.size();) {
    if (piece.compare(i, kSpaceSymbol.size(), kSpaceSymbol) == 0) {
      out += ' ';
      i += kSpaceSymbol.size();
    } else {
      out += piece[i++];
    }
  }
  return out;
}

}  // namespace

VocabCoverage vocab_coverage(const SentencePiece& spm, const Vocabulary& vocab, int max_examples) {
  VocabCoverage c;
  for (int id = 0; id < spm.piece_count(); ++id) {
    if (!spm.is_text_piece(id)) continue;
    ++c.spm_pieces;
    const bool byte = spm.is_byte_piece(id);
    c.byte_pieces += byte;
    if (vocab.contains(spm.piece(id))) continue;
    ++c.missing;
    c.missing_byte_pieces += byte;
    if (static_cast<int>(c.examples.size()) < max_examples) c.examples.push_back(spm.piece(id));
  }
  return c;
}

TextCodec::Side TextCodec::make_side(std::optional<SentencePiece> spm, Vocabulary vocab) {
  Side side{std::move(spm), std::move(vocab), false};
  if (side.vocab.format() != VocabFormat::spm) return side;
  // A .spm vocabulary is read through its SentencePiece model; any other model would give ids
  // from a different id space.
  const std::string& path = side.vocab.path();
  if (!side.spm)
    throw ModelError(path + ": a SentencePiece vocabulary needs its SentencePiece model");
  bool same = side.spm->piece_count() == side.vocab.size();
  for (int id = 0; same && id < side.vocab.size(); ++id)
    same = side.spm->piece(id) == side.vocab.piece(id);
  if (!same)
    throw ModelError(path + ": this SentencePiece vocabulary differs from the SentencePiece model " +
                     side.spm->path() + " that splits the text; they must be the same model");
  side.spm_ids = true;
  return side;
}

TextCodec::TextCodec(std::optional<SentencePiece> source_spm, Vocabulary source_vocab,
                     std::optional<SentencePiece> target_spm, Vocabulary target_vocab)
    : source_(make_side(std::move(source_spm), std::move(source_vocab))),
      target_(make_side(std::move(target_spm), std::move(target_vocab))) {}

TextCodec TextCodec::load(const std::string& source_spm, const std::string& source_vocab,
                          dim_t source_dim, const std::string& target_spm,
                          const std::string& target_vocab, dim_t target_dim) {
  auto load_spm = [](const std::string& spm, const std::string& vocab) {
    std::optional<SentencePiece> out;
    // A .spm vocabulary is its own splitter unless another file is named.
    if (!spm.empty()) out = SentencePiece::load(spm);
    else if (vocab_format_of(vocab) == VocabFormat::spm) out = SentencePiece::load(vocab);
    return out;
  };
  Vocabulary src = Vocabulary::load(source_vocab, source_dim);
  // OPUS-MT models usually share one vocabulary file between both sides.
  Vocabulary tgt = same_file(source_vocab, target_vocab) && source_dim == target_dim
                       ? src
                       : Vocabulary::load(target_vocab, target_dim);
  return TextCodec(load_spm(source_spm, source_vocab), std::move(src),
                   load_spm(target_spm, target_vocab), std::move(tgt));
}

std::vector<std::int32_t> TextCodec::encode(const Side& side, const std::string& line) {
  std::vector<std::int32_t> ids;
  if (side.spm_ids) {
    ids = side.spm->encode_ids(line);
  } else if (side.spm) {
    for (const std::string& piece : side.spm->encode_pieces(line))
      ids.push_back(side.vocab.id_of(piece));
  } else {
    for (std::size_t pos = 0; pos < line.size();) {
      std::size_t end = line.find(' ', pos);
      if (end == std::string::npos) end = line.size();
      if (end > pos) ids.push_back(side.vocab.id_of(line.substr(pos, end - pos)));
      pos = end + 1;
    }
  }
  if (side.append_eos) ids.push_back(side.vocab.eos_id());
  return ids;
}

void TextCodec::set_languages(LanguageTokens languages) {
  languages_ = std::move(languages);
  hidden_target_ids_.clear();
  for (const std::string& token : languages_.tokens) {
    if (!source_.vocab.contains(token) || !target_.vocab.contains(token))
      throw ModelError(source_.vocab.path() + ": no language token " + token);
    hidden_target_ids_.push_back(target_.vocab.id_of(token));
  }
  // HF's decode(skip_special_tokens=True) drops these too.
  for (const char* special : {"<s>", "<pad>", "<unk>", "<mask>"})
    if (target_.vocab.contains(special)) hidden_target_ids_.push_back(target_.vocab.id_of(special));
  std::sort(hidden_target_ids_.begin(), hidden_target_ids_.end());
}

std::vector<std::int32_t> TextCodec::encode_with_language(const std::string& line) const {
  const std::size_t space = line.find(' ');
  const std::int32_t language = source_.vocab.id_of(line.substr(0, space));
  std::vector<std::int32_t> ids =
      encode(source_, space == std::string::npos ? std::string() : line.substr(space + 1));
  ids.insert(languages_.source_after_eos ? ids.end() : ids.begin(), language);
  return ids;
}

std::vector<std::int32_t> TextCodec::encode_source(const std::string& line) const {
  if (!languages_.empty() && languages_.contains(line.substr(0, line.find(' '))))
    return encode_with_language(line);
  // A leading >>xxx<< language label of a multilingual model is one vocabulary token that never
  // goes through SentencePiece (OPUS-MT adds it after spm_encode; HF's tokenizer splits it off).
  if (line.rfind(">>", 0) == 0) {
    const std::size_t close = line.find("<<", 2);
    const std::size_t end = close == std::string::npos ? close : close + 2;
    if (end != std::string::npos && (end == line.size() || line[end] == ' ') &&
        line.find(' ') > close && source_.vocab.contains(line.substr(0, end))) {
      std::vector<std::int32_t> ids = {source_.vocab.id_of(line.substr(0, end))};
      const std::vector<std::int32_t> rest =
          encode(source_, end < line.size() ? line.substr(end + 1) : std::string());
      ids.insert(ids.end(), rest.begin(), rest.end());
      return ids;
    }
  }
  return encode(source_, line);
}

TextCodec::Spelling TextCodec::source_spelling(const std::string& text) const {
  const Vocabulary& vocab = source_.vocab;
  bool bytes = false;
  for (std::int32_t id : encode(source_, text)) {
    if (id == vocab.unk_id()) return Spelling::unknown;
    bytes =
        bytes || (source_.spm && source_.spm->is_byte_piece(
                                     source_.spm_ids ? id : source_.spm->id_of(vocab.piece(id))));
  }
  return bytes ? Spelling::with_bytes : Spelling::pieces;
}

std::vector<std::int32_t> TextCodec::encode_target(const std::string& line) const {
  return encode(target_, line);
}

std::vector<std::string> TextCodec::target_pieces(const std::vector<std::int32_t>& ids) const {
  const Vocabulary& vocab = target_.vocab;
  std::vector<std::string> pieces;
  for (std::int32_t id : ids) {
    if (id == vocab.eos_id()) break;
    if (id < 0 || id >= vocab.size())
      throw ModelError(vocab.path() + ": the model produced id " + std::to_string(id) +
                       ", outside this vocabulary (size " + std::to_string(vocab.size()) +
                       "); the model and vocabulary do not match");
    if (!vocab.piece(id).empty() && !is_hidden_target(id)) pieces.push_back(vocab.piece(id));
  }
  return pieces;
}

std::string TextCodec::decode_target(const std::vector<std::int32_t>& ids) const {
  std::vector<std::string> pieces = target_pieces(ids);  // also checks the ids
  if (target_.spm_ids) {
    std::vector<std::int32_t> kept;
    for (std::int32_t id : ids) {
      if (id == target_.vocab.eos_id()) break;
      if (!is_hidden_target(id)) kept.push_back(id);
    }
    return target_.spm->decode_ids(kept);
  }
  if (!target_.spm) return join(pieces, " ");
  // SentencePiece copies pieces it does not know verbatim, '▁' included; map it to a space as
  // OPUS-MT's postprocess does (the dummy-prefix space of a first piece is dropped).
  const SentencePiece& spm = *target_.spm;
  const std::string& unk_piece = spm.piece(spm.unk_id());
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (spm.id_of(pieces[i]) != spm.unk_id() || pieces[i] == unk_piece) continue;
    std::string text = replace_space_symbol(pieces[i]);
    if (i == 0 && !text.empty() && text[0] == ' ' && pieces[0].compare(0, 3, kSpaceSymbol) == 0)
      text.erase(0, 1);
    pieces[i] = std::move(text);
  }
  return spm.decode_pieces(pieces);
}

VocabCoverage TextCodec::source_coverage() const {
  return source_.spm ? vocab_coverage(*source_.spm, source_.vocab) : VocabCoverage{};
}

VocabCoverage TextCodec::target_coverage() const {
  return target_.spm ? vocab_coverage(*target_.spm, target_.vocab) : VocabCoverage{};
}

}  // namespace s2s::text
