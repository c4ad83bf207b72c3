#include "s2s/pipeline/line_assembly.h"

#include <string>
#include <utility>

#include "s2s/search/scoring_rules.h"

namespace s2s::pipeline {
namespace {

const std::string kWordMark = "\xe2\x96\x81";  // '▁', SentencePiece's word-boundary mark

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
    joined.ids.insert(joined.ids.end(), h.ids.begin(),
                      h.ids.begin() + static_cast<std::ptrdiff_t>(n));
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

}  // namespace

LineAssembly::LineAssembly(Units& units, std::vector<InputNotes>& notes,
                           const Translator::LineDone& done, const model::Model& model,
                           const TranslateOptions& options, bool can_align)
    : units_(units),
      notes_(notes),
      done_(done),
      model_(model),
      options_(options),
      can_align_(can_align),
      found_(units.ids.size()),
      kept_(units.ids.size()),
      first_unit_(notes.size(), 0),
      pending_(notes.size(), 0) {
  for (std::size_t u = units.line.size(); u-- > 0;) {
    first_unit_[units.line[u]] = u;
    ++pending_[units.line[u]];
  }
  line_units_ = pending_;
}

void LineAssembly::finish_unit(std::size_t u, std::vector<search::Hypothesis> hypotheses) {
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

void LineAssembly::note_short(std::size_t u, std::size_t translated_tokens, bool searched_again) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t line = units_.line[u];
  notes_[line].short_units.push_back(
      {u - first_unit_[line], unit_source_tokens(units_, u), translated_tokens, searched_again});
}

void LineAssembly::note_glossary_fallback(std::size_t u) {
  const std::lock_guard<std::mutex> lock(mutex_);
  notes_[units_.line[u]].glossary_fallback = true;
}

Translation LineAssembly::assemble(std::size_t line) {
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
    put_back_masked(translation, units_.protection[line], model_.codec(), options_.alignment.on(),
                    notes_[line]);
  return translation;
}

Translation LineAssembly::single_unit(std::size_t u, bool with_source) {
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

}  // namespace s2s::pipeline
