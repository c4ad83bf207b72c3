#include "s2s/pipeline/glossary.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "s2s/core/error.h"

namespace s2s::pipeline {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// !"#$%&'()*+,-./ :;<=>?@ [\\]^_` {|}~ (bytes of UTF-8 sequences are >= 0x80: never punctuation)
bool is_ascii_punctuation(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

std::string ascii_lower(std::string word) {
  for (char& c : word)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return word;
}

std::vector<std::string> lowered(std::vector<std::string> words, bool ignore_case) {
  if (ignore_case)
    for (std::string& w : words) w = ascii_lower(std::move(w));
  return words;
}

}  // namespace

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_space(text[i])) {
      ++i;
    } else if (is_ascii_punctuation(text[i])) {
      words.emplace_back(1, text[i++]);
    } else {
      const std::size_t start = i;
      while (i < text.size() && !is_space(text[i]) && !is_ascii_punctuation(text[i])) ++i;
      words.emplace_back(text.substr(start, i - start));
    }
  }
  return words;
}

Glossary::Glossary(std::string_view text, const std::string& name) {
  std::size_t number = 0, start = 0;
  while (start <= text.size()) {  // as Python's text.split("\n")
    ++number;
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto fail = [&](const std::string& what) {
      throw InputError(name + ":" + std::to_string(number) + ": " + what);
    };
    if (split_words(line).empty()) continue;
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos)
      fail("expected 'source term<TAB>target term'");
    GlossaryEntry entry;
    entry.source_words = split_words(line.substr(0, tab));
    std::string_view target = line.substr(tab + 1);
    while (!target.empty() && is_space(target.front())) target.remove_prefix(1);
    while (!target.empty() && is_space(target.back())) target.remove_suffix(1);
    if (entry.source_words.empty()) fail("empty source term");
    if (target.empty()) fail("empty target term");
    entry.target = std::string(target);
    entry.line = number;
    entries_.push_back(std::move(entry));
  }
}

Glossary Glossary::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read the glossary " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return Glossary(text.str(), path);
}

std::vector<const GlossaryEntry*> Glossary::match(std::string_view line, bool ignore_case) const {
  const std::vector<std::string> words = lowered(split_words(line), ignore_case);
  std::vector<std::pair<std::size_t, std::size_t>> hits;  // (position, entry)
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    const std::vector<std::string> term = lowered(entries_[e].source_words, ignore_case);
    const std::size_t n = term.size();
    for (std::size_t i = 0; i + n <= words.size(); ++i) {
      if (std::equal(term.begin(), term.end(), words.begin() + static_cast<std::ptrdiff_t>(i))) {
        hits.emplace_back(i, e);
        break;
      }
    }
  }
  std::sort(hits.begin(), hits.end());
  std::vector<const GlossaryEntry*> out;
  for (const auto& hit : hits) out.push_back(&entries_[hit.second]);
  return out;
}

LineConstraints line_constraints(const Glossary& glossary, std::string_view line,
                                 bool ignore_case, const EncodeTarget& encode,
                                 const std::vector<std::int32_t>& drop_ids) {
  LineConstraints out;
  for (const GlossaryEntry* entry : glossary.match(line, ignore_case)) {
    std::vector<std::int32_t> ids = encode(entry->target);
    if (ids.empty()) continue;
    if (std::any_of(ids.begin(), ids.end(), [&](std::int32_t id) {
          return std::find(drop_ids.begin(), drop_ids.end(), id) != drop_ids.end();
        })) {
      out.dropped_lines.push_back(entry->line);
      continue;
    }
    if (std::find(out.phrases.begin(), out.phrases.end(), ids) == out.phrases.end())
      out.phrases.push_back(std::move(ids));
  }
  return out;
}

}  // namespace s2s::pipeline
