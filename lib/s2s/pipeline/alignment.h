// Word alignment output (--alignment), as marian-decoder prints it after " ||| " (Marian's
// data/alignment.cpp and translator/output_printer.h; tools/reference/marian_search.py, WORD
// ALIGNMENT, cites the lines). The rows are a hypothesis' (search/hypothesis.h): one per target
// token, </s> included, each over the source positions, </s> included; Marian aligns pieces.
//   hard (a bare --alignment, "hard" or "1"): for each target token the source position it
//        attends most (the first of equal ones), printed "s-t" sorted by s, then t;
//   a threshold in (0, 1): every pair whose attention is above it, printed the same way;
//   soft: every row, values separated by ",", rows by " " (floats as marian_float prints them).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "s2s/text/vocab.h"

namespace s2s::pipeline {

struct AlignmentOutput {
  enum class Kind { off, hard, soft };
  Kind kind = Kind::off;
  float threshold = 1.0f;  // hard: 1 = the most attended position, else every pair above it

  bool on() const { return kind != Kind::off; }
};

// "off" or "" (none), "hard" or "1", "soft", or a threshold in (0, 1]; nullopt otherwise.
std::optional<AlignmentOutput> parse_alignment(const std::string& text);
std::string alignment_name(const AlignmentOutput& alignment);

// (source, target) position pairs.
using AlignmentPairs = std::vector<std::pair<std::size_t, std::size_t>>;

// The (source, target) pairs of rows [targets x sources], sorted by source, then target.
AlignmentPairs hard_alignment(const std::vector<float>& rows, std::size_t sources,
                              float threshold);

// Pairs as marian-decoder prints them: "s-t s-t ...".
std::string pairs_text(const AlignmentPairs& pairs);

// The source positions of rows that hold one row per target token (none: 0).
inline std::size_t alignment_sources(const std::vector<float>& rows, std::size_t targets) {
  return targets == 0 ? 0 : rows.size() / targets;
}

// Piece pairs seen as words, for jsonl: SentencePiece marks the first piece of every word with
// '▁', so a piece position maps to a word position; </s> and a --target-lang label (skip_first)
// belong to no word. A word's characters are those of the n-th whitespace-separated token of
// its line, counted in code points; when a side's words do not match its tokens one for one
// (a truncated line, --no-spm-decode, text SentencePiece normalised away) spans is empty.
struct WordAlignment {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (source word, target word), sorted
  std::vector<std::array<std::size_t, 4>> spans;           // per pair: source [b, e), target [b, e)
};

// The word of each piece (-1: none).
std::vector<long> word_of_piece(const std::vector<std::int32_t>& ids, const text::Vocabulary& vocab,
                                std::int32_t eos, bool skip_first);

WordAlignment word_alignment(const AlignmentPairs& piece_pairs,
                             const std::vector<long>& source_words, const std::string& source_text,
                             const std::vector<long>& target_words, const std::string& target_text);

// The source side of an aligned sentence, what mapping its piece positions to words and
// characters needs: the ids the model read, the cleaned line (the line as given unless it held
// invalid UTF-8 or control characters), and the pieces the ids are made of: one for a line read
// whole (translated or scored); for a line split into pieces (translator.h), each piece's ids
// one after another, each with its own </s> and label.
struct AlignedSource {
  struct Piece {
    std::size_t end = 0;  // where its ids end in `ids`
    // Its first id is a language label that is no word of `text`: a --target-lang label, or
    // the line's own leading label repeated before a later piece of a split line.
    bool skip_first = false;
    // It starts inside the last word of the piece before (a word too long for one piece was
    // cut between characters), so its first word is that word.
    bool continues_word = false;
  };
  std::vector<std::int32_t> ids;
  std::string text;
  std::vector<Piece> pieces;

  // A line read whole; `label`: its first id is a --target-lang label.
  static AlignedSource whole(std::vector<std::int32_t> ids, std::string text, bool label);
};

// The word of each source piece (-1: none): word_of_piece over each of source.pieces, the
// words of a piece numbered after those of the pieces before it.
std::vector<long> source_words(const AlignedSource& source, const text::Vocabulary& vocab,
                               std::int32_t eos);

// The word alignment of hard piece pairs between `source` and target ids whose printed text is
// `target_text` (translate's and score's jsonl "alignment" and "alignment_spans").
WordAlignment word_alignment(const AlignmentPairs& piece_pairs, const AlignedSource& source,
                             const text::Vocabulary& source_vocab,
                             const std::vector<std::int32_t>& target_ids,
                             const text::Vocabulary& target_vocab, const std::string& target_text);

// What marian-decoder prints after " ||| ".
std::string alignment_text(const std::vector<float>& rows, std::size_t sources,
                           const AlignmentOutput& alignment);

}  // namespace s2s::pipeline
