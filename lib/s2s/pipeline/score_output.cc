#include "s2s/pipeline/score_output.h"

#include <cmath>

#include "s2s/core/error.h"

namespace s2s::pipeline {
namespace {

// marian-scorer prints scores with std::to_string (six decimals).
std::string fixed(float v) { return std::to_string(v); }

// Marian's ScoreCollectorNBest: the feature field (the third) gains "NAME= score ".
std::string with_feature(const std::string& line, const std::string& name, float score) {
  std::string out;
  std::size_t pos = 0;
  for (int field = 0; field < 2; ++field) pos = line.find("|||", pos) + 3;
  const std::size_t end = line.find("|||", pos);
  const std::size_t cut = end == std::string::npos ? line.size() : end;
  return line.substr(0, cut) + name + "= " + marian_float(score) + " " + line.substr(cut);
}

}  // namespace

bool is_summary_kind(const std::string& kind) {
  return kind == "cross-entropy" || kind == "ce-mean" || kind == "ce-mean-words" ||
         kind == "ce-sum" || kind == "perplexity";
}

ScoreFormatter::ScoreFormatter(const text::TextCodec& codec, ScoreFormat format)
    : codec_(codec), format_(std::move(format)) {
  S2S_CHECK(format_.summary.empty() || is_summary_kind(format_.summary), "summary kind ",
            format_.summary);
}

void ScoreFormatter::append(const std::vector<PairEntry>& entries,
                            const std::vector<PairScore>& scores, std::string& out) {
  const bool jsonl = !format_.nbest && format_.format == OutputFormat::jsonl;
  std::size_t next = 0;
  for (const PairEntry& e : entries) {
    if (e.skipped) {
      if (format_.summary.empty()) out += jsonl ? "{\"skipped\":true}\n" : "\n";
      continue;
    }
    S2S_CHECK(next < scores.size(), "a score for every pair");
    const PairScore& s = scores[next++];
    cross_entropy_ -= s.score;
    words_ += s.target_ids.size();
    pairs_ += 1;
    if (!format_.summary.empty()) continue;
    if (format_.nbest) {
      out += with_feature(e.nbest_line, format_.nbest_feature, s.normalized_score) + "\n";
    } else if (jsonl) {
      append_score_jsonl(codec_, s, out, format_.alignment);
    } else {
      out += fixed(s.normalized_score);
      if (format_.alignment.on())
        out += " ||| " + alignment_text(s.alignment,
                                        alignment_sources(s.alignment, s.target_ids.size()),
                                        format_.alignment);
      if (format_.word_scores) {
        out += " ||| WordScores=";
        for (float w : s.token_scores) out += " " + fixed(w);
      }
      out += "\n";
    }
  }
}

std::string ScoreFormatter::finish() const {
  if (format_.summary.empty()) return {};
  const std::string& kind = format_.summary;
  const double words = static_cast<double>(words_), pairs = static_cast<double>(pairs_);
  const double value = kind == "ce-sum"          ? cross_entropy_
                       : kind == "ce-mean-words" ? cross_entropy_ / words
                       : kind == "perplexity"    ? std::exp(cross_entropy_ / words)
                                                 : cross_entropy_ / pairs;  // ce-mean
  std::string out;
  if (format_.format == OutputFormat::jsonl)
    append_summary_jsonl(kind, static_cast<float>(value), out);
  else
    out = fixed(static_cast<float>(value)) + "\n";
  return out;
}

}  // namespace s2s::pipeline
