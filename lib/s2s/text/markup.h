// --html (docs/real-text.md): a line is an HTML fragment. Its tags and entities are taken out
// (parsed by gumbo, Debian's libgumbo: the HTML5 parsing algorithm, which also says whether the
// fragment was well-formed), its text is translated, and the tags are put back around the target
// words aligned to the source words they enclosed. Tags come back byte for byte (attributes
// included); void elements (<br/>), comments and <script>/<style> elements are points, placed
// after the target of the word before them.
//
// Well-formed means: the HTML5 parser reports no error, and every element it built was opened by
// a tag of the line and, unless void, closed by one. Then the output is well-formed too: the
// elements nest as in the source (a parent around its children, siblings side by side, possibly
// reordered with their words). An ill-formed line is not parsed as markup: MarkupLine::problem
// says why, and the caller translates the line as text (with a warning).
//
// Usage, per line:
//   const MarkupLine m = parse_markup(line);          // m.problem empty: m.text is what to translate
//   ... translate m.text (protect.h), giving `target` and its alignment over (m.text, target)
//   const std::string html = render_markup(m, target, alignment);
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "s2s/text/protect.h"

namespace s2s::text {

struct MarkupElement {
  std::string open;   // its start tag as written (a point: all of it: "<br/>", "<!-- x -->")
  std::string close;  // its end tag as written; empty for a point
  std::size_t begin = 0, end = 0;  // the code points of MarkupLine::text it encloses
  std::vector<std::size_t> children;  // indices into MarkupLine::elements, in source order
  bool point() const { return close.empty(); }
};

struct MarkupLine {
  std::string text;                    // the fragment's text, entities decoded
  std::vector<MarkupElement> elements;
  std::vector<std::size_t> top;        // the elements not inside another, in source order
  std::string problem;                 // non-empty: not a well-formed fragment (text, elements empty)
  // Byte offsets in `text` where a tag stood: a protected span never crosses one
  // ("<b>/dev/mapper</b>/" holds the path "/dev/mapper" inside the element and "/" outside).
  std::vector<std::size_t> boundaries;
};

MarkupLine parse_markup(const std::string& line);

// protect() for the text of a well-formed line, or of its sentence unit [begin, end) (bytes of
// line.text): patterns found between tags only.
ProtectedText protect_markup(const MarkupLine& line, const ProtectOptions& options,
                             std::size_t begin = 0, std::size_t end = std::string::npos);

// `translation` of source.text with the source's elements put back around the words `alignment`
// (code points: source over source.text, target over translation) aligns to theirs, the text
// escaped as HTML (& < > written as entities).
std::string render_markup(const MarkupLine& source, const std::string& translation,
                          const AlignmentSpans& alignment);

// & -> &amp;, < -> &lt;, > -> &gt;
std::string escape_html(std::string_view text);

// "line 3: not a well-formed HTML fragment (<b> is not closed): translated as text"
std::string markup_message(std::size_t line_number, const MarkupLine& line);

}  // namespace s2s::text
