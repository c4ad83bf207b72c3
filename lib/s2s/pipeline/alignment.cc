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

std::vector<std::pair<std::size_t, std::size_t>> hard_alignment(const std::vector<float>& rows,
                                                                std::size_t sources,
                                                                float threshold) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
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
  for (const auto& [s, t] : hard_alignment(rows, sources, alignment.threshold)) {
    if (!out.empty()) out += ' ';
    out += std::to_string(s) + "-" + std::to_string(t);
  }
  return out;
}

}  // namespace s2s::pipeline
