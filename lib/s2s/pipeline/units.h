// The units of a window of input lines: what the model translates, one unit per non-blank line,
// or one per sentence or piece of a line translated as several (Translator::translate_each makes
// them first; docs/architecture.md, "The path of a line"). Internal to pipeline/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "s2s/pipeline/protection.h"
#include "s2s/pipeline/translator.h"
#include "s2s/search/constraints.h"
#include "s2s/search/prefix.h"

namespace s2s::pipeline {

// What the model translates: one unit per non-blank line, or one per sentence or piece of a
// line translated as several. A line's units are consecutive.
struct Units {
  std::vector<std::vector<std::int32_t>> ids;
  std::vector<std::size_t> line;                 // the input line of each unit
  search::Prefixes prefix;                       // the target prefix of each unit (empty: none)
  std::vector<search::Constraints> constraints;  // glossary constraints of each unit (or none)
  // With alignment: the cleaned text of each line on its (first) unit, and what each unit is
  // as a piece of its line's AlignedSource.
  std::vector<std::string> text;
  std::vector<AlignedSource::Piece> piece;
  std::vector<std::string> separator;  // the source whitespace before the unit in its line
  std::vector<char> guard_loops;       // a piece of a sentence over the limit (search/beam.h)
  // Per input line (not per unit): what was masked in it (mostly nothing).
  std::vector<LineProtection> protection;

  bool is_protected(std::size_t unit) const { return protection[line[unit]].active(); }

  void add(std::vector<std::int32_t> unit_ids, std::size_t unit_line,
           std::vector<std::int32_t> unit_prefix, search::Constraints unit_constraints,
           std::string unit_text, AlignedSource::Piece unit_piece, std::string unit_separator,
           bool unit_guard) {
    ids.push_back(std::move(unit_ids));
    line.push_back(unit_line);
    prefix.push_back(std::move(unit_prefix));
    constraints.push_back(std::move(unit_constraints));
    text.push_back(std::move(unit_text));
    piece.push_back(unit_piece);
    separator.push_back(std::move(unit_separator));
    guard_loops.push_back(unit_guard);
  }
};

// A unit's source tokens besides </s> and a language label put before it.
std::size_t unit_source_tokens(const Units& units, std::size_t u);

// Makes the units of a window of lines: everything it needs besides the lines.
struct UnitMaker {
  const text::TextCodec& codec;
  const TranslateOptions& options;
  const TokenLimit& token_limit;
  const text::SentenceSplitter& splitter;
  bool sentence_units;  // each sentence a unit (TranslateOptions::sentence_split not "off")
  const Glossary* glossary;
  std::int32_t source_eos, target_eos, target_unk;
  bool multilingual;
  ProtectionSettings protection;

  Units make(const std::vector<std::string>& lines, std::size_t first_line_number,
             std::vector<InputNotes>& notes) const;

 private:
  struct Line {
    std::size_t index;   // in the window
    std::size_t number;  // 1-based, in the whole input
    std::string cleaned;
    std::vector<std::int32_t> prefix;  // target prefix ids
    bool masked = false;               // spans or tags were masked (pipeline/protection.h)
  };
  void add_whole(Line& line, InputNotes& note, Units& units) const;
  void add_sentences(Line& line, const std::vector<text::Sentence>& sentences, InputNotes& note,
                     Units& units) const;
  // The pieces of `text` (a line or a sentence over the limit, label_prefix put before each)
  // as units of `line`, the first after `separator`; returns how many. `sentences`: cut it at
  // sentence ends first (null: it is one sentence).
  std::size_t add_pieces(const Line& line, std::string_view text, const std::string& label_prefix,
                         const std::string& separator, bool first_of_line, bool continues_word,
                         const text::SentenceSplitter* sentences, Units& units) const;
  [[noreturn]] void fail(const Line& line, std::size_t tokens) const {
    throw InputError(too_long_message(line.number, tokens, token_limit) +
                     "; --long-lines split or truncate would translate it");
  }
  // The token count of the whole line (with its label), as a line over the limit reports it.
  std::size_t line_tokens(const Line& line) const;
  // The line's text for word alignment: asked for, or needed to put masked spans back.
  std::string text_for_alignment(const Line& line) const {
    return options.alignment.on() || line.masked ? line.cleaned : std::string();
  }
};

}  // namespace s2s::pipeline
