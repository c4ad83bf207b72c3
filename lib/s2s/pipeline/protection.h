// What the Translator masks in a line before the model reads it, and how it puts it back
// (docs/real-text.md). Placeholders, e-mail addresses, URLs, paths and text the source
// vocabulary cannot spell become number stand-ins (text/protect.h); with --html the line's tags
// are taken out first (text/markup.h). The whole line is masked before it is cut into sentences,
// so that the segmenter never cuts inside a span ("see www.example.com. Then" has one sentence
// end). After translation each hypothesis' joined text gets its spans back, placed by the word
// alignment when the model dropped or repeated a stand-in, and with --html its tags.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "s2s/text/codec.h"
#include "s2s/text/markup.h"
#include "s2s/text/protect.h"

namespace s2s::pipeline {

struct Translation;  // translator.h
struct InputNotes;

// A line's masked spans and markup; inactive for most lines, whose text the model reads as is.
struct LineProtection {
  text::ProtectedText masked;               // masked.text: what the model reads
  std::optional<text::MarkupLine> markup;   // --html and a well-formed fragment
  bool active() const { return !masked.spans.empty() || markup.has_value(); }
};

struct ProtectionSettings {
  bool patterns = true;  // placeholders, addresses, URLs, paths, unspellable text (--protect)
  bool html = false;     // --html
};

// Masks the cleaned `line` (its first `label_bytes` bytes a >>xxx<< language label, left as it
// is) and replaces it with what the model should read. Notes the characters the vocabulary cannot
// spell and, with html, why the line is not a well-formed fragment (then it is masked as text).
LineProtection protect_line(std::string& line, std::size_t label_bytes, const text::TextCodec& codec,
                            const ProtectionSettings& settings, InputNotes& notes);

// Puts the line's spans (and tags) back into every hypothesis of `translation`
// (Translation::texts), given each hypothesis' text as decoded (`decoded`) and its hard piece
// alignment to the masked line when the model has one (empty pairs: stand-ins the model dropped
// go where they stood, at the start or the end).
void restore_line(Translation& translation, const LineProtection& protection,
                  const std::vector<std::string>& decoded, const text::TextCodec& codec,
                  InputNotes& notes);

// The protection warnings of one input line ("line 7: ..."): an ill-formed HTML fragment
// (translated as text), and the characters the model cannot spell (kept as in the source).
// Every line names its own, so that a run cut into shards warns as the whole run does.
std::vector<std::string> protection_messages(std::size_t line_number, const InputNotes& notes);

}  // namespace s2s::pipeline
