#include "s2s/text/protect.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

namespace s2s::text {

const char* span_kind_name(SpanKind kind) {
  switch (kind) {
    case SpanKind::placeholder: return "placeholder";
    case SpanKind::email: return "e-mail address";
    case SpanKind::url: return "URL";
    case SpanKind::path: return "path";
    case SpanKind::unspellable: return "unspellable text";
    case SpanKind::markup: return "markup";
  }
  return "span";
}

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_name_char(char c) { return is_alnum(c) || c == '_'; }
bool in(char c, const char* set) { return c != '\0' && std::strchr(set, c) != nullptr; }

// A character that cannot be part of the word before a pattern (so "and/or" holds no path and
// "user@host" no shell variable).
bool word_before(const std::string& s, std::size_t i) {
  return i > 0 && (is_alnum(s[i - 1]) || s[i - 1] == '_');
}

std::size_t skip(const std::string& s, std::size_t i, bool (*ok)(char)) {
  while (i < s.size() && ok(s[i])) ++i;
  return i;
}

// Trailing characters that end the sentence rather than the URL or path.
std::size_t trim_trailing(const std::string& s, std::size_t begin, std::size_t end) {
  while (end > begin && in(s[end - 1], ".,;:!?'\"")) --end;
  // A closing bracket belongs to the URL only when the URL opened one ("wiki/Foo_(bar)").
  while (end > begin && (s[end - 1] == ')' || s[end - 1] == ']')) {
    const char open = s[end - 1] == ')' ? '(' : '[';
    const auto part = std::string_view(s).substr(begin, end - begin);
    if (std::count(part.begin(), part.end(), open) >= std::count(part.begin(), part.end(), s[end - 1]))
      break;
    --end;
    while (end > begin && in(s[end - 1], ".,;:!?'\"")) --end;
  }
  return end;
}

bool url_char(char c) {
  return !is_space(c) && !in(c, "<>\"'`") && static_cast<unsigned char>(c) >= 0x21;
}

// scheme://rest or www.rest
std::size_t match_url(const std::string& s, std::size_t i) {
  if (word_before(s, i) || !is_alpha(s[i])) return 0;
  std::size_t j = i;
  if (s.compare(i, 4, "www.") == 0) {
    j = i + 4;
  } else {
    j = skip(s, i, [](char c) { return is_alnum(c) || in(c, "+.-"); });
    if (s.compare(j, 3, "://") != 0) return 0;
    j += 3;
  }
  const std::size_t rest = j;
  j = skip(s, j, url_char);
  j = trim_trailing(s, i, j);
  return j > rest ? j - i : 0;
}

bool local_char(char c) { return is_alnum(c) || in(c, "._%+-"); }
bool domain_char(char c) { return is_alnum(c) || c == '-' || c == '.'; }

// local@domain
std::size_t match_email(const std::string& s, std::size_t i) {
  if (i > 0 && local_char(s[i - 1])) return 0;
  if (!is_alnum(s[i])) return 0;
  const std::size_t at = skip(s, i, local_char);
  if (at >= s.size() || s[at] != '@' || at + 1 >= s.size() || !is_alnum(s[at + 1])) return 0;
  std::size_t end = skip(s, at + 1, domain_char);
  while (end > at + 1 && (s[end - 1] == '.' || s[end - 1] == '-')) --end;
  return end - i;
}

// {0}, {name}, {}, {0.attr}, {name!r}, {day:d}, {:>10}
std::size_t match_brace(const std::string& s, std::size_t i) {
  if (s[i] != '{') return 0;
  std::size_t j = skip(s, i + 1, [](char c) { return is_name_char(c) || in(c, ".[]"); });
  if (j + 1 < s.size() && s[j] == '!' && in(s[j + 1], "rsa")) j += 2;
  if (j < s.size() && s[j] == ':')
    j = skip(s, j + 1, [](char c) { return !is_space(c) && c != '{' && c != '}'; });
  return j < s.size() && s[j] == '}' ? j + 1 - i : 0;
}

// %%, %s, %d, %1$s, %(count)d, %-10.3f, %lu, %'d, %m, Qt's %1
std::size_t match_printf(const std::string& s, std::size_t i) {
  if (s[i] != '%' || i + 1 >= s.size()) return 0;
  if (s[i + 1] == '%') return 2;
  std::size_t j = i + 1;
  const std::size_t digits = skip(s, j, is_digit);
  if (digits > j && digits < s.size() && s[digits] == '$') {
    j = digits + 1;
  } else if (digits > j && (digits >= s.size() || !is_alnum(s[digits]))) {
    return digits - i;  // Qt and Windows: %1
  }
  if (j < s.size() && s[j] == '(') {
    const std::size_t close = skip(s, j + 1, is_name_char);
    if (close == j + 1 || close >= s.size() || s[close] != ')') return 0;
    j = close + 1;
  }
  j = skip(s, j, [](char c) { return in(c, "-+#0'"); });  // flags (not ' ': "50% done")
  j = skip(s, j, [](char c) { return is_digit(c) || c == '*'; });
  if (j < s.size() && s[j] == '.') j = skip(s, j + 1, [](char c) { return is_digit(c) || c == '*'; });
  j = skip(s, j, [](char c) { return in(c, "hlLqjzt"); });
  if (j >= s.size() || !in(s[j], "diouxXeEfFgGaAcspnm@")) return 0;
  // "%sfoo" is not a placeholder followed by letters but a word, unless a length was given.
  return j + 1 - i;
}

// $HOME, ${PATH}
std::size_t match_shell(const std::string& s, std::size_t i) {
  if (s[i] != '$' || i + 1 >= s.size() || word_before(s, i)) return 0;
  if (s[i + 1] == '{') {
    const std::size_t close = skip(s, i + 2, is_name_char);
    return close > i + 2 && close < s.size() && s[close] == '}' && !is_digit(s[i + 2])
               ? close + 1 - i
               : 0;
  }
  if (!is_alpha(s[i + 1]) && s[i + 1] != '_') return 0;
  return skip(s, i + 1, is_name_char) - i;
}

bool path_char(char c) {
  return is_alnum(c) || in(c, "._+-~@%,=") || static_cast<unsigned char>(c) >= 0x80;
}

// /etc/fstab, ~/.config/x, ./configure, ../data/x, C:\Users\x
std::size_t match_path(const std::string& s, std::size_t i) {
  if (i > 0 && (is_alnum(s[i - 1]) || in(s[i - 1], "/\\<_.~:"))) return 0;
  std::size_t j = i;
  if (is_alpha(s[i]) && s.compare(i + 1, 2, ":\\") == 0) {  // a Windows drive
    j = skip(s, i + 3, [](char c) { return path_char(c) || c == '\\'; });
    return trim_trailing(s, i, j) > i + 3 ? trim_trailing(s, i, j) - i : 0;
  }
  if (s.compare(i, 2, "~/") == 0) j = i + 1;
  else if (s.compare(i, 2, "./") == 0) j = i + 1;
  else if (s.compare(i, 3, "../") == 0) j = i + 2;
  if (j >= s.size() || s[j] != '/') return 0;
  // The first name after the slash starts with a letter, digit, '.' or '_' ("+/-" is no path).
  if (j + 1 >= s.size() || !(is_alnum(s[j + 1]) || in(s[j + 1], "._"))) return 0;
  std::size_t end = j;
  while (end < s.size() && s[end] == '/') end = skip(s, end + 1, path_char);
  return trim_trailing(s, i, end) - i;
}

struct Matcher {
  std::size_t (*match)(const std::string&, std::size_t);
  SpanKind kind;
};

// URLs before e-mail addresses ("https://user@host/") and paths ("http://a/b").
const Matcher kMatchers[] = {
    {match_url, SpanKind::url},          {match_email, SpanKind::email},
    {match_brace, SpanKind::placeholder}, {match_printf, SpanKind::placeholder},
    {match_shell, SpanKind::placeholder}, {match_path, SpanKind::path},
};

// UTF-8: the length of the sequence starting with byte c (a continuation byte: 1).
std::size_t utf8_length(unsigned char c) {
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

// Punctuation the vocabulary spells that ends an unspellable token without being part of it.
bool token_edge(char c) { return in(c, ".,;:!?()[]\"'"); }

// The whitespace-separated tokens (outside `spans`) holding a character the codec cannot spell
// (<unk>) or spells only in byte pieces, their spellable edge punctuation left out, so that the
// model still reads the rest of the sentence. A byte_fallback vocabulary spells every character,
// but one without a piece of its own was too rare in the training text for the model to copy its
// bytes reliably ('€' came out as '‘'), so it is kept as unspellable text is. Only the <unk>
// characters go to `unspellable` (the warning): a byte-spelled one loses nothing by being kept.
std::vector<FoundSpan> unspellable_spans(const std::string& s, const std::vector<FoundSpan>& spans,
                                         const TextCodec& codec,
                                         std::vector<std::string>& unspellable) {
  std::vector<FoundSpan> found;
  std::size_t next_span = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    if (is_space(s[i])) { ++i; continue; }
    std::size_t end = i;
    while (end < s.size() && !is_space(s[end])) ++end;
    bool bad = false;
    for (std::size_t k = i; k < end; k += utf8_length(static_cast<unsigned char>(s[k]))) {
      while (next_span < spans.size() && spans[next_span].end <= k) ++next_span;
      if (next_span < spans.size() && spans[next_span].begin <= k) continue;
      if (is_alnum(s[k]) || is_space(s[k])) continue;
      const std::string c = s.substr(k, utf8_length(static_cast<unsigned char>(s[k])));
      const TextCodec::Spelling spelling = codec.source_spelling(c);
      if (spelling == TextCodec::Spelling::pieces) continue;
      bad = true;
      if (spelling == TextCodec::Spelling::unknown &&
          std::find(unspellable.begin(), unspellable.end(), c) == unspellable.end())
        unspellable.push_back(c);
    }
    if (bad) {
      std::size_t b = i, e = end;
      while (b < e && token_edge(s[b])) ++b;
      while (e > b && token_edge(s[e - 1])) --e;
      found.push_back({b, e, SpanKind::unspellable});
    }
    i = end;
  }
  return found;
}

// Sorted spans with overlapping ones merged into the first.
std::vector<FoundSpan> merge_overlaps(std::vector<FoundSpan> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const FoundSpan& a, const FoundSpan& b) { return a.begin < b.begin; });
  std::vector<FoundSpan> merged;
  for (const FoundSpan& span : spans) {
    if (!merged.empty() && span.begin < merged.back().end)
      merged.back().end = std::max(merged.back().end, span.end);
    else
      merged.push_back(span);
  }
  return merged;
}

// A number that occurs nowhere in `text`, the n-th such from 9001.
std::string stand_in(const std::string& text, std::size_t& next) {
  for (;; ++next) {
    std::string candidate = std::to_string(next);
    if (text.find(candidate) == std::string::npos) {
      ++next;
      return candidate;
    }
  }
}

}  // namespace

std::vector<FoundSpan> find_patterns(const std::string& text) {
  std::vector<FoundSpan> spans;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t length = 0;
    SpanKind kind = SpanKind::placeholder;
    for (const Matcher& m : kMatchers) {
      length = m.match(text, i);
      if (length > 0) {
        kind = m.kind;
        break;
      }
    }
    if (length > 0) {
      spans.push_back({i, i + length, kind});
      i += length;
    } else {
      ++i;
    }
  }
  return spans;
}

ProtectedText protect(const std::string& sentence, const ProtectOptions& options) {
  return protect_spans(sentence, options.patterns ? find_patterns(sentence) : std::vector<FoundSpan>{},
                       options);
}

ProtectedText protect_spans(const std::string& text, std::vector<FoundSpan> spans,
                            const ProtectOptions& options, const std::vector<std::size_t>& apart) {
  const auto is_apart = [&apart](std::size_t at) {
    return std::find(apart.begin(), apart.end(), at) != apart.end();
  };
  ProtectedText out;
  spans = merge_overlaps(std::move(spans));
  if (options.codec != nullptr &&
      options.codec->source_spelling(text) != TextCodec::Spelling::pieces) {
    auto more = unspellable_spans(text, spans, *options.codec, out.unspellable);
    spans.insert(spans.end(), more.begin(), more.end());
    spans = merge_overlaps(std::move(spans));
  }
  std::size_t next_number = 9001;
  std::size_t copied = 0;  // bytes of `text` already in out.text
  // Touching spans share one stand-in.
  for (std::size_t k = 0; k < spans.size();) {
    ProtectedSpan span;
    span.kind = spans[k].kind;
    span.begin = spans[k].begin;
    std::size_t end = spans[k].end;
    for (++k; k < spans.size() && spans[k].begin == end && !is_apart(end); ++k) end = spans[k].end;
    span.text = text.substr(span.begin, end - span.begin);
    span.spaced = !out.spans.empty() && copied == span.begin;
    out.text.append(text, copied, span.begin - copied);
    if (span.spaced) out.text += ' ';
    span.stand_in = stand_in(text, next_number);
    span.model_begin = code_point_count(out.text);
    out.text += span.stand_in;
    span.model_end = code_point_count(out.text);
    copied = end;
    out.spans.push_back(std::move(span));
  }
  out.text.append(text, copied, std::string::npos);
  return out;
}

std::size_t code_point_count(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

TargetPlace place_by_alignment(const AlignmentSpans& alignment, std::size_t begin, std::size_t end) {
  const std::array<std::size_t, 4>* before = nullptr;  // the pair of the nearest word before
  const std::array<std::size_t, 4>* after = nullptr;
  for (const auto& a : alignment) {
    if (a[1] <= begin) {
      if (before == nullptr || a[0] > (*before)[0] || (a[0] == (*before)[0] && a[2] < (*before)[2]))
        before = &a;
    } else if (a[0] >= end) {
      if (after == nullptr || a[0] < (*after)[0] || (a[0] == (*after)[0] && a[2] < (*after)[2]))
        after = &a;
    }
  }
  if (before != nullptr) return {(*before)[3], TargetPlace::after_word};
  if (after != nullptr) return {(*after)[2], TargetPlace::before_word};
  return {0, begin == 0 ? TargetPlace::start : TargetPlace::end};
}

namespace {

// Byte offsets of the code points of `text`, and its size at the end.
std::vector<std::size_t> code_point_offsets(const std::string& text) {
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) offsets.push_back(i);
  offsets.push_back(text.size());
  return offsets;
}

// Where `stand_in` occurs in `text` as a number of its own (no digit next to it), in bytes.
std::vector<std::size_t> occurrences(const std::string& text, const std::string& stand_in) {
  std::vector<std::size_t> found;
  for (std::size_t at = text.find(stand_in); at != std::string::npos;
       at = text.find(stand_in, at + 1)) {
    const std::size_t end = at + stand_in.size();
    if ((at == 0 || !is_digit(text[at - 1])) && (end == text.size() || !is_digit(text[end])))
      found.push_back(at);
  }
  return found;
}

// The number written next to a span in the text the model read ("5 €" -> "5", " "), which a model
// may write glued to the span's stand-in ("59006"): then the stand-in is still found, and the
// space between them is put back.
struct NeighbourNumbers {
  std::string before, gap_before;  // the digits before the span and what stood between
  std::string after, gap_after;
  bool after_is_stand_in = false;  // `after` is another span's stand-in (which adds the gap)
};

NeighbourNumbers neighbour_numbers(const ProtectedText& source, std::size_t index,
                                   const std::vector<std::size_t>& offsets) {
  const std::string& t = source.text;
  const ProtectedSpan& span = source.spans[index];
  NeighbourNumbers n;
  std::size_t b = offsets[span.model_begin], gap = b;
  while (gap > 0 && is_space(t[gap - 1])) --gap;
  std::size_t digits = gap;
  while (digits > 0 && is_digit(t[digits - 1])) --digits;
  n.before = t.substr(digits, gap - digits);
  n.gap_before = t.substr(gap, b - gap);
  std::size_t e = offsets[span.model_end];
  gap = e;
  while (gap < t.size() && is_space(t[gap])) ++gap;
  digits = gap;
  while (digits < t.size() && is_digit(t[digits])) ++digits;
  n.after = t.substr(gap, digits - gap);
  n.gap_after = t.substr(e, gap - e);
  n.after_is_stand_in =
      index + 1 < source.spans.size() && source.spans[index + 1].stand_in == n.after;
  return n;
}

struct Edit {
  std::size_t begin = 0, end = 0;  // bytes of the translation replaced (begin == end: inserted)
  std::string text;
  std::size_t order = 0;           // the span's index: insertions at one place in span order
};

class Restorer {
 public:
  Restorer(const std::string& translation, const AlignmentSpans& alignment)
      : translation_(translation), alignment_(alignment),
        offsets_(code_point_offsets(translation)) {}

  // The edits that put `span` (the order-th) back.
  void restore(const ProtectedSpan& span, std::size_t order, const NeighbourNumbers& neighbours,
               Restored& restored) {
    const auto found = occurrences(translation_, span.stand_in);
    const auto glued = glued_occurrences(span, order, neighbours);
    if (found.size() + glued.size() == 1) {
      if (found.empty())
        edits_.push_back(glued.front().kept);
      else
        replace(span, found[0], order);
      return;
    }
    ++restored.placed_by_alignment;
    if (found.empty() && glued.empty()) {
      place(span, order);
      return;
    }
    // A glued copy stands where the source had the span, next to the same number: it is the one
    // kept when there is a single one; otherwise the copy the alignment points to.
    const bool keep_glued = glued.size() == 1;
    const std::size_t keep = keep_glued ? std::string::npos : aligned_occurrence(span, found);
    for (const GluedCopy& copy : glued) edits_.push_back(keep_glued ? copy.kept : copy.removed);
    for (std::size_t at : found) {
      if (at == keep) {
        replace(span, at, order);
      } else {  // a repeat: removed with the space before it (or after it, at the start)
        std::size_t begin = at, end = at + span.stand_in.size();
        if (begin > 0 && translation_[begin - 1] == ' ') --begin;
        else if (end < translation_.size() && translation_[end] == ' ') ++end;
        edits_.push_back({begin, end, "", order});
      }
    }
  }

  // The stand-in at byte `at` replaced by its span (with the space protect put before it).
  void replace(const ProtectedSpan& span, std::size_t at, std::size_t order) {
    const std::size_t begin = span.spaced && at > 0 && translation_[at - 1] == ' ' ? at - 1 : at;
    edits_.push_back({begin, at + span.stand_in.size(), span.text, order});
  }

  // A copy of the stand-in written glued to the number that stood next to the span in the
  // source ("5 9006" read, "59006" written): kept, it becomes the span and the space between;
  // removed, the number alone.
  struct GluedCopy {
    Edit kept, removed;
  };

  std::vector<GluedCopy> glued_occurrences(const ProtectedSpan& span, std::size_t order,
                                           const NeighbourNumbers& n) const {
    const std::string& t = translation_;
    const auto digit_at = [&t](std::size_t i) { return i < t.size() && is_digit(t[i]); };
    std::vector<GluedCopy> glued;
    for (std::size_t at = t.find(span.stand_in); at != std::string::npos;
         at = t.find(span.stand_in, at + 1)) {
      const std::size_t end = at + span.stand_in.size();
      const bool left = at > 0 && digit_at(at - 1), right = digit_at(end);
      const Edit removed{at, end, "", order};
      if (left && !right && !n.before.empty() && at >= n.before.size() &&
          t.compare(at - n.before.size(), n.before.size(), n.before) == 0 &&
          (at == n.before.size() || !digit_at(at - n.before.size() - 1)))
        glued.push_back({{at, end, n.gap_before + span.text, order}, removed});
      if (right && !left && !n.after.empty() && t.compare(end, n.after.size(), n.after) == 0 &&
          !digit_at(end + n.after.size()))
        glued.push_back(
            {{at, end, span.text + (n.after_is_stand_in ? "" : n.gap_after), order}, removed});
    }
    return glued;
  }

  void insert(std::size_t at, std::string text, std::size_t order) {
    edits_.push_back({at, at, std::move(text), order});
  }

  // Where byte `at` of the translation is in apply()'s text: as a word's start (`start`: after
  // the insertions made there) or end (before them).
  std::size_t moved(std::size_t at, bool start) const {
    std::ptrdiff_t shift = 0;
    for (const Edit& e : edits_) {
      const bool before = e.end < at || (e.end == at && (start || e.begin < at));
      if (before) shift += static_cast<std::ptrdiff_t>(e.text.size()) -
                           static_cast<std::ptrdiff_t>(e.end - e.begin);
      else if (e.begin < at && at < e.end) return start ? moved(e.begin, true) : moved(e.end, false);
    }
    return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(at) + shift);
  }

  // The target side of `alignment`, moved into `text` (what apply() made).
  AlignmentSpans move_targets(const std::string& text) const {
    AlignmentSpans out;
    std::vector<std::size_t> code_point(text.size() + 1, 0);
    for (std::size_t i = 0, n = 0; i <= text.size(); ++i) {
      code_point[i] = n;
      if (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++n;
    }
    for (const auto& a : alignment_)
      out.push_back({a[0], a[1], code_point[std::min(moved(bytes(a[2]), true), text.size())],
                     code_point[std::min(moved(bytes(a[3]), false), text.size())]});
    return out;
  }

  std::string apply() {
    std::sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if ((a.end > a.begin) != (b.end > b.begin)) return a.end == a.begin;  // insertions first
      return a.order < b.order;
    });
    std::string out;
    std::size_t copied = 0;
    for (const Edit& e : edits_) {
      out.append(translation_, copied, e.begin - copied);
      out += e.text;
      copied = e.end;
    }
    out.append(translation_, copied, std::string::npos);
    return out;
  }

 private:
  std::size_t bytes(std::size_t code_point) const {
    return offsets_[std::min(code_point, offsets_.size() - 1)];
  }

  // The occurrence inside a target word aligned to the stand-in's own source word; else the
  // first.
  std::size_t aligned_occurrence(const ProtectedSpan& span, const std::vector<std::size_t>& found) {
    for (const auto& a : alignment_) {
      if (a[1] <= span.model_begin || a[0] >= span.model_end) continue;
      for (std::size_t at : found)
        if (at >= bytes(a[2]) && at < bytes(a[3])) return at;
    }
    return found.front();
  }

  // A dropped stand-in: after the first target word aligned to the nearest source word before
  // it, else before the first one aligned to the nearest source word after it, else where it
  // stood (start or end).
  void place(const ProtectedSpan& span, std::size_t order) {
    const TargetPlace p = place_by_alignment(alignment_, span.model_begin, span.model_end);
    const bool empty = translation_.empty();
    switch (p.where) {
      case TargetPlace::after_word: insert(bytes(p.at), " " + span.text, order); break;
      case TargetPlace::before_word: insert(bytes(p.at), span.text + " ", order); break;
      case TargetPlace::start: insert(0, empty ? span.text : span.text + " ", order); break;
      case TargetPlace::end:
        insert(translation_.size(), empty ? span.text : " " + span.text, order);
        break;
    }
  }


  const std::string& translation_;
  const AlignmentSpans& alignment_;
  std::vector<std::size_t> offsets_;
  std::vector<Edit> edits_;
};

}  // namespace

namespace {

// The source side of `alignment` moved from the model's text to the sentence's.
AlignmentSpans move_sources(const ProtectedText& source, AlignmentSpans alignment) {
  // Per span: the code points of its stand-in and of its text in the sentence.
  std::vector<std::array<std::size_t, 4>> moves;
  std::size_t sentence_cp = 0, model_cp = 0;  // where the last span ended, in both texts
  for (const ProtectedSpan& span : source.spans) {
    const std::size_t begin = sentence_cp + (span.model_begin - model_cp) - (span.spaced ? 1 : 0);
    const std::size_t end = begin + code_point_count(span.text);
    moves.push_back({span.model_begin, span.model_end, begin, end});
    sentence_cp = end;
    model_cp = span.model_end;
  }
  const auto move = [&](std::size_t at, bool start) {
    std::ptrdiff_t shift = 0;
    for (const auto& m : moves) {
      if (at < m[0]) break;
      if (at < m[1]) return at == m[0] || start ? m[2] : m[3];  // inside a stand-in
      shift = static_cast<std::ptrdiff_t>(m[3]) - static_cast<std::ptrdiff_t>(m[1]);
    }
    return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(at) + shift);
  };
  for (auto& a : alignment) {
    a[0] = move(a[0], true);
    a[1] = move(a[1], false);
  }
  return alignment;
}

}  // namespace

Restored restore(const ProtectedText& source, const std::string& translation,
                 const AlignmentSpans& alignment) {
  Restored restored;
  Restorer restorer(translation, alignment);
  const std::vector<std::size_t> offsets = code_point_offsets(source.text);
  for (std::size_t i = 0; i < source.spans.size(); ++i)
    restorer.restore(source.spans[i], i, neighbour_numbers(source, i, offsets), restored);
  restored.text = restorer.apply();
  restored.alignment = move_sources(source, restorer.move_targets(restored.text));
  return restored;
}

std::string unspellable_message(std::size_t line_number, const ProtectedText& text) {
  if (text.unspellable.empty()) return {};
  std::string chars;
  for (const std::string& c : text.unspellable) {
    if (!chars.empty()) chars += ", ";
    chars += "'" + c + "'";
  }
  return "line " + std::to_string(line_number) + ": the model's vocabulary cannot spell " + chars +
         ": kept as in the source";
}

}  // namespace s2s::text
