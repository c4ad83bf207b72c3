// Spans a translation must keep byte for byte (docs/real-text.md): format placeholders, e-mail
// addresses, URLs, file paths, and text the model's source vocabulary cannot spell (or spells only
// in byte pieces, which it has hardly seen). Before translation each such span is replaced with a
// stand-in the model copies (a number that does not occur in the sentence: a small model passes
// "9001" through far more reliably than it passes "{0}", "%s" or "XPH0X"); after translation each
// stand-in is replaced with its span. A stand-in the model dropped or repeated is placed by the
// word alignment instead (the target word aligned to the source word before the span), so that
// every span comes back exactly once.
//
// Usage, per sentence:
//   const ProtectedText p = protect(sentence, {&codec});     // the model translates p.text
//   const Restored r = restore(p, translation, alignment_spans);   // r.text: the final text
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "s2s/text/codec.h"

namespace s2s::text {

enum class SpanKind { placeholder, email, url, path, unspellable, markup };

// "placeholder", "e-mail address", ...
const char* span_kind_name(SpanKind kind);

struct ProtectedSpan {
  SpanKind kind = SpanKind::placeholder;
  std::string text;        // the original bytes
  std::size_t begin = 0;   // byte offset of `text` in the sentence
  std::string stand_in;    // what the model reads in its place
  // Code point offsets of the stand-in in ProtectedText::text, the positions the alignment's
  // source spans count in.
  std::size_t model_begin = 0, model_end = 0;
  // The stand-in follows another's with a space the sentence does not have between them (spans
  // touching at a tag, markup.h): restore takes that space out again.
  bool spaced = false;
};

struct ProtectedText {
  std::string text;                     // what the model reads
  std::vector<ProtectedSpan> spans;     // in sentence order
  // The characters of the sentence the source vocabulary cannot spell (encode to <unk>), each
  // once, in order of appearance; they are kept by their spans. Non-empty: warn once for the line.
  std::vector<std::string> unspellable;
};

struct ProtectOptions {
  // The model's codec: characters its source side encodes to <unk> or only to byte pieces are
  // protected. Null: every character is taken as spellable.
  const TextCodec* codec = nullptr;
  // Placeholders, e-mail addresses, URLs and paths (on by default).
  bool patterns = true;
};

// A span found in a text: [begin, end) in bytes.
struct FoundSpan {
  std::size_t begin = 0, end = 0;
  SpanKind kind = SpanKind::placeholder;
};

// The placeholders, e-mail addresses, URLs and paths of `text`, in order, not overlapping.
std::vector<FoundSpan> find_patterns(const std::string& text);

// Masks a sentence. Spans that touch (nothing between them) share one stand-in, since the model
// would read two numbers written together as one.
ProtectedText protect(const std::string& sentence, const ProtectOptions& options = {});

// Masks the given spans of `text`, plus, with a codec, what it cannot spell: protect() with
// spans found by the caller (markup.h). Spans touching at a byte offset in `apart` keep stand-ins
// of their own, a space between them.
ProtectedText protect_spans(const std::string& text, std::vector<FoundSpan> spans,
                            const ProtectOptions& options,
                            const std::vector<std::size_t>& apart = {});

// A word alignment as code point spans, one per (source word, target word) pair: source [b, e),
// target [b, e) (pipeline/alignment.h WordAlignment::spans, whose source side is the text the
// model read: ProtectedText::text).
using AlignmentSpans = std::vector<std::array<std::size_t, 4>>;

struct Restored {
  std::string text;
  std::size_t placed_by_alignment = 0;  // spans whose stand-in was dropped or repeated
  // The alignment carried over to the sentence (source) and `text` (target): a stand-in's
  // positions become its span's, so that jsonl spans and markup.h point into the real texts.
  AlignmentSpans alignment;
};

// The translation of `source.text` with every span put back, each exactly once.
Restored restore(const ProtectedText& source, const std::string& translation,
                 const AlignmentSpans& alignment);

// Where text that stood between source code points [begin, end) goes in the target: after the
// first target word aligned to the nearest source word before it; else before the first target
// word aligned to the nearest source word after it; else at the start (begin 0) or the end.
struct TargetPlace {
  std::size_t at = 0;  // a target code point (after_word: the word's end; before_word: its start)
  enum Where { after_word, before_word, start, end } where = start;
};
TargetPlace place_by_alignment(const AlignmentSpans& alignment, std::size_t begin, std::size_t end);

std::size_t code_point_count(std::string_view text);

// "line 7: the model cannot spell '<', '}' (kept as they are)"; empty when nothing is unspellable.
std::string unspellable_message(std::size_t line_number, const ProtectedText& text);

}  // namespace s2s::text
