#include "s2s/pipeline/alignment.h"

#include <algorithm>
#include <cstdlib>

#include "s2s/pipeline/output.h"

namespace s2s::pipeline {

std::optional<AlignmentOutput> parse_alignment(const std::string& text) {
  AlignmentOutput a;
  if (text.empty() || text == "off") return a;
  if (text == "hard") {
    a.kind = AlignmentOutput::Kind::hard;
    return a;
  }
  if (text == "soft") {
    a.kind = AlignmentOutput::Kind::soft;
    return a;
  }
  char* end = nullptr;
  const float t = std::strtof(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(t > 0.0f) || t > 1.0f) return std::nullopt;
  a.kind = AlignmentOutput::Kind::hard;
  a.threshold = t;
  return a;
}

std::string alignment_name(const AlignmentOutput& a) {
  switch (a.kind) {
    case AlignmentOutput::Kind::off: return "off";
    case AlignmentOutput::Kind::soft: return "soft";
    case AlignmentOutput::Kind::hard: return a.threshold == 1.0f ? "hard" : marian_float(a.threshold);
  }
  return "off";
}

AlignmentPairs hard_alignment(const std::vector<float>& rows, std::size_t sources,
                              float threshold) {
  AlignmentPairs pairs;
  if (sources == 0) return pairs;
  const std::size_t targets = rows.size() / sources;
  for (std::size_t t = 0; t < targets; ++t) {
    const float* row = rows.data() + t * sources;
    if (threshold == 1.0f) {
      pairs.emplace_back(static_cast<std::size_t>(std::max_element(row, row + sources) - row), t);
    } else {
      for (std::size_t s = 0; s < sources; ++s)
        if (row[s] > threshold) pairs.emplace_back(s, t);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

namespace {

// The [begin, end) code point offsets of the whitespace-separated tokens of `text`.
std::vector<std::array<std::size_t, 2>> token_spans(const std::string& text) {
  std::vector<std::array<std::size_t, 2>> spans;
  std::size_t chars = 0;
  bool in_token = false;
  for (unsigned char c : text) {
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: same character
    const bool space = c == ' ' || (c >= '\t' && c <= '\r');
    if (!space && !in_token) spans.push_back({chars, chars});
    if (!space) spans.back()[1] = chars + 1;
    in_token = !space;
    ++chars;
  }
  return spans;
}

std::size_t word_count(const std::vector<long>& words) {
  long most = -1;
  for (long w : words) most = std::max(most, w);
  return static_cast<std::size_t>(most + 1);
}

}  // namespace

std::vector<long> word_of_piece(const std::vector<std::int32_t>& ids, const text::Vocabulary& vocab,
                                std::int32_t eos, bool skip_first) {
  static const std::string kWordMark = "\xe2\x96\x81";  // '▁'
  std::vector<long> words(ids.size(), -1);
  long word = -1;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == eos || (skip_first && i == 0)) continue;
    if (word < 0 || vocab.piece(ids[i]).compare(0, kWordMark.size(), kWordMark) == 0) ++word;
    words[i] = word;
  }
  return words;
}

WordAlignment word_alignment(const AlignmentPairs& piece_pairs,
                             const std::vector<long>& source_words, const std::string& source_text,
                             const std::vector<long>& target_words,
                             const std::string& target_text) {
  WordAlignment a;
  for (const auto& [s, t] : piece_pairs) {
    if (s >= source_words.size() || t >= target_words.size()) continue;
    if (source_words[s] < 0 || target_words[t] < 0) continue;
    a.pairs.emplace_back(static_cast<std::size_t>(source_words[s]),
                         static_cast<std::size_t>(target_words[t]));
  }
  std::sort(a.pairs.begin(), a.pairs.end());
  a.pairs.erase(std::unique(a.pairs.begin(), a.pairs.end()), a.pairs.end());
  const auto source_spans = token_spans(source_text), target_spans = token_spans(target_text);
  if (source_spans.size() != word_count(source_words) ||
      target_spans.size() != word_count(target_words))
    return a;
  for (const auto& [s, t] : a.pairs)
    a.spans.push_back(
        {source_spans[s][0], source_spans[s][1], target_spans[t][0], target_spans[t][1]});
  return a;
}

AlignedSource AlignedSource::whole(std::vector<std::int32_t> ids, std::string text, bool label) {
  AlignedSource source;
  source.pieces.push_back({ids.size(), label, false});
  source.ids = std::move(ids);
  source.text = std::move(text);
  return source;
}

std::vector<long> source_words(const AlignedSource& source, const text::Vocabulary& vocab,
                               std::int32_t eos) {
  std::vector<long> words;
  words.reserve(source.ids.size());
  long next = 0;  // the first word of the next piece
  std::size_t begin = 0;
  for (const AlignedSource::Piece& piece : source.pieces) {
    const std::vector<std::int32_t> ids(source.ids.begin() + static_cast<std::ptrdiff_t>(begin),
                                        source.ids.begin() + static_cast<std::ptrdiff_t>(piece.end));
    const long offset = piece.continues_word && next > 0 ? next - 1 : next;
    for (long w : word_of_piece(ids, vocab, eos, piece.skip_first)) {
      words.push_back(w < 0 ? -1 : w + offset);
      if (w >= 0) next = std::max(next, w + offset + 1);
    }
    begin = piece.end;
  }
  return words;
}

WordAlignment word_alignment(const AlignmentPairs& piece_pairs, const AlignedSource& source,
                             const text::Vocabulary& source_vocab,
                             const std::vector<std::int32_t>& target_ids,
                             const text::Vocabulary& target_vocab,
                             const std::string& target_text) {
  return word_alignment(piece_pairs, source_words(source, source_vocab, source_vocab.eos_id()),
                        source.text,
                        word_of_piece(target_ids, target_vocab, target_vocab.eos_id(), false),
                        target_text);
}

std::string pairs_text(const AlignmentPairs& pairs) {
  std::string out;
  for (const auto& [s, t] : pairs) {
    if (!out.empty()) out += ' ';
    out += std::to_string(s) + "-" + std::to_string(t);
  }
  return out;
}

std::string alignment_text(const std::vector<float>& rows, std::size_t sources,
                           const AlignmentOutput& alignment) {
  std::string out;
  if (alignment.kind == AlignmentOutput::Kind::soft) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i > 0) out += i % sources == 0 ? ' ' : ',';
      out += marian_float(rows[i]);
    }
    return out;
  }
  return pairs_text(hard_alignment(rows, sources, alignment.threshold));
}

}  // namespace s2s::pipeline
