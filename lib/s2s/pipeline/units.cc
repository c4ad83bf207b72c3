#include "s2s/pipeline/units.h"

#include <algorithm>
#include <utility>

#include "s2s/text/clean.h"

namespace s2s::pipeline {
namespace {

// The line's first word when it has the form of a ">>xxx<<" label, else "".
std::string label_word(const std::string& line) {
  if (line.rfind(">>", 0) != 0) return {};
  std::string word = line.substr(0, line.find_first_of(" \t"));
  if (word.size() < 5 || word.compare(word.size() - 2, 2, "<<") != 0) return {};
  return word;
}

// A line's own leading ">>xxx<<" label when the model knows it, else "".
std::string leading_label(const std::string& line, const text::Vocabulary& vocab) {
  const std::string word = label_word(line);
  return !word.empty() && vocab.contains(word) ? word : std::string();
}

// Keeps the first `limit` ids, the last one </s> again when the sequence ended with it (Marian's
// --max-length-crop).
void crop(std::vector<std::int32_t>& ids, std::size_t limit, std::int32_t eos) {
  if (ids.size() <= limit) return;
  const bool had_eos = !ids.empty() && ids.back() == eos;
  ids.resize(limit);
  if (had_eos && !ids.empty()) ids.back() = eos;
}

// The target prefix after the line's first tab (TranslateOptions::target_prefix), as target
// ids without </s>; `line` keeps the source before the tab.
std::vector<std::int32_t> take_prefix(std::string_view& line, const text::TextCodec& codec,
                                      std::int32_t eos, InputNotes& note) {
  const std::size_t tab = line.find('\t');
  if (tab == std::string_view::npos) return {};
  std::string cleaned;
  note.invalid_utf8 += text::clean_text(line.substr(tab + 1), cleaned).invalid_utf8;
  line = line.substr(0, tab);
  if (is_blank(cleaned)) return {};
  std::vector<std::int32_t> ids = codec.encode_target(cleaned);
  if (!ids.empty() && ids.back() == eos) ids.pop_back();
  return ids;
}

// The label notes of one cleaned line: a >>xxx<< label the model does not know, or no label
// on a multilingual model (a given --target-lang label makes both moot).
void note_labels(const std::string& cleaned, const text::TextCodec& codec,
                 const TranslateOptions& options, bool multilingual, InputNotes& note) {
  if (!options.target_label.empty()) return;
  const std::string word = label_word(cleaned);
  if (!word.empty() && !codec.source_vocab().contains(word))
    note.unknown_label = word;
  else if (multilingual && word.empty())
    note.no_label = true;
}

// `full` (the line with its label) as ids when it fits the limit, else only its token count.
// A huge line is counted in parts (long_lines.h count_in_chunks): SentencePiece would need
// hundreds of megabytes to encode a megabyte at once.
ChunkedCount encode_if_fits(const std::string& full, const text::TextCodec& codec,
                            std::size_t limit, std::vector<std::int32_t>& ids) {
  ChunkedCount chunked;
  if (full.size() <= kCountBytes) {
    ids = codec.encode_source(full);
    chunked.tokens = ids.size();
    return chunked;
  }
  chunked = count_in_chunks(full, limit,
                            [&](const std::string& s) { return codec.encode_source(s).size(); });
  if (chunked.tokens <= limit) ids = codec.encode_source(full);
  return chunked;
}

// The glossary constraints of a cleaned text (pipeline/glossary.h), added to the line's notes;
// target terms holding the target <unk> are dropped and noted.
search::Constraints glossary_constraints(const Glossary* glossary, const std::string& cleaned,
                                         const text::TextCodec& codec,
                                         const TranslateOptions& options, std::int32_t target_eos,
                                         std::int32_t target_unk, InputNotes& note) {
  if (glossary == nullptr) return {};
  const EncodeTarget encode = [&](const std::string& term) {
    std::vector<std::int32_t> ids = codec.encode_target(term);
    if (!ids.empty() && ids.back() == target_eos) ids.pop_back();
    return ids;
  };
  std::vector<std::int32_t> drop;
  if (target_unk >= 0) drop.push_back(target_unk);
  LineConstraints found =
      line_constraints(*glossary, cleaned, options.glossary_ignore_case, encode, drop);
  note.glossary_unknown.insert(note.glossary_unknown.end(), found.dropped_lines.begin(),
                               found.dropped_lines.end());
  note.glossary_terms += found.phrases.size();
  return search::Constraints(std::move(found.phrases), /*whole_words=*/true);
}

}  // namespace

std::size_t unit_source_tokens(const Units& units, std::size_t u) {
  const std::size_t added = 1 + (units.piece[u].skip_first ? 1 : 0);
  return units.ids[u].size() > added ? units.ids[u].size() - added : 0;
}

std::size_t UnitMaker::line_tokens(const Line& line) const {
  const std::string& label = options.target_label;
  const std::string full = label.empty() ? line.cleaned : label + " " + line.cleaned;
  std::vector<std::int32_t> unused;
  return encode_if_fits(full, codec, token_limit.tokens, unused).tokens;
}

std::size_t UnitMaker::add_pieces(const Line& line, std::string_view text,
                                  const std::string& label_prefix, const std::string& separator,
                                  bool first_of_line, bool continues_word,
                                  const text::SentenceSplitter* sentences, Units& units) const {
  const TokenCounter count = [&](const std::string& s) {
    return codec.encode_source(label_prefix + s).size();
  };
  const std::vector<std::string> pieces =
      split_to_limit(text, token_limit.tokens, count, sentences);
  std::size_t at = 0;  // where the piece before ended in text
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const std::string& piece = pieces[k];
    std::vector<std::int32_t> piece_ids = codec.encode_source(label_prefix + piece);
    crop(piece_ids, token_limit.tokens, source_eos);  // only when one character alone is over
    // The pieces are text's trimmed substrings in order, with only whitespace between them: no
    // whitespace before one means a word was cut there.
    const std::size_t start = text.find(piece, at);
    const bool cut_word = k > 0 ? start == at : continues_word;
    at = start == std::string_view::npos ? at : start + piece.size();
    const bool first = first_of_line && k == 0;
    units.add(std::move(piece_ids), line.index, {}, {},
              first ? text_for_alignment(line) : std::string(),
              {0, !label_prefix.empty() && (!first || !options.target_label.empty()), cut_word},
              k == 0 ? separator : std::string(" "), true);
  }
  return pieces.size();
}

void UnitMaker::add_whole(Line& line, InputNotes& note, Units& units) const {
  const std::size_t limit = token_limit.tokens;
  const std::string& label = options.target_label;
  const std::string full = label.empty() ? line.cleaned : label + " " + line.cleaned;
  std::vector<std::int32_t> line_ids;
  const ChunkedCount chunked = encode_if_fits(full, codec, limit, line_ids);
  search::Constraints constraints =
      glossary_constraints(glossary, line.cleaned, codec, options, target_eos, target_unk, note);
  if (chunked.tokens <= limit) {
    units.add(std::move(line_ids), line.index, std::move(line.prefix), std::move(constraints),
              text_for_alignment(line), {0, !label.empty(), false}, "", false);
    return;
  }
  note.source_tokens = chunked.tokens;
  switch (options.long_lines) {
    case LongLines::fail:
      fail(line, chunked.tokens);
    case LongLines::truncate:
      if (line_ids.empty()) line_ids = codec.encode_source(full.substr(0, chunked.over_at));
      crop(line_ids, limit, source_eos);
      // Its words are not all translated: no word mapping (empty text).
      units.add(std::move(line_ids), line.index, std::move(line.prefix), std::move(constraints), "",
                {0, !label.empty(), false}, "", false);
      note.long_line = InputNotes::LongLine::truncated;
      return;
    case LongLines::split: {
      note.long_line = InputNotes::LongLine::split;
      note.glossary_split = !constraints.empty();
      std::string label_prefix = label;
      std::string_view body = line.cleaned;
      if (label_prefix.empty()) {
        label_prefix = leading_label(line.cleaned, codec.source_vocab());
        if (!label_prefix.empty()) body.remove_prefix(label_prefix.size());
      }
      if (!label_prefix.empty()) label_prefix += ' ';
      const std::size_t first_unit = units.ids.size();
      note.pieces = add_pieces(line, body, label_prefix, "", true, false, &splitter, units);
      units.prefix[first_unit] = std::move(line.prefix);  // the translation starts with it
      return;
    }
  }
}

void UnitMaker::add_sentences(Line& line, const std::vector<text::Sentence>& sentences,
                              InputNotes& note, Units& units) const {
  const std::size_t limit = token_limit.tokens;
  std::string label_prefix = options.target_label;
  std::size_t body_start = 0;  // sentences are offsets into the cleaned line after its own label
  if (label_prefix.empty()) {
    label_prefix = leading_label(line.cleaned, codec.source_vocab());
    body_start = label_prefix.size();
  }
  if (!label_prefix.empty()) label_prefix += ' ';
  const std::string_view body = std::string_view(line.cleaned).substr(body_start);
  note.sentences = sentences.size();
  const std::size_t first_unit = units.ids.size();
  bool truncated = false;
  std::size_t before = 0;  // where the sentence before ended in body
  for (std::size_t k = 0; k < sentences.size(); ++k) {
    const std::string_view text =
        body.substr(sentences[k].begin, sentences[k].end - sentences[k].begin);
    std::string separator(body.substr(before, sentences[k].begin - before));
    const bool continues_word = k > 0 && separator.empty();  // after '。': no whitespace
    before = sentences[k].end;
    const std::string full = label_prefix + std::string(text);
    std::vector<std::int32_t> ids;
    const ChunkedCount chunked = encode_if_fits(full, codec, limit, ids);
    const AlignedSource::Piece piece{
        0, !label_prefix.empty() && (k > 0 || !options.target_label.empty()), continues_word};
    if (chunked.tokens <= limit) {
      search::Constraints constraints = glossary_constraints(glossary, std::string(text), codec,
                                                             options, target_eos, target_unk, note);
      units.add(std::move(ids), line.index,
                k == 0 ? std::move(line.prefix) : std::vector<std::int32_t>{},
                std::move(constraints), k == 0 ? text_for_alignment(line) : std::string(), piece,
                std::move(separator), false);
      continue;
    }
    if (note.source_tokens == 0) note.source_tokens = line_tokens(line);  // for the warning
    switch (options.long_lines) {
      case LongLines::fail:
        fail(line, chunked.tokens);
      case LongLines::truncate: {
        const TokenCounter count = [&](const std::string& s) {
          return codec.encode_source(label_prefix + s).size();
        };
        std::vector<std::int32_t> kept =
            codec.encode_source(label_prefix + truncate_to_limit(text, limit, count));
        crop(kept, limit, source_eos);
        units.add(std::move(kept), line.index,
                  k == 0 ? std::move(line.prefix) : std::vector<std::int32_t>{}, {}, "", piece,
                  std::move(separator), false);
        truncated = true;
        note.long_line = InputNotes::LongLine::truncated;
        continue;
      }
      case LongLines::split: {
        const std::size_t first = units.ids.size();
        note.long_line = InputNotes::LongLine::split;
        if (!glossary_constraints(glossary, std::string(text), codec, options, target_eos,
                                  target_unk, note)
                 .empty())
          note.glossary_split = true;  // pieces of a sentence get no constraints
        add_pieces(line, text, label_prefix, separator, k == 0, continues_word, nullptr, units);
        if (k == 0) units.prefix[first] = std::move(line.prefix);
        continue;
      }
    }
  }
  if (note.long_line == InputNotes::LongLine::split) note.pieces = units.ids.size() - first_unit;
  // A truncated sentence's words are not all translated: no word mapping for the line.
  if (truncated)
    for (std::size_t u = units.ids.size(); u-- > 0 && units.line[u] == line.index;)
      units.text[u].clear();
}

Units UnitMaker::make(const std::vector<std::string>& lines, std::size_t first_line_number,
                      std::vector<InputNotes>& notes) const {
  notes.assign(lines.size(), InputNotes{});
  Units units;
  units.protection.resize(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    InputNotes& note = notes[i];
    Line line{i, first_line_number + i, {}, {}};
    std::string_view source = lines[i];
    if (options.target_prefix) line.prefix = take_prefix(source, codec, target_eos, note);
    note.invalid_utf8 += text::clean_text(source, line.cleaned).invalid_utf8;
    if (is_blank(line.cleaned)) continue;
    note_labels(line.cleaned, codec, options, multilingual, note);
    const std::size_t own_label =
        options.target_label.empty() ? leading_label(line.cleaned, codec.source_vocab()).size() : 0;
    if (protection.patterns || protection.html) {  // before the cut: never inside a span
      units.protection[i] = protect_line(line.cleaned, own_label, codec, protection, note);
      line.masked = units.protection[i].active();
    }
    std::vector<text::Sentence> sentences;
    if (sentence_units)
      sentences = splitter.split(std::string_view(line.cleaned).substr(own_label));
    if (sentences.size() > 1)
      add_sentences(line, sentences, note, units);
    else
      add_whole(line, note, units);
  }
  // Every unit starts with the target-language token (TranslateOptions::target_start).
  for (std::vector<std::int32_t>& prefix : units.prefix)
    prefix.insert(prefix.begin(), options.target_start.begin(), options.target_start.end());
  return units;
}

}  // namespace s2s::pipeline
