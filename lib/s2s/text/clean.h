// Input bytes made safe before anything else sees them (docs/user-guide.md, "Guarantees"): every
// maximal invalid UTF-8 subsequence becomes one U+FFFD (the Unicode standard's recommended
// practice, §3.9 "U+FFFD Substitution of Maximal Subparts"; encoded surrogates ED A0..BF xx are
// invalid); C0 controls except tab, DEL and C1 controls (NUL, a lone CR, ESC, ...) become a
// space, as OPUS-MT's preprocessing does with \p{C} before SentencePiece. Everything else,
// format characters such as U+200F RIGHT-TO-LEFT MARK included, is kept.
//
// Usage:
//   std::string text;
//   const CleanReport report = clean_text(line, text);   // report.invalid_utf8: U+FFFD put in
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace s2s::text {

struct CleanReport {
  std::size_t invalid_utf8 = 0;  // invalid sequences, each replaced with one U+FFFD
  std::size_t controls = 0;      // control characters replaced with a space
};

// Writes the cleaned `in` to `out` (replacing what `out` held).
CleanReport clean_text(std::string_view in, std::string& out);

// Only the UTF-8 repair of clean_text, in place (controls kept); returns the U+FFFD put in.
std::size_t repair_utf8(std::string& text);

bool is_valid_utf8(std::string_view text);

// Drops a UTF-8 byte order mark (EF BB BF) at the start of `line`; true if there was one.
bool strip_bom(std::string& line);


// "line 5: invalid UTF-8 replaced with U+FFFD (2 sequences)"
std::string invalid_utf8_message(std::size_t line_number, std::size_t sequences);

}  // namespace s2s::text
