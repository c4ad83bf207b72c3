#include "s2s/pipeline/translator.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#include "s2s/batch/batch.h"
#include "s2s/batch/batcher.h"
#include "s2s/pipeline/worker_team.h"
#include "s2s/search/beam.h"
#include "s2s/search/sampling.h"
#include "s2s/search/scoring_rules.h"
#include "s2s/text/clean.h"

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

// Keeps the first `limit` ids, the last one </s> again when the sequence ended with it (Marian's
// --max-length-crop).
void crop(std::vector<std::int32_t>& ids, std::size_t limit, std::int32_t eos) {
  if (ids.size() <= limit) return;
  const bool had_eos = !ids.empty() && ids.back() == eos;
  ids.resize(limit);
  if (had_eos && !ids.empty()) ids.back() = eos;
}

}  // namespace

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
      return head + ": truncated to its first " + std::to_string(limit.tokens) + " tokens";
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
  // position table, which Marian clamps for targets (model-formats.md §1.2).
  if (options_.search.max_length <= 0 || options_.search.max_length > options_.max_length)
    options_.search.max_length = options_.max_length;
  if (!options_.glossary_file.empty()) {
    if (options_.target_prefix)
      throw UsageError("--glossary and target prefixes cannot be combined: give one of them");
    if (options_.search.sampling.kind != search::Sampling::Kind::off)
      throw UsageError("--glossary needs beam search: not with --sampling");
    glossary_ = std::make_shared<const Glossary>(Glossary::load(options_.glossary_file));
  }
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

namespace {

// What the model translates: one unit per non-blank line, or one per piece of a split line. A
// line's units are consecutive.
struct Units {
  std::vector<std::vector<std::int32_t>> ids;
  std::vector<std::size_t> line;  // the input line of each unit
  search::Prefixes prefix;        // the target prefix of each unit (empty: none)
  std::vector<search::Constraints> constraints;  // glossary constraints of each unit (or none)
  // With alignment: the cleaned text of each line on its (first) unit, and what each unit is
  // as a piece of its line's AlignedSource.
  std::vector<std::string> text;
  std::vector<AlignedSource::Piece> piece;
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

// The pieces of a line over the limit (split_to_limit), each with the label the line had,
// given or its own, as units of line `line`; returns how many.
std::size_t add_pieces(const std::string& cleaned, std::size_t line, const text::TextCodec& codec,
                       const TranslateOptions& options, std::size_t limit,
                       std::int32_t source_eos, Units& units) {
  std::string prefix = options.target_label;
  std::string_view body = cleaned;
  if (prefix.empty()) {
    prefix = leading_label(cleaned, codec.source_vocab());
    if (!prefix.empty()) body.remove_prefix(prefix.size());
  }
  if (!prefix.empty()) prefix += ' ';
  const TokenCounter count = [&](const std::string& s) {
    return codec.encode_source(prefix + s).size();
  };
  const std::vector<std::string> pieces = split_to_limit(body, limit, count);
  std::size_t at = 0;  // where the piece before ended in body
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const std::string& piece = pieces[k];
    std::vector<std::int32_t> piece_ids = codec.encode_source(prefix + piece);
    crop(piece_ids, limit, source_eos);  // only when one character alone is over the limit
    units.ids.push_back(std::move(piece_ids));
    units.line.push_back(line);
    units.prefix.emplace_back();
    units.constraints.emplace_back();
    units.text.emplace_back(k == 0 && options.alignment.on() ? cleaned : std::string());
    // The pieces are body's trimmed substrings in order, with only whitespace between them: no
    // whitespace before one means a word was cut there.
    const std::size_t start = body.find(piece, at);
    const bool cut_word = k > 0 && start == at;
    at = start == std::string_view::npos ? at : start + piece.size();
    units.piece.push_back({0, !prefix.empty() && (k > 0 || !options.target_label.empty()), cut_word});
  }
  return pieces.size();
}

// Cleans and encodes every line, splitting or truncating those over the limit as
// options.long_lines says, and fills `notes` (one per line).
// The glossary constraints of a cleaned line (pipeline/glossary.h); target terms holding the
// target <unk> are dropped and noted.
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
  note.glossary_unknown = std::move(found.dropped_lines);
  note.glossary_terms = found.phrases.size();
  return search::Constraints(std::move(found.phrases));
}

Units make_units(const std::vector<std::string>& lines, std::size_t first_line_number,
                 const text::TextCodec& codec, const TranslateOptions& options,
                 const TokenLimit& token_limit, std::int32_t source_eos,
                 std::int32_t target_eos, std::int32_t target_unk, const Glossary* glossary,
                 bool multilingual, std::vector<InputNotes>& notes) {
  const std::size_t limit = token_limit.tokens;
  notes.assign(lines.size(), InputNotes{});
  Units units;
  std::string cleaned;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    InputNotes& note = notes[i];
    std::string_view source = lines[i];
    std::vector<std::int32_t> prefix;
    if (options.target_prefix) prefix = take_prefix(source, codec, target_eos, note);
    note.invalid_utf8 += text::clean_text(source, cleaned).invalid_utf8;
    if (is_blank(cleaned)) continue;
    const std::size_t first_unit = units.ids.size();
    note_labels(cleaned, codec, options, multilingual, note);
    const std::string& label = options.target_label;
    const std::string full = label.empty() ? cleaned : label + " " + cleaned;
    std::vector<std::int32_t> line_ids;
    const ChunkedCount chunked = encode_if_fits(full, codec, limit, line_ids);
    search::Constraints constraints =
        glossary_constraints(glossary, cleaned, codec, options, target_eos, target_unk, note);
    if (chunked.tokens <= limit) {
      units.ids.push_back(std::move(line_ids));
      units.line.push_back(i);
      units.prefix.push_back(std::move(prefix));
      units.constraints.push_back(std::move(constraints));
      units.text.push_back(options.alignment.on() ? cleaned : std::string());
      units.piece.push_back({0, !label.empty(), false});
      continue;
    }
    note.source_tokens = chunked.tokens;
    switch (options.long_lines) {
      case LongLines::fail:
        throw InputError(too_long_message(first_line_number + i, chunked.tokens, token_limit) +
                         "; --long-lines split or truncate would translate it");
      case LongLines::truncate:
        if (line_ids.empty()) line_ids = codec.encode_source(full.substr(0, chunked.over_at));
        crop(line_ids, limit, source_eos);
        units.ids.push_back(std::move(line_ids));
        units.line.push_back(i);
        units.prefix.push_back(std::move(prefix));
        units.constraints.push_back(std::move(constraints));
        units.text.emplace_back();  // its words are not all translated: no word mapping
        units.piece.push_back({0, !label.empty(), false});
        note.long_line = InputNotes::LongLine::truncated;
        continue;
      case LongLines::split:
        note.long_line = InputNotes::LongLine::split;
        note.glossary_split = !constraints.empty();
        note.pieces = add_pieces(cleaned, i, codec, options, limit, source_eos, units);
        units.prefix[first_unit] = std::move(prefix);  // the translation starts with it
        continue;
    }
  }
  return units;
}

// The one hypothesis of a split line: its pieces' best hypotheses joined (translator.h), and
// where each piece ends in it (note.piece_ends). With a hard `alignment`, `pairs` gets the joined
// alignment (Translation::split_alignment) from the pieces' rows over source_sizes[k] positions.
search::Hypothesis join_pieces(std::vector<std::vector<search::Hypothesis>>& pieces,
                               const model::Model& model, const search::SearchOptions& search,
                               const AlignmentOutput& alignment,
                               const std::vector<std::size_t>& source_sizes, InputNotes& note,
                               AlignmentPairs& pairs) {
  const text::Vocabulary& target_vocab = model.codec().target_vocab();
  const std::int32_t eos = model.config().eos_id;
  const std::int32_t word_mark =
      target_vocab.contains(kWordMark) ? target_vocab.id_of(kWordMark) : -1;
  search::Hypothesis joined;
  std::size_t total = 1;
  for (const std::vector<search::Hypothesis>& piece : pieces)
    if (!piece.empty()) total += piece.front().ids.size() + 1;
  joined.ids.reserve(total);
  joined.token_scores.reserve(total);
  bool ended = false;  // the last piece's hypothesis ended with </s>
  float eos_score = 0.0f;
  const bool align = alignment.kind == AlignmentOutput::Kind::hard;
  std::vector<std::size_t> eos_sources;  // the sources the last piece's </s> is aligned to
  std::size_t source_offset = 0;
  for (std::size_t k = 0; k < pieces.size(); source_offset += source_sizes[k++]) {
    std::vector<search::Hypothesis>& piece = pieces[k];
    if (piece.empty()) continue;
    const search::Hypothesis& h = piece.front();
    if (h.cut_in_loop) ++note.loops_cut;
    std::size_t n = h.ids.size();
    ended = n > 0 && h.ids[n - 1] == eos;
    if (ended) eos_score = h.token_scores[--n];
    if (n > 0) {
      if (!joined.ids.empty() && word_mark >= 0 &&
          target_vocab.piece(h.ids[0]).compare(0, kWordMark.size(), kWordMark) != 0) {
        joined.ids.push_back(word_mark);
        joined.token_scores.push_back(0.0f);
      }
    }
    if (align) {
      eos_sources.clear();
      for (const auto& [s, t] : hard_alignment(h.alignment, source_sizes[k], alignment.threshold)) {
        if (t < n)
          pairs.emplace_back(s + source_offset, t + joined.ids.size());
        else  // its </s>: the joined hypothesis has one at most, the last piece's
          eos_sources.push_back(s + source_offset);
      }
    }
    if (n > 0) {
      joined.ids.insert(joined.ids.end(), h.ids.begin(),
                        h.ids.begin() + static_cast<std::ptrdiff_t>(n));
      joined.token_scores.insert(joined.token_scores.end(), h.token_scores.begin(),
                                 h.token_scores.begin() + static_cast<std::ptrdiff_t>(n));
      note.piece_ends.push_back(joined.ids.size());
    }
    std::vector<search::Hypothesis>().swap(piece);  // a huge line's pieces: memory back at once
  }
  if (ended) {  // the line's translation ends as its last piece's does
    joined.ids.push_back(eos);
    joined.token_scores.push_back(eos_score);
    for (std::size_t s : eos_sources) pairs.emplace_back(s, joined.ids.size() - 1);
  }
  std::sort(pairs.begin(), pairs.end());
  for (float s : joined.token_scores) joined.score += s;
  joined.normalized_score = search::normalized_score(joined.score, joined.ids.size(), search);
  return joined;
}

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
        run(jobs[j].members, jobs[j].count);
      } catch (...) {
        errors[j] = std::current_exception();
        next = jobs.size();  // the others finish their job and stop
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

void Translator::translate_each(const std::vector<std::string>& lines, const LineDone& done,
                                std::size_t first_line_number, const std::atomic<bool>* stop,
                                const ParallelOptions& parallel) const {
  std::vector<InputNotes> notes;
  Units units = make_units(lines, first_line_number, model_->codec(), options_, limit_,
                           model_->config().source_eos_id, model_->config().eos_id,
                           model_->config().unk_id, glossary_.get(), multilingual_, notes);
  const auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };

  // Each line's first unit and how many of its units are still to translate.
  std::vector<std::size_t> first_unit(lines.size(), 0), pending(lines.size(), 0);
  for (std::size_t u = units.line.size(); u-- > 0;) {
    first_unit[units.line[u]] = u;
    ++pending[units.line[u]];
  }
  for (std::size_t i = 0; i < lines.size() && !stopped(); ++i)
    if (pending[i] == 0) done(i, Translation{}, notes[i]);  // blank: nothing to translate

  std::vector<std::vector<search::Hypothesis>> found(units.ids.size());
  std::mutex finish_mutex;  // workers: one finishes units (and calls `done`) at a time
  const auto finish_unit = [&](std::size_t u, std::vector<search::Hypothesis> hypotheses) {
    const std::lock_guard<std::mutex> lock(finish_mutex);
    found[u] = std::move(hypotheses);
    const std::size_t line = units.line[u];
    if (--pending[line] > 0) return;
    Translation translation;
    if (notes[line].long_line == InputNotes::LongLine::split) {
      std::size_t end = first_unit[line];
      while (end < found.size() && units.line[end] == line) ++end;
      std::vector<std::vector<search::Hypothesis>> pieces(
          std::make_move_iterator(found.begin() + static_cast<std::ptrdiff_t>(first_unit[line])),
          std::make_move_iterator(found.begin() + static_cast<std::ptrdiff_t>(end)));
      std::vector<std::size_t> source_sizes;
      for (std::size_t k = first_unit[line]; k < end; ++k) source_sizes.push_back(units.ids[k].size());
      translation.split = true;
      translation.hypotheses.push_back(join_pieces(pieces, *model_, options_.search,
                                                   options_.alignment, source_sizes, notes[line],
                                                   translation.split_alignment));
      if (options_.alignment.on()) {
        AlignedSource& source = translation.source;
        source.text = std::move(units.text[first_unit[line]]);
        for (std::size_t k = first_unit[line]; k < end; ++k) {
          source.ids.insert(source.ids.end(), units.ids[k].begin(), units.ids[k].end());
          source.pieces.push_back(units.piece[k]);
          source.pieces.back().end = source.ids.size();
        }
      }
    } else {
      translation.hypotheses = std::move(found[u]);
      if (options_.alignment.on()) {
        translation.source.ids = units.ids[u];
        translation.source.text = std::move(units.text[u]);
        translation.source.pieces = {units.piece[u]};
        translation.source.pieces.back().end = translation.source.ids.size();
      }
    }
    done(line, std::move(translation), notes[line]);
  };

  std::vector<std::size_t> lengths;
  for (const auto& s : units.ids) lengths.push_back(s.size());
  const std::int32_t source_eos = model_->config().source_eos_id;
  const auto run = [&](const std::size_t* members, std::size_t count) {
    std::vector<std::vector<std::int32_t>> sequences;
    for (std::size_t k = 0; k < count; ++k) sequences.push_back(units.ids[members[k]]);
    const batch::Batch batch = batch::make_batch(sequences, source_eos);
    const model::EncoderOutput encoded = model_->encoder().forward(batch.ids, batch.lengths);
    // The pieces of a split line are guarded against loops (search/beam.h); whole lines never.
    std::vector<char> guard_loops;
    for (std::size_t k = 0; k < count; ++k)
      guard_loops.push_back(notes[units.line[members[k]]].long_line == InputNotes::LongLine::split);
    search::Prefixes prefixes;
    if (options_.target_prefix)
      for (std::size_t k = 0; k < count; ++k) prefixes.push_back(units.prefix[members[k]]);
    std::vector<std::vector<search::Hypothesis>> batch_found;
    std::vector<search::Constraints> constraints;
    if (glossary_ != nullptr)
      for (std::size_t k = 0; k < count; ++k) constraints.push_back(units.constraints[members[k]]);
    if (options_.search.sampling.kind == search::Sampling::Kind::off) {
      batch_found = search::beam_search(*model_, encoded, options_.search, stop, &guard_loops,
                                        &prefixes, &constraints);
      // Constraints not met within the length limit (an empty result): those lines get the
      // unconstrained search, as a batch of their own.
      std::vector<std::size_t> unmet;
      for (std::size_t k = 0; k < batch_found.size(); ++k)
        if (!constraints.empty() && !constraints[k].empty() && batch_found[k].empty())
          unmet.push_back(k);
      if (!unmet.empty()) {
        std::vector<std::vector<std::int32_t>> again;
        for (std::size_t k : unmet) again.push_back(units.ids[members[k]]);
        const batch::Batch retry = batch::make_batch(again, source_eos);
        const model::EncoderOutput retry_encoded =
            model_->encoder().forward(retry.ids, retry.lengths);
        auto plain = search::beam_search(*model_, retry_encoded, options_.search, stop);
        if (plain.size() != unmet.size()) return;  // stopped during the search
        for (std::size_t j = 0; j < unmet.size(); ++j) {
          batch_found[unmet[j]] = std::move(plain[j]);
          notes[units.line[members[unmet[j]]]].glossary_fallback = true;
        }
      }
    } else {  // each sentence's samples depend on the seed and its own source only
      std::vector<std::uint64_t> seeds;
      for (std::size_t k = 0; k < count; ++k)
        seeds.push_back(search::sentence_seed(static_cast<std::uint64_t>(options_.search.seed),
                                              units.ids[members[k]]));
      batch_found = search::sample_search(*model_, encoded, options_.search, seeds, stop, &prefixes);
    }
    if (batch_found.size() != count) return;  // stopped during the search
    for (std::size_t k = 0; k < count; ++k) finish_unit(members[k], std::move(batch_found[k]));
  };
  const batch::BatchLimits limits{options_.batch_size, options_.batch_tokens};
  const std::size_t heads = static_cast<std::size_t>(std::max<dim_t>(model_->config().heads, 1));
  const std::size_t workers = static_cast<std::size_t>(std::max(parallel.workers, 1));
  std::vector<std::vector<std::size_t>> batches = batch::make_batches(lengths, limits);
  if (workers > 1) batches = deal_for_workers(batches, workers);
  std::vector<Job> jobs;
  for (const std::vector<std::size_t>& members : batches) {
    // The encoder's attention scores take rows × heads × length² floats: long sentences (up to
    // the limit, 256 tokens by default) go a few rows at a time so that they stay within
    // kScoreBytes. Results do not depend on batching.
    std::size_t longest = 1;
    for (std::size_t m : members) longest = std::max(longest, lengths[m]);
    const std::size_t rows =
        std::max<std::size_t>(1, kScoreBytes / (heads * longest * longest * sizeof(float)));
    for (std::size_t start = 0; start < members.size(); start += rows)
      jobs.push_back({members.data() + start, std::min(rows, members.size() - start)});
  }
  // Longest batches first. Every per-thread buffer (encoder scratch, key/value caches) then
  // reaches its largest size at the first job and is never allocated and page-faulted in again,
  // where shortest-first grew them batch after batch; and workers that take jobs in this order
  // end a window on its shortest jobs, so that neither waits long for the other (longest
  // processing time first). Batches are the same, so are the results.
  std::reverse(jobs.begin(), jobs.end());
  if (workers == 1) {
    for (const Job& job : jobs) {
      if (stopped()) return;
      run(job.members, job.count);
    }
    return;
  }
  if (parallel.team != nullptr) {
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
