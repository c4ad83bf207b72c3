#include "s2s/pipeline/translator.h"

#include <algorithm>
#include <cctype>
#include <atomic>
#include <exception>
#include <mutex>

#include "s2s/batch/batch.h"
#include "s2s/batch/batcher.h"
#include "s2s/pipeline/protection.h"
#include "s2s/pipeline/worker_team.h"
#include "s2s/search/beam.h"
#include "s2s/search/sampling.h"
#include "s2s/search/scoring_rules.h"
#include "s2s/text/clean.h"
#include "s2s/text/segment.h"

namespace s2s::pipeline {
namespace {

const std::string kWordMark = "\xe2\x96\x81";  // '▁', SentencePiece's word-boundary mark

// Most bytes of encoder attention scores per batch (see translate()).
constexpr std::size_t kScoreBytes = std::size_t{64} << 20;

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

// Removes a hypothesis' first n tokens (TranslateOptions::target_start): ids, scores and
// alignment rows (of source_length floats each).
void drop_start(search::Hypothesis& h, std::size_t n, std::size_t source_length) {
  n = std::min(n, h.ids.size());
  const auto first = static_cast<std::ptrdiff_t>(n);
  h.ids.erase(h.ids.begin(), h.ids.begin() + first);
  h.token_scores.erase(h.token_scores.begin(), h.token_scores.begin() + first);
  if (!h.alignment.empty())
    h.alignment.erase(h.alignment.begin(),
                      h.alignment.begin() + first * static_cast<std::ptrdiff_t>(source_length));
}

// Keeps the first `limit` ids, the last one </s> again when the sequence ended with it (Marian's
// --max-length-crop).
void crop(std::vector<std::int32_t>& ids, std::size_t limit, std::int32_t eos) {
  if (ids.size() <= limit) return;
  const bool had_eos = !ids.empty() && ids.back() == eos;
  ids.resize(limit);
  if (had_eos && !ids.empty()) ids.back() = eos;
}

// The splitter TranslateOptions::sentence_split asks for; with "off", English's, which cuts
// only lines over the token limit.
std::shared_ptr<const text::SentenceSplitter> sentence_splitter(const std::string& setting) {
  const std::string language = setting == "on" || setting == "off" ? "en" : setting;
  // ISO 639 codes, optionally with a region: "en", "pt_BR", "de-AT".
  const bool code = language.size() >= 2 && language.size() <= 8 &&
                    std::all_of(language.begin(), language.end(), [](unsigned char c) {
                      return std::isalpha(c) || c == '_' || c == '-';
                    });
  if (!code)
    throw UsageError("--sentence-split " + setting +
                     ": give off, on, or the source language's ISO 639 code (en, de, ...)");
  return std::make_shared<const text::SentenceSplitter>(language);
}

}  // namespace

std::string joined_text(const Translation& translation, std::size_t k, const TextOfIds& text_of,
                        const char* between) {
  const search::Hypothesis& h = translation.hypotheses[k];
  if (!translation.split) return text_of(h.ids);
  const std::vector<std::size_t>& ends = translation.units[k].ends;
  std::string text;
  std::size_t begin = 0;
  for (std::size_t u = 0; u < ends.size(); ++u) {
    const std::string unit_text =
        text_of(std::vector<std::int32_t>(h.ids.begin() + static_cast<std::ptrdiff_t>(begin),
                                          h.ids.begin() + static_cast<std::ptrdiff_t>(ends[u])));
    begin = ends[u];
    if (unit_text.empty()) continue;
    if (!text.empty()) text += between != nullptr ? std::string(between) : translation.separators[u];
    text += unit_text;
  }
  return text;
}

bool is_blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

std::string long_line_message(std::size_t line_number, const InputNotes& notes,
                              const TokenLimit& limit) {
  const std::string head = too_long_message(line_number, notes.source_tokens, limit);
  switch (notes.long_line) {
    case InputNotes::LongLine::split:
      return head + ": split into " + std::to_string(notes.pieces) +
             " pieces, translated separately and joined" +
             (notes.loops_cut == 0
                  ? std::string()
                  : "; the translations of " + std::to_string(notes.loops_cut) +
                        " of them fell into a loop and were cut (" +
                        std::to_string(search::kLoopSpan) + " tokens in a row drawn from " +
                        std::to_string(search::kLoopTokens) + " or fewer)");
    case InputNotes::LongLine::truncated:
      return head + (notes.sentences > 1 ? ": its sentences over the limit truncated to their"
                                         : ": truncated to its") +
             " first " + std::to_string(limit.tokens) + " tokens";
    case InputNotes::LongLine::no:
      break;
  }
  return {};
}

Translator::Translator(std::shared_ptr<const model::Model> model, TranslateOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
  if (options_.batch_size < 1) throw UsageError("batch size must be at least 1");
  if (options_.batch_tokens < 0) throw UsageError("batch tokens must not be negative");
  if (options_.max_length < 1) throw UsageError("max length must be at least 1");
  limit_ = TokenLimit::of(static_cast<std::size_t>(options_.max_length),
                          static_cast<std::size_t>(std::max<dim_t>(model_->config().max_positions, 0)));
  const std::size_t added = model_->codec().encode_source("").size() +
                            (options_.target_label.empty() ? 0 : 1);
  if (limit_.tokens <= added)
    throw UsageError(limit_.describe() + " leaves no room for text: the model adds " +
                     std::to_string(added) + " token" + (added == 1 ? "" : "s") +
                     " (</s>, language label) to every sentence");
  multilingual_ = !model_->codec().source_vocab().language_tokens().empty();
  options_.search.alignment = options_.alignment.on();
  if (options_.alignment.on()) model_->decoder().check_alignment();  // before any input
  // A translation is held to --max-length as its source is (search/options.h); not to a learned
  // position table, which Marian clamps for targets (docs/models.md, "Marian / OPUS-MT").
  if (options_.search.max_length <= 0 || options_.search.max_length > options_.max_length)
    options_.search.max_length = options_.max_length;
  search::check_beam_size(*model_, options_.search);  // before any input
  if (!options_.glossary_file.empty()) {
    if (options_.target_prefix)
      throw UsageError("--glossary and target prefixes cannot be combined: give one of them");
    if (options_.search.sampling.kind != search::Sampling::Kind::off)
      throw UsageError("--glossary needs beam search: not with --sampling");
    glossary_ = std::make_shared<const Glossary>(Glossary::load(options_.glossary_file));
  }
  splitter_ = sentence_splitter(options_.sentence_split);
  can_align_ = model_->config().alignment_layer >= 0;
  const std::string& check = options_.short_translations;
  if (check != "retry" && check != "warn" && check != "off")
    throw UsageError("--short-translations " + check + ": give retry, warn or off");
}

std::vector<std::string> glossary_messages(std::size_t line_number, const InputNotes& notes) {
  std::vector<std::string> out;
  const std::string head = "line " + std::to_string(line_number) + ": ";
  if (notes.glossary_fallback)
    out.push_back(head + "the glossary's target terms could not all be placed within the " +
                  "length limit: translated without them");
  if (notes.glossary_split)
    out.push_back(head + "too long for glossary constraints (split into pieces): translated " +
                  "without its " + std::to_string(notes.glossary_terms) + " glossary term" +
                  (notes.glossary_terms == 1 ? "" : "s"));
  for (std::size_t entry : notes.glossary_unknown)
    out.push_back(head + "glossary line " + std::to_string(entry) +
                  ": its target term has a token the model's target vocabulary lacks (<unk>): " +
                  "not applied");
  return out;
}

bool short_translation(std::size_t source_tokens, std::size_t target_tokens) {
  return source_tokens >= kShortMinSource &&
         static_cast<double>(target_tokens) < kShortRatio * static_cast<double>(source_tokens);
}

std::vector<std::string> short_messages(std::size_t line_number, const InputNotes& notes) {
  std::vector<std::string> out;
  for (const InputNotes::ShortUnit& unit : notes.short_units)
    out.push_back("line " + std::to_string(line_number) + ": the translation of " +
                  (notes.sentences > 1 || notes.pieces > 1
                       ? "its part " + std::to_string(unit.unit + 1)
                       : std::string("the line")) +
                  " is much shorter than its source (" + std::to_string(unit.target_tokens) +
                  " tokens for " + std::to_string(unit.source_tokens) + ")" +
                  (unit.searched_again ? ", even after a second search" : "") +
                  ": content may be missing");
  return out;
}

namespace {

// What the model translates: one unit per non-blank line, or one per sentence or piece of a
// line translated as several. A line's units are consecutive.
struct Units {
  std::vector<std::vector<std::int32_t>> ids;
  std::vector<std::size_t> line;  // the input line of each unit
  search::Prefixes prefix;        // the target prefix of each unit (empty: none)
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
  if (!word.empty() && !codec.source_vocab().contains(word)) note.unknown_label = word;
  else if (multilingual && word.empty()) note.no_label = true;
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
  chunked = count_in_chunks(full, limit, [&](const std::string& s) {
    return codec.encode_source(s).size();
  });
  if (chunked.tokens <= limit) ids = codec.encode_source(full);
  return chunked;
}

// The glossary constraints of a cleaned text (pipeline/glossary.h), added to the line's notes;
// target terms holding the target <unk> are dropped and noted.
search::Constraints glossary_constraints(const Glossary* glossary, const std::string& cleaned,
                                         const text::TextCodec& codec, const TranslateOptions& options,
                                         std::int32_t target_eos, std::int32_t target_unk,
                                         InputNotes& note) {
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

// Everything make_units needs besides the lines.
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
    std::size_t index;        // in the window
    std::size_t number;       // 1-based, in the whole input
    std::string cleaned;
    std::vector<std::int32_t> prefix;  // target prefix ids
    bool masked = false;  // spans or tags were masked (pipeline/protection.h)
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
  std::size_t line_tokens(const Line& line) const {
    const std::string& label = options.target_label;
    const std::string full = label.empty() ? line.cleaned : label + " " + line.cleaned;
    std::vector<std::int32_t> unused;
    return encode_if_fits(full, codec, token_limit.tokens, unused).tokens;
  }
  // The line's text for word alignment: asked for, or needed to put masked spans back.
  std::string text_for_alignment(const Line& line) const {
    return options.alignment.on() || line.masked ? line.cleaned : std::string();
  }
};

std::size_t UnitMaker::add_pieces(const Line& line, std::string_view text,
                                  const std::string& label_prefix, const std::string& separator,
                                  bool first_of_line, bool continues_word,
                                  const text::SentenceSplitter* sentences, Units& units) const {
  const TokenCounter count = [&](const std::string& s) {
    return codec.encode_source(label_prefix + s).size();
  };
  const std::vector<std::string> pieces = split_to_limit(text, token_limit.tokens, count, sentences);
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
      units.add(std::move(line_ids), line.index, std::move(line.prefix), std::move(constraints),
                "", {0, !label.empty(), false}, "", false);
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
    const std::string_view text = body.substr(sentences[k].begin, sentences[k].end - sentences[k].begin);
    std::string separator(body.substr(before, sentences[k].begin - before));
    const bool continues_word = k > 0 && separator.empty();  // after '。': no whitespace
    before = sentences[k].end;
    const std::string full = label_prefix + std::string(text);
    std::vector<std::int32_t> ids;
    const ChunkedCount chunked = encode_if_fits(full, codec, limit, ids);
    const AlignedSource::Piece piece{0, !label_prefix.empty() && (k > 0 || !options.target_label.empty()),
                                     continues_word};
    if (chunked.tokens <= limit) {
      search::Constraints constraints = glossary_constraints(glossary, std::string(text), codec,
                                                             options, target_eos, target_unk, note);
      units.add(std::move(ids), line.index, k == 0 ? std::move(line.prefix) : std::vector<std::int32_t>{},
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
        units.add(std::move(kept), line.index, k == 0 ? std::move(line.prefix) : std::vector<std::int32_t>{},
                  {}, "", piece, std::move(separator), false);
        truncated = true;
        note.long_line = InputNotes::LongLine::truncated;
        continue;
      }
      case LongLines::split: {
        const std::size_t first = units.ids.size();
        note.long_line = InputNotes::LongLine::split;
        if (!glossary_constraints(glossary, std::string(text), codec, options, target_eos,
                                  target_unk, note).empty())
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
    for (std::size_t u = units.ids.size(); u-- > 0 && units.line[u] == line.index;) units.text[u].clear();
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
    if (sentence_units) sentences = splitter.split(std::string_view(line.cleaned).substr(own_label));
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

// Rank `rank` of a line translated as several units: each unit's hypothesis of that rank (its
// last when it has fewer) joined (translator.h), and how (`parts`: where each unit ends; with a
// hard `alignment`, the joined pairs from the units' rows over source_sizes[k] positions).
// `kept`: per unit, its hypotheses' hard pairs when they were kept instead of rows (KeptPairs),
// else empty.
search::Hypothesis join_units(const std::vector<std::vector<search::Hypothesis>>& units,
                              std::size_t rank, const model::Model& model,
                              const search::SearchOptions& search, const AlignmentOutput& alignment,
                              const std::vector<std::size_t>& source_sizes,
                              const std::vector<std::vector<AlignmentPairs>>& kept,
                              JoinedUnits& parts) {
  const text::Vocabulary& target_vocab = model.codec().target_vocab();
  const std::int32_t eos = model.config().eos_id;
  const std::int32_t word_mark =
      target_vocab.contains(kWordMark) ? target_vocab.id_of(kWordMark) : -1;
  const auto of_rank = [rank](const std::vector<search::Hypothesis>& list) {
    return &list[std::min(rank, list.size() - 1)];
  };
  search::Hypothesis joined;
  std::size_t total = 1;
  for (const std::vector<search::Hypothesis>& unit : units)
    if (!unit.empty()) total += of_rank(unit)->ids.size() + 1;
  joined.ids.reserve(total);
  joined.token_scores.reserve(total);
  bool ended = false;  // the last unit's hypothesis ended with </s>
  float eos_score = 0.0f;
  const bool align = alignment.kind == AlignmentOutput::Kind::hard;
  AlignmentPairs& pairs = parts.alignment;
  std::vector<std::size_t> eos_sources;  // the sources the last unit's </s> is aligned to
  std::size_t source_offset = 0;
  for (std::size_t k = 0; k < units.size(); source_offset += source_sizes[k++]) {
    if (units[k].empty()) {
      parts.ends.push_back(joined.ids.size());
      continue;
    }
    const search::Hypothesis& h = *of_rank(units[k]);
    std::size_t n = h.ids.size();
    ended = n > 0 && h.ids[n - 1] == eos;
    if (ended) eos_score = h.token_scores[--n];
    if (n > 0 && !joined.ids.empty() && word_mark >= 0 &&
        target_vocab.piece(h.ids[0]).compare(0, kWordMark.size(), kWordMark) != 0) {
      joined.ids.push_back(word_mark);
      joined.token_scores.push_back(0.0f);
    }
    if (align) {
      eos_sources.clear();
      const AlignmentPairs unit_pairs =
          kept[k].empty() ? hard_alignment(h.alignment, source_sizes[k], alignment.threshold)
                          : kept[k][std::min(rank, kept[k].size() - 1)];
      for (const auto& [s, t] : unit_pairs) {
        if (t < n)
          pairs.emplace_back(s + source_offset, t + joined.ids.size());
        else  // its </s>: the joined hypothesis has one at most, the last unit's
          eos_sources.push_back(s + source_offset);
      }
    }
    joined.ids.insert(joined.ids.end(), h.ids.begin(), h.ids.begin() + static_cast<std::ptrdiff_t>(n));
    joined.token_scores.insert(joined.token_scores.end(), h.token_scores.begin(),
                               h.token_scores.begin() + static_cast<std::ptrdiff_t>(n));
    parts.ends.push_back(joined.ids.size());
  }
  if (ended) {  // the line's translation ends as its last unit's does
    joined.ids.push_back(eos);
    joined.token_scores.push_back(eos_score);
    for (std::size_t s : eos_sources) pairs.emplace_back(s, joined.ids.size() - 1);
  }
  std::sort(pairs.begin(), pairs.end());
  for (float s : joined.token_scores) joined.score += s;
  joined.normalized_score = search::normalized_score(joined.score, joined.ids.size(), search);
  return joined;
}

// The translation of a line made of units [first, end) (Translation::split): one joined
// hypothesis per rank up to the longest unit's n-best list.
// `alignment`: how the units' rows are joined (hard: into JoinedUnits::alignment pairs).
Translation join_line(std::vector<std::vector<search::Hypothesis>>& found,
                      std::vector<std::vector<AlignmentPairs>>& kept, const Units& units,
                      std::size_t first, std::size_t end, const model::Model& model,
                      const TranslateOptions& options, const AlignmentOutput& alignment,
                      InputNotes& note) {
  Translation translation;
  translation.split = true;
  std::vector<std::vector<search::Hypothesis>> unit_lists(
      std::make_move_iterator(found.begin() + static_cast<std::ptrdiff_t>(first)),
      std::make_move_iterator(found.begin() + static_cast<std::ptrdiff_t>(end)));
  const std::vector<std::vector<AlignmentPairs>> unit_kept(
      std::make_move_iterator(kept.begin() + static_cast<std::ptrdiff_t>(first)),
      std::make_move_iterator(kept.begin() + static_cast<std::ptrdiff_t>(end)));
  std::vector<std::size_t> source_sizes;
  std::size_t ranks = 0;
  for (std::size_t k = first; k < end; ++k) {
    source_sizes.push_back(units.ids[k].size());
    translation.separators.push_back(units.separator[k]);
    const std::vector<search::Hypothesis>& list = unit_lists[k - first];
    ranks = std::max(ranks, list.size());
    if (!list.empty() && list.front().cut_in_loop) ++note.loops_cut;
  }
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    translation.units.emplace_back();
    translation.hypotheses.push_back(join_units(unit_lists, rank, model, options.search, alignment,
                                                source_sizes, unit_kept, translation.units.back()));
  }
  if (alignment.on()) {
    AlignedSource& source = translation.source;
    source.text = units.text[first];
    for (std::size_t k = first; k < end; ++k) {
      source.ids.insert(source.ids.end(), units.ids[k].begin(), units.ids[k].end());
      source.pieces.push_back(units.piece[k]);
      source.pieces.back().end = source.ids.size();
    }
  }
  return translation;
}

// Puts a masked line's spans (and tags) back into its hypotheses (pipeline/protection.h); the
// alignment kept for that is dropped unless it was asked for.
void put_back_masked(Translation& translation, const LineProtection& protection,
                     const text::TextCodec& codec, bool keep_alignment, InputNotes& note) {
  const TextOfIds decode = [&codec](const std::vector<std::int32_t>& ids) {
    return codec.decode_target(ids);
  };
  std::vector<std::string> decoded;
  for (std::size_t k = 0; k < translation.hypotheses.size(); ++k)
    decoded.push_back(joined_text(translation, k, decode));
  restore_line(translation, protection, decoded, codec, note);
  if (keep_alignment) return;
  for (search::Hypothesis& h : translation.hypotheses) h.alignment = {};
  for (JoinedUnits& joined : translation.units) joined.alignment = {};
  translation.source = {};
}

// A unit's source tokens besides </s> and a language label put before it.
std::size_t unit_source_tokens(const Units& units, std::size_t u) {
  const std::size_t added = 1 + (units.piece[u].skip_first ? 1 : 0);
  return units.ids[u].size() > added ? units.ids[u].size() - added : 0;
}

// A hypothesis' tokens besides </s>.
std::size_t target_tokens(const search::Hypothesis& h, std::int32_t eos) {
  return h.ids.size() - (!h.ids.empty() && h.ids.back() == eos ? 1 : 0);
}

// Each unit's hypotheses as they come in from the workers, and each line put together and handed
// to `done` when its last unit is in (Translator::translate_each). Thread-safe: one worker at a
// time finishes units, notes, and calls `done`.
class LineAssembly {
 public:
  LineAssembly(Units& units, std::vector<InputNotes>& notes, const Translator::LineDone& done,
               const model::Model& model, const TranslateOptions& options, bool can_align)
      : units_(units), notes_(notes), done_(done), model_(model), options_(options),
        can_align_(can_align), found_(units.ids.size()), kept_(units.ids.size()),
        first_unit_(notes.size(), 0), pending_(notes.size(), 0) {
    for (std::size_t u = units.line.size(); u-- > 0;) {
      first_unit_[units.line[u]] = u;
      ++pending_[units.line[u]];
    }
    line_units_ = pending_;
  }

  // The lines with nothing to translate (blank), until `stopped()`.
  template <typename Stopped>
  void finish_blank_lines(const Stopped& stopped) {
    for (std::size_t i = 0; i < pending_.size() && !stopped(); ++i)
      if (pending_[i] == 0) done_(i, Translation{}, notes_[i]);
  }

  // Unit `u`'s hypotheses; the last of its line's units puts the line together.
  void finish_unit(std::size_t u, std::vector<search::Hypothesis> hypotheses) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t line = units_.line[u];
    // A masked line of several units whose alignment was not asked for keeps each finished
    // unit's hard pairs instead of its rows until the line is joined: rows of a long line's
    // hundreds of pieces would take hundreds of megabytes (they only place the line's spans).
    if (units_.is_protected(u) && !options_.alignment.on() && line_units_[line] > 1)
      for (search::Hypothesis& h : hypotheses) {
        kept_[u].push_back(hard_alignment(h.alignment, units_.ids[u].size(), 1.0f));
        h.alignment = {};
      }
    found_[u] = std::move(hypotheses);
    if (--pending_[line] == 0) done_(line, assemble(line), notes_[line]);
  }

  // Unit `u`'s translation is still short (TranslateOptions::short_translations).
  void note_short(std::size_t u, std::size_t translated_tokens, bool searched_again) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t line = units_.line[u];
    notes_[line].short_units.push_back({u - first_unit_[line], unit_source_tokens(units_, u),
                                        translated_tokens, searched_again});
  }

  // Unit `u`'s glossary constraints were not met: it was translated without them.
  void note_glossary_fallback(std::size_t u) {
    const std::lock_guard<std::mutex> lock(mutex_);
    notes_[units_.line[u]].glossary_fallback = true;
  }

 private:
  // Line `line` from its units' hypotheses (joined when several), its masked spans put back.
  Translation assemble(std::size_t line) {
    const std::size_t first = first_unit_[line];
    std::size_t end = first;
    while (end < found_.size() && units_.line[end] == line) ++end;
    const bool masked = units_.protection[line].active();
    // The alignment as asked, or a hard one to put masked spans back by.
    AlignmentOutput alignment = options_.alignment;
    if (masked && can_align_ && alignment.kind != AlignmentOutput::Kind::hard)
      alignment = {AlignmentOutput::Kind::hard, 1.0f};
    Translation translation =
        end - first > 1 || notes_[line].long_line == InputNotes::LongLine::split
            ? join_line(found_, kept_, units_, first, end, model_, options_, alignment, notes_[line])
            : single_unit(first, alignment.on());
    if (masked)
      put_back_masked(translation, units_.protection[line], model_.codec(),
                      options_.alignment.on(), notes_[line]);
    return translation;
  }

  // The translation of a line that is one unit, `u`.
  Translation single_unit(std::size_t u, bool with_source) {
    Translation translation;
    translation.hypotheses = std::move(found_[u]);
    if (with_source) {
      translation.source.ids = units_.ids[u];
      translation.source.text = std::move(units_.text[u]);
      translation.source.pieces = {units_.piece[u]};
      translation.source.pieces.back().end = translation.source.ids.size();
    }
    return translation;
  }

  Units& units_;
  std::vector<InputNotes>& notes_;
  const Translator::LineDone& done_;
  const model::Model& model_;
  const TranslateOptions& options_;
  const bool can_align_;
  std::mutex mutex_;
  std::vector<std::vector<search::Hypothesis>> found_;  // each unit's, once searched
  std::vector<std::vector<AlignmentPairs>> kept_;       // see finish_unit
  std::vector<std::size_t> first_unit_;  // each line's first unit
  std::vector<std::size_t> pending_;     // each line's units still to translate
  std::vector<std::size_t> line_units_;  // each line's units
};

// One run of the model: `count` units of a batch (Translator::translate_each).
struct Job {
  const std::size_t* members;
  std::size_t count;
};

// For `workers` workers: each run of `workers` consecutive batches (similar lengths, as
// make_batches sorts them) is pooled and dealt out again row by row into `workers` batches, so
// that the batches a window's workers take side by side are equally long and none waits long at
// the window's end; a window of fewer lines than workers gets one batch per line.
std::vector<std::vector<std::size_t>> deal_for_workers(
    const std::vector<std::vector<std::size_t>>& batches, std::size_t workers) {
  std::vector<std::vector<std::size_t>> dealt;
  for (std::size_t first = 0; first < batches.size(); first += workers) {
    std::vector<std::size_t> pool;
    for (std::size_t b = first; b < std::min(batches.size(), first + workers); ++b)
      pool.insert(pool.end(), batches[b].begin(), batches[b].end());
    const std::size_t hands = std::min(workers, pool.size());
    const std::size_t base = dealt.size();
    dealt.resize(base + hands);
    for (std::size_t i = 0; i < pool.size(); ++i) dealt[base + i % hands].push_back(pool[i]);
  }
  return dealt;
}

// The team's threads take the jobs in order, one at a time, until none is left or `stopped()`.
// The first job's error (in job order) is rethrown.
template <typename Run, typename Stopped>
void run_jobs(const std::vector<Job>& jobs, WorkerTeam& team, const Run& run,
              const Stopped& stopped) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(jobs.size());
  team.run([&] {
    for (std::size_t j; (j = next.fetch_add(1)) < jobs.size() && !stopped();) {
      try {
        run(jobs[j]);
      } catch (...) {
        errors[j] = std::current_exception();
        next = jobs.size();  // the others finish their job and stop
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}


// The search of one job's units (a batch): encoded, searched (beam search or sampling), the
// glossary's fallback and the retry of short translations; each unit's hypotheses then go to
// the LineAssembly.
class JobRunner {
 public:
  JobRunner(const model::Model& model, const TranslateOptions& options, bool glossary,
            bool can_align, const Units& units, LineAssembly& assembly,
            const std::atomic<bool>* stop)
      : model_(model), options_(options), glossary_(glossary), can_align_(can_align),
        units_(units), assembly_(assembly), stop_(stop) {}

  void run(const Job& job, search::SearchWorkspace& workspace) const {
    const std::vector<std::size_t> members(job.members, job.members + job.count);
    // With alignment rows when a unit has masked spans, to put them back by.
    search::SearchOptions options = options_.search;
    for (std::size_t u : members) options.alignment |= can_align_ && units_.is_protected(u);
    std::vector<std::vector<search::Hypothesis>> found =
        search_units(members, options, glossary_, workspace);
    if (found.size() != members.size()) return;  // stopped during the search
    if (sampling()) return finish(members, found);
    if (!fall_back_unconstrained(members, options, found, workspace)) return;  // stopped
    if (!retry_short(members, options, found, workspace)) return;              // stopped
    finish(members, found);
  }

 private:
  bool sampling() const { return options_.search.sampling.kind != search::Sampling::Kind::off; }

  // Units `members` as one batch, encoded and searched with `options`, each with its prefix, and
  // with its loop guard (beam search), its glossary constraints (`constrained`) or its seed
  // (sampling: each sentence's samples depend on the seed and its own source only). Fewer
  // results than units: stopped.
  std::vector<std::vector<search::Hypothesis>> search_units(
      const std::vector<std::size_t>& members, const search::SearchOptions& options,
      bool constrained, search::SearchWorkspace& workspace) const {
    search::SearchRequest request(options);
    request.stop = stop_;
    std::vector<std::vector<std::int32_t>> sources;
    for (std::size_t u : members) {
      sources.push_back(units_.ids[u]);
      if (options_.target_prefix || !options_.target_start.empty())
        request.prefixes.push_back(units_.prefix[u]);
      if (constrained) request.constraints.push_back(units_.constraints[u]);
      if (sampling())
        request.seeds.push_back(search::sentence_seed(
            static_cast<std::uint64_t>(options_.search.seed), units_.ids[u]));
      else  // the pieces of a sentence over the limit (search/beam.h); whole sentences never
        request.guard_loops.push_back(units_.guard_loops[u]);
    }
    const batch::Batch batch = batch::make_batch(sources, model_.config().source_eos_id);
    const model::EncoderOutput encoded =
        model_.encoder().forward(batch.ids, batch.lengths, *model_.workspaces().lease());
    return sampling() ? search::sample_search(model_, encoded, request, workspace)
                      : search::beam_search(model_, encoded, request, workspace);
  }

  // Units whose constraints were not met within the length limit (an empty result) get the
  // unconstrained search, as a batch of their own. Returns false when stopped.
  bool fall_back_unconstrained(const std::vector<std::size_t>& members,
                               const search::SearchOptions& options,
                               std::vector<std::vector<search::Hypothesis>>& found,
                               search::SearchWorkspace& workspace) const {
    std::vector<std::size_t> unmet, unmet_units;
    for (std::size_t k = 0; k < members.size(); ++k)
      if (glossary_ && !units_.constraints[members[k]].empty() && found[k].empty()) {
        unmet.push_back(k);
        unmet_units.push_back(members[k]);
      }
    if (unmet.empty()) return true;
    auto plain = search_units(unmet_units, options, false, workspace);
    if (plain.size() != unmet.size()) return false;
    for (std::size_t j = 0; j < unmet.size(); ++j) {
      found[unmet[j]] = std::move(plain[j]);
      assembly_.note_glossary_fallback(unmet_units[j]);
    }
    return true;
  }

  // Whether unit `u`'s best translation `h` is implausibly short (short_translation); only one
  // that ended (</s>): one cut at the length limit was not given up.
  bool is_short(std::size_t u, const search::Hypothesis& h) const {
    const std::int32_t eos = model_.config().eos_id;
    return !h.ids.empty() && h.ids.back() == eos &&
           short_translation(unit_source_tokens(units_, u), target_tokens(h, eos));
  }

  // Units whose best translation is implausibly short are searched again with a wider beam and
  // length normalisation (a beam that settles on an early </s> is how a sentence usually loses a
  // clause; TranslateOptions::short_translations "retry"); the longer best translation is kept,
  // and a unit still short is noted. Constrained units are left as they are. Returns false when
  // stopped.
  bool retry_short(const std::vector<std::size_t>& members, const search::SearchOptions& options,
                   std::vector<std::vector<search::Hypothesis>>& found,
                   search::SearchWorkspace& workspace) const {
    if (options_.short_translations == "off") return true;
    std::vector<std::size_t> rows, short_units;
    for (std::size_t k = 0; k < members.size(); ++k)
      if (!(glossary_ && !units_.constraints[members[k]].empty()) && !found[k].empty() &&
          is_short(members[k], found[k].front())) {
        rows.push_back(k);
        short_units.push_back(members[k]);
      }
    if (rows.empty()) return true;
    const bool retry = options_.short_translations == "retry";
    std::vector<std::vector<search::Hypothesis>> again(rows.size());
    if (retry) {
      search::SearchOptions wider = options;
      wider.beam_size = std::max<dim_t>(2 * wider.beam_size, 8);
      wider.normalize = std::max(wider.normalize, 1.0f);
      again = search_units(short_units, wider, false, workspace);
      if (again.size() != rows.size()) return false;
    }
    const std::int32_t eos = model_.config().eos_id;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      std::vector<search::Hypothesis>& first = found[rows[j]];
      if (!again[j].empty() &&
          target_tokens(again[j].front(), eos) > target_tokens(first.front(), eos))
        first = std::move(again[j]);
      if (is_short(short_units[j], first.front()))
        assembly_.note_short(short_units[j], target_tokens(first.front(), eos), retry);
    }
    return true;
  }

  // The hypotheses without the forced start tokens, to the assembly.
  void finish(const std::vector<std::size_t>& members,
              std::vector<std::vector<search::Hypothesis>>& found) const {
    for (std::size_t k = 0; k < members.size(); ++k) {
      for (search::Hypothesis& h : found[k])
        drop_start(h, options_.target_start.size(), units_.ids[members[k]].size());
      assembly_.finish_unit(members[k], std::move(found[k]));
    }
  }

  const model::Model& model_;
  const TranslateOptions& options_;
  const bool glossary_;  // units carry glossary constraints
  const bool can_align_;
  const Units& units_;
  LineAssembly& assembly_;
  const std::atomic<bool>* stop_;
};

// The jobs of `units`: batches of similar lengths (dealt out among `workers`), each cut to rows
// whose encoder attention scores stay within kScoreBytes, longest first. `batches` keeps the
// unit lists that the jobs point into.
std::vector<Job> plan_jobs(const Units& units, std::size_t workers, std::size_t heads,
                           const batch::BatchLimits& limits,
                           std::vector<std::vector<std::size_t>>& batches) {
  std::vector<std::size_t> lengths;
  for (const auto& ids : units.ids) lengths.push_back(ids.size());
  batches = batch::make_batches(lengths, limits);
  if (workers > 1) batches = deal_for_workers(batches, workers);
  std::vector<Job> jobs;
  for (const std::vector<std::size_t>& members : batches) {
    // The encoder's attention scores take rows × heads × length² floats: long sentences (up to
    // the limit, 256 tokens by default) go a few rows at a time. Results do not depend on
    // batching.
    std::size_t longest = 1;
    for (std::size_t m : members) longest = std::max(longest, lengths[m]);
    const std::size_t rows =
        std::max<std::size_t>(1, kScoreBytes / (heads * longest * longest * sizeof(float)));
    for (std::size_t start = 0; start < members.size(); start += rows)
      jobs.push_back({members.data() + start, std::min(rows, members.size() - start)});
  }
  // Longest batches first. Every per-worker buffer (encoder scratch, key/value caches) then
  // reaches its largest size at the first job and is never allocated and page-faulted in again,
  // where shortest-first grew them batch after batch; and workers that take jobs in this order
  // end a window on its shortest jobs, so that neither waits long for the other (longest
  // processing time first). Batches are the same, so are the results.
  std::reverse(jobs.begin(), jobs.end());
  return jobs;
}

}  // namespace

void Translator::translate_each(const std::vector<std::string>& lines, const LineDone& done,
                                std::size_t first_line_number, const std::atomic<bool>* stop,
                                const ParallelOptions& parallel) const {
  std::vector<InputNotes> notes;
  const UnitMaker maker{model_->codec(), options_, limit_, *splitter_,
                        options_.sentence_split != "off", glossary_.get(),
                        model_->config().source_eos_id, model_->config().eos_id,
                        model_->config().unk_id, multilingual_,
                        ProtectionSettings{options_.protect, options_.html}};
  Units units = maker.make(lines, first_line_number, notes);
  const auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  LineAssembly assembly(units, notes, done, *model_, options_, can_align_);
  assembly.finish_blank_lines(stopped);
  const std::size_t workers = static_cast<std::size_t>(std::max(parallel.workers, 1));
  std::vector<std::vector<std::size_t>> batches;
  const std::vector<Job> jobs =
      plan_jobs(units, workers, static_cast<std::size_t>(std::max<dim_t>(model_->config().heads, 1)),
                {options_.batch_size, options_.batch_tokens}, batches);
  const JobRunner runner(*model_, options_, glossary_ != nullptr, can_align_, units, assembly, stop);
  const auto run = [&](const Job& job) {
    const search::WorkspacePool::Lease workspace = workspaces_->lease();
    runner.run(job, *workspace);
  };
  if (workers == 1) {
    for (const Job& job : jobs) {
      if (stopped()) return;
      run(job);
    }
  } else if (parallel.team != nullptr) {
    S2S_CHECK(parallel.team->size() == parallel.workers, "a team of ", parallel.team->size(),
              " threads for ", parallel.workers, " workers");
    run_jobs(jobs, *parallel.team, run, stopped);
  } else {
    WorkerTeam team(static_cast<int>(std::min(workers, jobs.size())), parallel.threads_per_worker);
    run_jobs(jobs, team, run, stopped);
  }
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines,
                                               std::size_t first_line_number,
                                               std::vector<InputNotes>* notes,
                                               const std::atomic<bool>* stop) const {
  std::vector<Translation> results(lines.size());
  std::vector<char> finished(lines.size(), 0);
  if (notes != nullptr) notes->assign(lines.size(), InputNotes{});
  translate_each(
      lines,
      [&](std::size_t i, Translation translation, const InputNotes& note) {
        results[i] = std::move(translation);
        finished[i] = 1;
        if (notes != nullptr) (*notes)[i] = note;
      },
      first_line_number, stop);
  // Stopped: keep the lines before the first one not translated.
  const std::size_t complete = static_cast<std::size_t>(
      std::find(finished.begin(), finished.end(), 0) - finished.begin());
  results.resize(complete);
  return results;
}

}  // namespace s2s::pipeline
