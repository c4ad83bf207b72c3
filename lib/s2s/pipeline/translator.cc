#include "s2s/pipeline/translator.h"

#include <algorithm>

#include "s2s/batch/batch.h"
#include "s2s/batch/batcher.h"
#include "s2s/search/beam.h"
#include "s2s/search/scoring_rules.h"

namespace s2s {
namespace {

const std::string kWordMark = "\xe2\x96\x81";  // '▁', SentencePiece's word-boundary mark

// Most bytes of encoder attention scores per batch (see translate()).
constexpr std::size_t kScoreBytes = std::size_t{64} << 20;

// A line's own leading ">>xxx<<" label when the model knows it, else "".
std::string leading_label(const std::string& line, const text::Vocabulary& vocab) {
  if (line.rfind(">>", 0) != 0) return {};
  const std::size_t end = line.find_first_of(" \t");
  const std::string word = line.substr(0, end);
  if (word.size() < 5 || word.compare(word.size() - 2, 2, "<<") != 0) return {};
  return vocab.contains(word) ? word : std::string();
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
             " pieces, translated separately and joined";
    case InputNotes::LongLine::truncated:
      return head + ": truncated to its first " + std::to_string(limit.tokens) + " tokens";
    case InputNotes::LongLine::no:
      break;
  }
  return {};
}

Translator::Translator(std::shared_ptr<const Model> model, TranslateOptions options)
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
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines,
                                               std::size_t first_line_number,
                                               std::vector<InputNotes>* notes_out,
                                               const std::atomic<bool>* stop) const {
  const text::TextCodec& codec = model_->codec();
  const std::int32_t source_eos = model_->config().source_eos_id;
  const std::size_t limit = limit_.tokens;
  std::vector<Translation> results(lines.size());
  std::vector<InputNotes> local_notes;
  std::vector<InputNotes>& all_notes = notes_out != nullptr ? *notes_out : local_notes;
  all_notes.assign(lines.size(), InputNotes{});

  // Units: what the model translates, one per line, or one per piece of a split line.
  std::vector<std::vector<std::int32_t>> ids;
  std::vector<std::size_t> unit_line;
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    InputNotes& notes = all_notes[i];
    notes.invalid_utf8 = clean_text(lines[i], text).invalid_utf8;
    if (is_blank(text)) continue;
    const std::string& label = options_.target_label;
    const std::string full = label.empty() ? text : label + " " + text;
    // A huge line is counted in parts (input_text.h count_in_chunks): SentencePiece would need
    // hundreds of megabytes to encode a megabyte at once.
    std::vector<std::int32_t> line_ids;
    ChunkedCount chunked;
    if (full.size() <= kCountBytes) {
      line_ids = codec.encode_source(full);
      chunked.tokens = line_ids.size();
    } else {
      chunked = count_in_chunks(full, limit, [&](const std::string& s) {
        return codec.encode_source(s).size();
      });
      if (chunked.tokens <= limit) line_ids = codec.encode_source(full);
    }
    if (chunked.tokens <= limit) {
      ids.push_back(std::move(line_ids));
      unit_line.push_back(i);
      continue;
    }
    notes.source_tokens = chunked.tokens;
    const std::size_t line_number = first_line_number + i;
    switch (options_.long_lines) {
      case LongLines::fail:
        throw InputError(too_long_message(line_number, chunked.tokens, limit_) +
                         "; --long-lines split or truncate would translate it");
      case LongLines::truncate:
        if (line_ids.empty()) line_ids = codec.encode_source(full.substr(0, chunked.over_at));
        crop(line_ids, limit, source_eos);
        ids.push_back(std::move(line_ids));
        unit_line.push_back(i);
        notes.long_line = InputNotes::LongLine::truncated;
        continue;
      case LongLines::split:
        break;
    }
    // Every piece gets the label the line had, given or its own.
    std::string prefix = label;
    std::string_view body = text;
    if (prefix.empty()) {
      prefix = leading_label(text, codec.source_vocab());
      if (!prefix.empty()) body.remove_prefix(prefix.size());
    }
    if (!prefix.empty()) prefix += ' ';
    const TokenCounter count = [&](const std::string& s) {
      return codec.encode_source(prefix + s).size();
    };
    const std::vector<std::string> pieces = split_to_limit(body, limit, count);
    for (const std::string& piece : pieces) {
      std::vector<std::int32_t> piece_ids = codec.encode_source(prefix + piece);
      crop(piece_ids, limit, source_eos);  // only when one character alone is over the limit
      ids.push_back(std::move(piece_ids));
      unit_line.push_back(i);
    }
    notes.long_line = InputNotes::LongLine::split;
    notes.pieces = pieces.size();
  }

  std::vector<std::vector<Hypothesis>> found(ids.size());
  std::vector<char> unit_done(ids.size(), 0);
  std::vector<std::size_t> lengths;
  for (const auto& s : ids) lengths.push_back(s.size());
  const BatchLimits limits{options_.batch_size, options_.batch_tokens};
  const auto run = [&](const std::size_t* members, std::size_t count) {
    std::vector<std::vector<std::int32_t>> sequences;
    for (std::size_t k = 0; k < count; ++k) sequences.push_back(ids[members[k]]);
    const Batch batch = make_batch(sequences, source_eos);
    const EncoderOutput encoded = model_->encoder().forward(batch.ids, batch.lengths);
    std::vector<std::vector<Hypothesis>> batch_found =
        beam_search(*model_, encoded, options_.search);
    for (std::size_t k = 0; k < count; ++k) {
      found[members[k]] = std::move(batch_found[k]);
      unit_done[members[k]] = 1;
    }
  };
  const auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  const std::size_t heads = static_cast<std::size_t>(std::max<dim_t>(model_->config().heads, 1));
  for (const std::vector<std::size_t>& members : make_batches(lengths, limits)) {
    // The encoder's attention scores take rows × heads × length² floats: long sentences (up to
    // the limit, 1000 tokens by default) go a few rows at a time so that they stay within
    // kScoreBytes. Results do not depend on batching.
    std::size_t longest = 1;
    for (std::size_t m : members) longest = std::max(longest, lengths[m]);
    const std::size_t rows =
        std::max<std::size_t>(1, kScoreBytes / (heads * longest * longest * sizeof(float)));
    for (std::size_t start = 0; start < members.size() && !stopped(); start += rows)
      run(members.data() + start, std::min(rows, members.size() - start));
    if (stopped()) break;
  }
  // Stopped: keep the lines before the first unit not translated (blank lines need none).
  std::size_t complete_lines = lines.size();
  for (std::size_t u = 0; u < unit_done.size(); ++u) {
    if (!unit_done[u]) {
      complete_lines = unit_line[u];
      break;
    }
  }
  found.resize(static_cast<std::size_t>(
      std::find_if(unit_line.begin(), unit_line.end(),
                   [&](std::size_t line) { return line >= complete_lines; }) -
      unit_line.begin()));
  results.resize(complete_lines);

  // Back into input slots; the pieces of a split line (consecutive units) joined.
  const text::Vocabulary& target_vocab = codec.target_vocab();
  const std::int32_t eos = model_->config().eos_id;
  const std::int32_t word_mark = target_vocab.contains(kWordMark) ? target_vocab.id_of(kWordMark) : -1;
  for (std::size_t u = 0; u < found.size();) {
    const std::size_t line = unit_line[u];
    std::size_t end = u;
    while (end < found.size() && unit_line[end] == line) ++end;
    if (all_notes[line].long_line != InputNotes::LongLine::split) {
      results[line].hypotheses = std::move(found[u]);
      u = end;
      continue;
    }
    Hypothesis joined;
    std::size_t total = 1;
    for (std::size_t k = u; k < end; ++k)
      if (!found[k].empty()) total += found[k].front().ids.size() + 1;
    joined.ids.reserve(total);
    joined.token_scores.reserve(total);
    bool ended = false;  // the last piece's hypothesis ended with </s>
    float eos_score = 0.0f;
    for (; u < end; ++u) {
      if (found[u].empty()) continue;
      const Hypothesis& h = found[u].front();
      std::size_t n = h.ids.size();
      ended = n > 0 && h.ids[n - 1] == eos;
      if (ended) eos_score = h.token_scores[--n];
      if (n > 0) {
        if (!joined.ids.empty() && word_mark >= 0 &&
            target_vocab.piece(h.ids[0]).compare(0, kWordMark.size(), kWordMark) != 0) {
          joined.ids.push_back(word_mark);
          joined.token_scores.push_back(0.0f);
        }
        joined.ids.insert(joined.ids.end(), h.ids.begin(),
                          h.ids.begin() + static_cast<std::ptrdiff_t>(n));
        joined.token_scores.insert(joined.token_scores.end(), h.token_scores.begin(),
                                   h.token_scores.begin() + static_cast<std::ptrdiff_t>(n));
        all_notes[line].piece_ends.push_back(joined.ids.size());
      }
      std::vector<Hypothesis>().swap(found[u]);  // a huge line's pieces: memory back at once
    }
    if (ended) {  // the line's translation ends as its last piece's does
      joined.ids.push_back(eos);
      joined.token_scores.push_back(eos_score);
    }
    for (float s : joined.token_scores) joined.score += s;
    joined.normalized_score = normalized_score(joined.score, joined.ids.size(), options_.search);
    results[line].hypotheses.push_back(std::move(joined));
  }
  return results;
}

}  // namespace s2s
