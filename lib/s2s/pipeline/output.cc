#include "s2s/pipeline/output.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "s2s/core/strings.h"

namespace s2s::pipeline {
namespace {

// Keys keep the order they were written in, so "translation" comes first for a reader.
using Json = nlohmann::ordered_json;

// JSON numbers for float scores: the shortest decimal that reads back as the same float, so a
// score prints as -1.23457 rather than its double expansion -1.2345699071884155.
double json_number(float value) {
  if (!std::isfinite(value)) return value;  // nlohmann writes null for these
  char text[32];
  for (int digits = 6; digits < 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) return std::strtod(text, nullptr);
  }
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
  return std::strtod(text, nullptr);
}

// {"score", "normalized_score", "tokens", "token_scores"} of one target, into `record`.
void add_scores(const text::TextCodec& codec, const std::vector<std::int32_t>& ids, float score,
                float normalized_score, const std::vector<float>& scores, Json& record) {
  record["score"] = json_number(score);
  record["normalized_score"] = json_number(normalized_score);
  Json tokens = Json::array();
  Json token_scores = Json::array();
  for (std::int32_t id : ids) tokens.push_back(codec.target_vocab().piece(id));
  for (float s : scores) token_scores.push_back(json_number(s));
  record["tokens"] = std::move(tokens);
  record["token_scores"] = std::move(token_scores);
}

// [[source, target], ...]
Json pairs_json(const AlignmentPairs& pairs) {
  Json list = Json::array();
  for (const auto& [s, t] : pairs) list.push_back(Json::array({s, t}));
  return list;
}

// jsonl "piece_alignment", then with a hard alignment "alignment" (word pairs) and
// "alignment_spans" (characters, when the words match the text; alignment.h word_alignment).
void add_alignment(const TargetAlignment& a, const AlignmentOutput& alignment, Json& record) {
  if (alignment.kind == AlignmentOutput::Kind::soft) {
    Json list = Json::array();
    for (const std::vector<float>& row : a.soft) {
      Json weights = Json::array();
      for (float w : row) weights.push_back(json_number(w));
      list.push_back(std::move(weights));
    }
    record["piece_alignment"] = std::move(list);
  } else {
    record["piece_alignment"] = pairs_json(a.pieces);
  }
  if (!a.has_words) return;
  Json pairs_list = Json::array(), spans = Json::array();
  for (const auto& [s, t] : a.words.pairs) pairs_list.push_back(Json::array({s, t}));
  for (const auto& sp : a.words.spans)
    spans.push_back(Json::array({Json::array({sp[0], sp[1]}), Json::array({sp[2], sp[3]})}));
  record["alignment"] = std::move(pairs_list);
  if (!a.words.spans.empty() || a.words.pairs.empty()) record["alignment_spans"] = std::move(spans);
}

// A line with masked spans (Translation::texts): "alignment_spans" over the line and the text with
// its spans put back, not over what the model read; none with --html (its text is not the
// printed HTML).
void masked_spans(const Translation& translation, std::size_t k, Json& record) {
  record.erase("alignment_spans");
  if (!record.contains("alignment") || k >= translation.text_alignment.size()) return;
  Json spans = Json::array();
  for (const auto& sp : translation.text_alignment[k])
    spans.push_back(Json::array({Json::array({sp[0], sp[1]}), Json::array({sp[2], sp[3]})}));
  record["alignment_spans"] = std::move(spans);
}

// The jsonl record of hypothesis `k` of `translation` (a blank input line: none).
Json hypothesis_json(const OutputFormatter& formatter, const text::TextCodec& codec,
                     const Translation& translation, std::size_t k) {
  Json record = Json::object();
  const search::Hypothesis* hypothesis =
      k < translation.hypotheses.size() ? &translation.hypotheses[k] : nullptr;
  if (hypothesis == nullptr) {
    record["translation"] = "";
    record["score"] = 0;
    record["normalized_score"] = 0;
    record["tokens"] = Json::array();
    record["token_scores"] = Json::array();
  } else {
    record["translation"] = formatter.hypothesis_text(translation, k);
    add_scores(codec, hypothesis->ids, hypothesis->score, hypothesis->normalized_score,
               hypothesis->token_scores, record);
  }
  if (formatter.alignment().on()) {
    if (hypothesis == nullptr)
      record["piece_alignment"] = Json::array();
    else
      add_alignment(target_alignment(codec, formatter.alignment(), translation.source,
                                     hypothesis->ids, record["translation"].get<std::string>(),
                                     hypothesis->alignment,
                                     translation.split ? &translation.units[k].alignment : nullptr),
                    formatter.alignment(), record);
    if (hypothesis != nullptr && !translation.texts.empty()) masked_spans(translation, k, record);
  }
  return record;
}

// One JSON line; invalid UTF-8 in a piece must not abort the run: replaced with U+FFFD.
void append_json_line(const Json& record, std::string& out) {
  out += record.dump(-1, ' ', false, Json::error_handler_t::replace);
  out += '\n';
}

}  // namespace

TargetAlignment target_alignment(const text::TextCodec& codec, const AlignmentOutput& alignment,
                                 const AlignedSource& source,
                                 const std::vector<std::int32_t>& target_ids,
                                 const std::string& target_text, const std::vector<float>& rows,
                                 const AlignmentPairs* pairs) {
  TargetAlignment a;
  const std::size_t targets = target_ids.size();
  const std::size_t sources = alignment_sources(rows, targets);
  if (pairs != nullptr)
    a.pieces = *pairs;
  else if (alignment.kind == AlignmentOutput::Kind::soft)
    for (std::size_t t = 0; sources > 0 && t < targets; ++t)
      a.soft.emplace_back(rows.begin() + static_cast<std::ptrdiff_t>(t * sources),
                          rows.begin() + static_cast<std::ptrdiff_t>((t + 1) * sources));
  else
    a.pieces = hard_alignment(rows, sources, alignment.threshold);
  if (alignment.kind != AlignmentOutput::Kind::hard || source.ids.empty()) return a;
  a.has_words = true;
  a.words = word_alignment(
      pairs != nullptr ? *pairs : hard_alignment(rows, source.ids.size(), alignment.threshold),
      source, codec.source_vocab(), target_ids, codec.target_vocab(), target_text);
  return a;
}

const char* output_format_name(OutputFormat format) {
  return kOutputFormatNames[static_cast<std::size_t>(format)];
}

std::optional<OutputFormat> parse_output_format(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kOutputFormatNames); ++i)
    if (name == kOutputFormatNames[i]) return static_cast<OutputFormat>(i);
  return std::nullopt;
}

std::string marian_float(float value) {
  // Marian's OutputPrinter writes floats to a std::stringstream with its default flags:
  // precision 6, neither fixed nor scientific, which is printf's %g.
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
  return text;
}

OutputFormatter::OutputFormatter(const text::TextCodec& codec, OutputFormat format,
                                 bool all_hypotheses, TargetText target_text,
                                 AlignmentOutput alignment, bool word_scores)
    : codec_(codec),
      format_(format),
      all_hypotheses_(all_hypotheses),
      target_text_(target_text),
      alignment_(alignment),
      word_scores_(word_scores) {}

std::string OutputFormatter::suffixes(const Translation& translation, std::size_t k) const {
  std::string out = alignment_suffix(translation, k);
  if (!word_scores_) return out;
  out += " ||| WordScores=";
  char score[32];
  for (float s : translation.hypotheses[k].token_scores) {  // Marian: std::fixed, precision 5
    std::snprintf(score, sizeof score, " %.5f", static_cast<double>(s));
    out += score;
  }
  return out;
}

std::string OutputFormatter::alignment_suffix(const Translation& translation,
                                              std::size_t k) const {
  if (!alignment_.on()) return {};
  // A split line's joined hypotheses have no rows: their units' pairs are joined instead.
  if (translation.split) return " ||| " + pairs_text(translation.units[k].alignment);
  const search::Hypothesis& h = translation.hypotheses[k];
  return " ||| " + alignment_text(h.alignment, alignment_sources(h.alignment, h.ids.size()),
                                  alignment_);
}

std::string OutputFormatter::translation_text(const std::vector<std::int32_t>& ids) const {
  if (target_text_ == TargetText::decoded) return codec_.decode_target(ids);
  std::string joined;
  for (const std::string& piece : codec_.target_pieces(ids))
    joined += (joined.empty() ? "" : " ") + piece;
  return joined;
}

std::string OutputFormatter::hypothesis_text(const Translation& translation, std::size_t k) const {
  // Pieces (--no-spm-decode) are the model's own, stand-ins of masked spans included.
  const bool pieces = target_text_ == TargetText::pieces;
  if (!translation.texts.empty() && !pieces) return translation.texts[k];
  // Pieces are separated by one space, within a unit and between two.
  return joined_text(
      translation, k, [this](const std::vector<std::int32_t>& ids) { return translation_text(ids); },
      pieces ? " " : nullptr);
}

void OutputFormatter::append(const Translation& translation, std::size_t line_id,
                             std::string& out, const InputNotes* notes) const {
  switch (format_) {
    case OutputFormat::text:
      if (!translation.hypotheses.empty())
        out += hypothesis_text(translation, 0) + suffixes(translation, 0);
      out += '\n';
      return;
    case OutputFormat::nbest:
      append_nbest(translation, line_id, out);
      return;
    case OutputFormat::jsonl:
      append_jsonl(translation, notes, out);
      return;
  }
}

void OutputFormatter::append_nbest(const Translation& translation, std::size_t line_id,
                                   std::string& out) const {
  const std::string id = std::to_string(line_id);
  if (translation.hypotheses.empty()) {
    out += id + " ||| " + (alignment_.on() ? " ||| " : "") + (word_scores_ ? " ||| WordScores=" : "") +
           " ||| F0= 0 ||| 0\n";
    return;
  }
  const std::size_t count = all_hypotheses_ ? translation.hypotheses.size() : 1;
  for (std::size_t k = 0; k < count; ++k) {
    const search::Hypothesis& h = translation.hypotheses[k];
    // "F0= " with a space: Marian's form when the score breakdown is kept (it is with --n-best).
    out += id + " ||| " + hypothesis_text(translation, k) + suffixes(translation, k) + " ||| F0= " +
           marian_float(h.score) +
           " ||| " + marian_float(h.normalized_score) + '\n';
  }
}

void OutputFormatter::append_jsonl(const Translation& translation, const InputNotes* notes,
                                   std::string& out) const {
  const auto& hypotheses = translation.hypotheses;
  Json record = hypothesis_json(*this, codec_, translation, 0);
  if (all_hypotheses_) {
    Json list = Json::array();
    for (std::size_t k = 0; k < hypotheses.size(); ++k)
      list.push_back(hypothesis_json(*this, codec_, translation, k));
    record["n_best"] = std::move(list);
  }
  if (notes != nullptr && !notes->short_units.empty()) {
    Json list = Json::array();
    for (const InputNotes::ShortUnit& unit : notes->short_units)
      list.push_back({{"part", unit.unit + 1},
                      {"source_tokens", unit.source_tokens},
                      {"target_tokens", unit.target_tokens}});
    record["short"] = std::move(list);
  }
  append_json_line(record, out);
}

void append_score_jsonl(const text::TextCodec& codec, const PairScore& score, std::string& out,
                        const AlignmentOutput& alignment) {
  Json record = Json::object();
  add_scores(codec, score.target_ids, score.score, score.normalized_score, score.token_scores,
             record);
  if (alignment.on())
    add_alignment(target_alignment(codec, alignment, score.source, score.target_ids,
                                   score.target_text, score.alignment, nullptr),
                  alignment, record);
  append_json_line(record, out);
}

void append_summary_jsonl(const std::string& kind, float value, std::string& out) {
  Json record = Json::object();
  record["summary"] = kind;
  record["value"] = json_number(value);
  append_json_line(record, out);
}

}  // namespace s2s::pipeline
