#include "s2s/text/markup.h"

#include <gumbo.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace s2s::text {

namespace {

bool is_void(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_AREA: case GUMBO_TAG_BASE: case GUMBO_TAG_BR: case GUMBO_TAG_COL:
    case GUMBO_TAG_EMBED: case GUMBO_TAG_HR: case GUMBO_TAG_IMG: case GUMBO_TAG_INPUT:
    case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_PARAM: case GUMBO_TAG_SOURCE:
    case GUMBO_TAG_TRACK: case GUMBO_TAG_WBR:
      return true;
    default:
      return false;
  }
}

// Elements whose content is not text to translate: kept whole, as points.
bool is_opaque(GumboTag tag) { return tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE; }

// How many tags `s` holds: '<' before a letter, '/', '!' or '?'.
std::size_t tag_starts(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const char c = s[i + 1];
    n += s[i] == '<' && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/' || c == '!' || c == '?');
  }
  return n;
}

std::string piece(const GumboStringPiece& p) { return std::string(p.data, p.length); }

// The parse tree walked into a MarkupLine; `problem` set on the first sign of ill-formed input.
class Walker {
 public:
  explicit Walker(MarkupLine& line) : line_(line) {}

  // Appends node's text and elements; the new element's index goes to `siblings`.
  void walk(const GumboNode* node, std::vector<std::size_t>& siblings) {
    if (!line_.problem.empty()) return;
    switch (node->type) {
      case GUMBO_NODE_TEXT: case GUMBO_NODE_WHITESPACE: case GUMBO_NODE_CDATA:
        if (break_pending_ && !line_.text.empty() && node->v.text.text[0] != ' ') line_.text += ' ';
        break_pending_ = false;
        line_.text += node->v.text.text;
        return;
      case GUMBO_NODE_COMMENT:
        add_point(piece(node->v.text.original_text), siblings);
        return;
      case GUMBO_NODE_ELEMENT: case GUMBO_NODE_TEMPLATE:
        element(node, siblings);
        return;
      default:
        return;
    }
  }

  // The tags the tree holds, one after another: as many as the line has unless the parser
  // dropped one (gumbo drops a stray end tag without an error).
  const std::string& tags() const { return tags_; }

 private:
  void add_point(std::string text, std::vector<std::size_t>& siblings) {
    tags_ += text;
    line_.boundaries.push_back(line_.text.size());
    MarkupElement e;
    e.open = std::move(text);
    e.begin = e.end = code_point_count(line_.text);
    siblings.push_back(line_.elements.size());
    line_.elements.push_back(std::move(e));
  }

  void element(const GumboNode* node, std::vector<std::size_t>& siblings) {
    const GumboElement& el = node->v.element;
    const char* name = gumbo_normalized_tagname(el.tag);
    if (el.original_tag.length == 0) {
      line_.problem = std::string("<") + name + "> is implied, not written";
      return;
    }
    if (is_void(el.tag)) {
      add_point(piece(el.original_tag), siblings);
      // A line break separates words even where no space does ("one<br>two").
      const bool breaks = el.tag == GUMBO_TAG_BR || el.tag == GUMBO_TAG_HR;
      if (breaks && !line_.text.empty() && line_.text.back() != ' ') break_pending_ = true;
      return;
    }
    if (el.original_end_tag.length == 0) {
      line_.problem = std::string("<") + name + "> is not closed";
      return;
    }
    if (is_opaque(el.tag)) {  // its whole source, start tag to end tag
      const char* begin = el.original_tag.data;
      const char* end = el.original_end_tag.data + el.original_end_tag.length;
      return add_point(std::string(begin, static_cast<std::size_t>(end - begin)), siblings);
    }
    const std::size_t index = line_.elements.size();
    siblings.push_back(index);
    line_.boundaries.push_back(line_.text.size());
    line_.elements.push_back({piece(el.original_tag), piece(el.original_end_tag),
                              code_point_count(line_.text), 0, {}});
    tags_ += line_.elements.back().open;
    std::vector<std::size_t> children;
    for (unsigned i = 0; i < el.children.length; ++i)
      walk(static_cast<const GumboNode*>(el.children.data[i]), children);
    line_.elements[index].children = std::move(children);
    line_.elements[index].end = code_point_count(line_.text);
    line_.boundaries.push_back(line_.text.size());
    tags_ += line_.elements[index].close;
  }

  MarkupLine& line_;
  std::string tags_;
  bool break_pending_ = false;  // after <br> or <hr>: a space before the next text
};

}  // namespace

MarkupLine parse_markup(const std::string& line) {
  GumboOptions options = kGumboDefaultOptions;
  options.fragment_context = GUMBO_TAG_BODY;
  options.fragment_namespace = GUMBO_NAMESPACE_HTML;
  const auto destroy = [&options](GumboOutput* out) { gumbo_destroy_output(&options, out); };
  const std::unique_ptr<GumboOutput, decltype(destroy)> output(
      gumbo_parse_with_options(&options, line.data(), line.size()), destroy);
  MarkupLine result;
  // A fragment's nodes are the children of the <html> element the parser puts around them.
  const GumboElement& root = output->root->v.element;
  Walker walker(result);
  for (unsigned i = 0; i < root.children.length; ++i)
    walker.walk(static_cast<const GumboNode*>(root.children.data[i]), result.top);
  std::string problem = result.problem;
  if (problem.empty() && output->errors.length > 0)
    problem = std::to_string(output->errors.length) + " HTML parse error" +
              (output->errors.length > 1 ? "s" : "");
  if (problem.empty() && tag_starts(walker.tags()) != tag_starts(line))
    problem = "a tag without its match";
  if (!problem.empty()) return MarkupLine{{}, {}, {}, problem, {}};
  return result;
}

ProtectedText protect_markup(const MarkupLine& line, const ProtectOptions& options,
                             std::size_t begin, std::size_t end) {
  end = std::min(end, line.text.size());
  begin = std::min(begin, end);
  const std::string unit = line.text.substr(begin, end - begin);
  std::vector<std::size_t> cuts;  // the tags inside the unit, in its bytes
  for (std::size_t at : line.boundaries)
    if (at > begin && at < end) cuts.push_back(at - begin);
  std::vector<FoundSpan> spans;
  if (options.patterns) {
    std::size_t from = 0;
    cuts.push_back(unit.size());
    for (std::size_t to : cuts) {
      if (to <= from) continue;
      for (FoundSpan span : find_patterns(unit.substr(from, to - from))) {
        span.begin += from;
        span.end += from;
        spans.push_back(span);
      }
      from = to;
    }
    cuts.pop_back();
  }
  return protect_spans(unit, std::move(spans), options, cuts);
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

std::string markup_message(std::size_t line_number, const MarkupLine& line) {
  if (line.problem.empty()) return {};
  return "line " + std::to_string(line_number) + ": not a well-formed HTML fragment (" +
         line.problem + "): translated as text";
}

namespace {

bool in(char32_t c, const char* set) { return c < 0x80 && c != 0 && std::strchr(set, static_cast<int>(c)) != nullptr; }

// Where each element goes in the translation: [begin, end) code points, then written out.
class Renderer {
 public:
  Renderer(const MarkupLine& source, const std::string& translation, const AlignmentSpans& alignment)
      : source_(source), translation_(translation), alignment_(alignment),
        ranges_(source.elements.size()) {
    for (std::size_t i = 0; i < translation.size(); ++i)
      if ((static_cast<unsigned char>(translation[i]) & 0xC0) != 0x80) offsets_.push_back(i);
    offsets_.push_back(translation.size());
    for (std::size_t i = 0; i < source.elements.size(); ++i) place(i);
  }

  std::string render() {
    std::string out;
    emit(source_.top, 0, offsets_.size() - 1, out);
    return out;
  }

 private:
  using Range = std::array<std::size_t, 2>;

  // The target words aligned to the element's source words, else a point where the element
  // stood (after the target of the source word before it). When those words are not side by
  // side, the longest run of adjacent ones: the alignment head often puts a stray word next to
  // the right ones ("Drücken Sie Strg+S zum Speichern." aligns "Sie" and "Speichern." to
  // "Ctrl+S" too), and a tag around all of them would swallow the sentence.
  void place(std::size_t i) {
    const MarkupElement& e = source_.elements[i];
    std::vector<Range> words;  // target words, sorted, distinct
    if (!e.point())
      for (const auto& a : alignment_)
        if (a[1] > e.begin && a[0] < e.end) words.push_back({a[2], a[3]});
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    if (words.empty()) {
      const std::size_t at = point_at(e.begin);
      ranges_[i] = {at, at};
      return;
    }
    std::size_t best = 0, best_length = 0;
    for (std::size_t first = 0, k = 0; k < words.size(); ++k) {
      if (k > 0 && word_index(words[k][0]) != word_index(words[k - 1][0]) + 1) first = k;
      if (k + 1 - first > best_length) {
        best = first;
        best_length = k + 1 - first;
      }
    }
    ranges_[i] = trim(e, {words[best][0], words[best + best_length - 1][1]});
  }

  // How many whitespace-separated words of the translation start before code point `at`.
  std::size_t word_index(std::size_t at) const {
    std::size_t n = 0;
    for (std::size_t cp = 0; cp < at && cp + 1 < offsets_.size(); ++cp)
      if (!is_space_at(cp) && (cp == 0 || is_space_at(cp - 1))) ++n;
    return n;
  }

  bool is_space_at(std::size_t cp) const {
    const char c = translation_[offsets_[cp]];
    return c == ' ' || (c >= '\t' && c <= '\r');
  }

  // Punctuation at the edges of the target words that the element did not enclose in the
  // source stays outside it ("<b>Ctrl+S</b>." not "<b>Ctrl+S.</b>").
  Range trim(const MarkupElement& e, Range r) const {
    const std::string& s = source_.text;
    const auto source_char = [&](std::size_t cp) {  // the first byte of code point cp
      std::size_t n = 0;
      for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == cp) return s[i];
      return '\0';
    };
    const char last = e.end > e.begin ? source_char(e.end - 1) : '\0';
    while (r[1] > r[0] + 1 && in(static_cast<unsigned char>(translation_[offsets_[r[1] - 1]]), ".,;:!?") &&
           !in(static_cast<unsigned char>(last), ".,;:!?"))
      --r[1];
    return r;
  }

  std::size_t point_at(std::size_t source_cp) const {
    const TargetPlace p = place_by_alignment(alignment_, source_cp, source_cp);
    return p.where == TargetPlace::end ? offsets_.size() - 1 : p.at;
  }


  // Writes translation [begin, end) with `elements` (siblings) inside it: ordered by where their
  // words went, each clamped into [begin, end) and after the one before, so that they nest.
  void emit(std::vector<std::size_t> elements, std::size_t begin, std::size_t end, std::string& out) {
    std::stable_sort(elements.begin(), elements.end(),
                     [&](std::size_t a, std::size_t b) { return ranges_[a][0] < ranges_[b][0]; });
    std::size_t at = begin;
    for (std::size_t i : elements) {
      // A parent's range holds its children's: widen it before clamping.
      Range r = widened(i);
      r[0] = std::clamp(r[0], at, end);
      r[1] = std::clamp(r[1], r[0], end);
      out += escape_html(text(at, r[0]));
      out += source_.elements[i].open;
      emit(source_.elements[i].children, r[0], r[1], out);
      out += source_.elements[i].close;
      at = r[1];
    }
    out += escape_html(text(at, end));
  }

  Range widened(std::size_t i) const {
    Range r = ranges_[i];
    if (source_.elements[i].point()) return r;
    for (std::size_t c : source_.elements[i].children) {
      const Range rc = widened(c);
      if (source_.elements[c].point() && r[1] > r[0] && rc[0] >= r[0] && rc[0] <= r[1]) continue;
      r = {std::min(r[0], rc[0]), std::max(r[1], rc[1])};
    }
    return r;
  }

  std::string_view text(std::size_t begin, std::size_t end) const {
    return std::string_view(translation_).substr(offsets_[begin], offsets_[end] - offsets_[begin]);
  }

  const MarkupLine& source_;
  const std::string& translation_;
  const AlignmentSpans& alignment_;
  std::vector<std::size_t> offsets_;  // byte offset of each code point of the translation, and its size
  std::vector<Range> ranges_;
};

}  // namespace

std::string render_markup(const MarkupLine& source, const std::string& translation,
                          const AlignmentSpans& alignment) {
  return Renderer(source, translation, alignment).render();
}

}  // namespace s2s::text
