// The YAML vocabulary parser: a cursor over the whole text that reads one mapping item at a time
// (plain, quoted or "? " complex key, then an integer id), tracking the line for messages.
#include "s2s/text/yaml_vocab.h"

#include <cstdint>
#include <fstream>
#include <sstream>

#include "s2s/core/error.h"

namespace s2s::text {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  VocabEntries parse() {
    VocabEntries entries;
    if (s_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
    while (pos_ < s_.size()) {
      const std::size_t line_start = pos_;
      skip_blanks();
      if (at_line_end()) {
        consume_break();
        continue;
      }
      const char c = s_[pos_];
      if (c == '#' || (pos_ == line_start && c == '%')) {  // comment, directive
        skip_to_line_end();
        consume_break();
        continue;
      }
      if (pos_ == line_start && (marker("---") || marker("..."))) {
        pos_ += 3;
        end_of_line();
        continue;
      }
      std::string key;
      if (c == '?' && blank_or_end(pos_ + 1)) {
        ++pos_;
        key = complex_key();
      } else {
        key = simple_key();
      }
      entries.emplace_back(std::move(key), value());
    }
    return entries;
  }

 private:
  [[noreturn]] void error(const std::string& message) const {
    throw ModelError(path_ + ":" + std::to_string(line_) + ": " + message);
  }
  bool blank_or_end(std::size_t i) const {
    return i >= s_.size() || is_blank(s_[i]) || s_[i] == '\n' || s_[i] == '\r';
  }
  bool marker(const char* m) const { return s_.compare(pos_, 3, m) == 0 && blank_or_end(pos_ + 3); }
  bool at_line_end() const { return pos_ >= s_.size() || s_[pos_] == '\n' || s_[pos_] == '\r'; }
  void skip_blanks() {
    while (pos_ < s_.size() && is_blank(s_[pos_])) ++pos_;
  }
  void skip_to_line_end() {
    while (!at_line_end()) ++pos_;
  }
  // Consumes "\n", "\r\n" or "\r" (nothing at the end of the text).
  void consume_break() {
    if (pos_ >= s_.size()) return;
    if (s_[pos_] == '\r') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '\n') ++pos_;
    ++line_;
  }
  // After a complete item: blanks, an optional comment, the line break.
  void end_of_line() {
    skip_blanks();
    if (pos_ < s_.size() && s_[pos_] == '#') skip_to_line_end();
    if (!at_line_end()) error("unexpected text '" + s_.substr(pos_, 20) + "'");
    consume_break();
  }

  // A key on its own line, "key: id": quoted, or plain split at the last ": ".
  std::string simple_key() {
    const char c = s_[pos_];
    std::string key;
    if (c == '"' || c == '\'') {
      key = c == '"' ? double_quoted(false) : single_quoted(false);
      skip_blanks();
      // After a quoted key YAML (like JSON) allows ':' without a following blank.
      if (pos_ >= s_.size() || s_[pos_] != ':') error("expected ':' after the quoted key");
    } else {
      reject_indicator(c);
      // The plain scalar ends at a comment (" #"); the key ends at the last ':' before it that
      // is followed by a blank or the end.
      std::size_t end = pos_;
      while (end < s_.size() && s_[end] != '\n' && s_[end] != '\r' &&
             !(s_[end] == '#' && end > pos_ && is_blank(s_[end - 1])))
        ++end;
      std::size_t colon = std::string::npos;
      for (std::size_t i = pos_; i < end; ++i)
        if (s_[i] == ':' && (i + 1 == end || is_blank(s_[i + 1]))) colon = i;
      if (colon == std::string::npos) error("expected 'piece: id', found '" + s_.substr(pos_, end - pos_) + "'");
      std::size_t key_end = colon;
      while (key_end > pos_ && is_blank(s_[key_end - 1])) --key_end;
      key = plain_value(s_.substr(pos_, key_end - pos_));
      pos_ = colon;
    }
    ++pos_;  // the ':'
    return key;
  }

  // "? key" (the '?' consumed), then the ": id" line.
  std::string complex_key() {
    skip_blanks();
    if (at_line_end()) {  // the key may start on a following, more indented line
      while (pos_ < s_.size() && at_line_end()) {
        consume_break();
        skip_blanks();
      }
      if (pos_ >= s_.size() || !is_blank(s_[pos_ - 1]))
        error("empty complex key ('?' with nothing after it; yaml-cpp rejects it too)");
    }
    std::string key;
    if (pos_ < s_.size() && s_[pos_] == '"') {
      key = double_quoted(true);
      end_of_line();
    } else if (pos_ < s_.size() && s_[pos_] == '\'') {
      key = single_quoted(true);
      end_of_line();
    } else {
      key = plain_multiline();
    }
    // Blank and comment lines, then ':' followed by a blank.
    while (true) {
      if (pos_ >= s_.size()) error("expected ': id' after the complex key '" + key + "'");
      skip_blanks();
      if (at_line_end() || s_[pos_] == '#') {
        skip_to_line_end();
        consume_break();
        continue;
      }
      if (s_[pos_] != ':' || !blank_or_end(pos_ + 1))
        error("expected ': id' after the complex key '" + key + "'");
      ++pos_;
      return key;
    }
  }

  // A plain complex key: the rest of the line plus more-indented continuation lines, folded.
  std::string plain_multiline() {
    reject_indicator(pos_ < s_.size() ? s_[pos_] : ' ');
    std::string key = line_content();
    consume_break();
    while (pos_ < s_.size()) {
      const std::size_t save_pos = pos_;
      const int save_line = line_;
      int empty = 0;
      while (pos_ < s_.size()) {  // count empty lines before a continuation
        skip_blanks();
        if (!at_line_end() || pos_ >= s_.size()) break;
        consume_break();
        ++empty;
      }
      const bool indented = pos_ < s_.size() && pos_ > save_pos && is_blank(s_[pos_ - 1]);
      if (!indented || s_[pos_] == '#' || at_line_end()) {
        pos_ = save_pos;
        line_ = save_line;
        break;
      }
      key += empty ? std::string(empty, '\n') : std::string(" ");
      key += line_content();
      consume_break();
    }
    return plain_value(key);
  }

  // The line from pos_ up to a comment, without surrounding blanks; pos_ ends at the line end.
  std::string line_content() {
    const std::size_t start = pos_;
    while (!at_line_end() && !(s_[pos_] == '#' && pos_ > start && is_blank(s_[pos_ - 1]))) ++pos_;
    std::size_t end = pos_;
    skip_to_line_end();
    while (end > start && is_blank(s_[end - 1])) --end;
    return s_.substr(start, end - start);
  }

  // yaml-cpp's as<std::string>() turns a null node (plain ~, null, empty) into "null".
  static std::string plain_value(std::string key) {
    if (key.empty() || key == "~" || key == "null" || key == "Null" || key == "NULL") return "null";
    return key;
  }

  void reject_indicator(char c) const {
    const std::string indicators = "{[]}&*!|>`@,";
    if (c == ':' && blank_or_end(pos_ + 1)) error("': id' line without a '? key' line before it");
    if (indicators.find(c) != std::string::npos || (c == '-' && blank_or_end(pos_ + 1)))
      error(std::string("unsupported YAML construct at '") + c +
            "': a vocabulary is a block mapping of 'piece: id' lines");
  }

  // A raw line break inside a quoted key: drop blanks before it (down to `keep`), the break and the
  // next line's indentation; one break becomes a space, n+1 breaks become n newlines.
  void fold(std::string& out, std::size_t keep, bool escaped) {
    while (out.size() > keep && is_blank(out.back())) out.pop_back();
    consume_break();
    skip_blanks();
    int empty = 0;
    while (pos_ < s_.size() && at_line_end()) {
      consume_break();
      skip_blanks();
      ++empty;
    }
    if (empty) out.append(empty, '\n');
    else if (!escaped) out += ' ';
  }

  std::string double_quoted(bool multiline) {
    const int start_line = line_;
    std::string out;
    std::size_t keep = 0;  // escaped characters are never trimmed by folding
    ++pos_;
    while (true) {
      if (pos_ >= s_.size()) {
        line_ = start_line;
        error("unterminated double-quoted key");
      }
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c == '\n' || c == '\r') {
        if (!multiline) error("line break inside a double-quoted key (allowed only after '? ')");
        fold(out, keep, false);
        keep = out.size();
        continue;
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      if (++pos_ >= s_.size()) continue;  // reported as unterminated
      const char e = s_[pos_++];
      switch (e) {
        case '0': out += '\0'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 't': case '\t': out += '\t'; break;
        case 'n': out += '\n'; break;
        case 'v': out += '\v'; break;
        case 'f': out += '\f'; break;
        case 'r': out += '\r'; break;
        case 'e': out += '\x1b'; break;
        case ' ': case '"': case '/': case '\\': case '\'': out += e; break;  // \' as yaml-cpp
        // yaml-cpp (and so Marian, at training and inference) writes these two as single raw
        // bytes, not as UTF-8; follow it so that the same pieces get the same ids.
        case 'N': out += '\x85'; break;
        case '_': out += '\xa0'; break;
        case 'L': append_utf8(out, 0x2028); break;
        case 'P': append_utf8(out, 0x2029); break;
        case 'x': append_utf8(out, hex_escape(2)); break;
        case 'u': append_utf8(out, hex_escape(4)); break;
        case 'U': append_utf8(out, hex_escape(8)); break;
        case '\n': case '\r':  // escaped line break: joins the lines without a space
          if (!multiline) error("line break inside a double-quoted key (allowed only after '? ')");
          --pos_;
          fold(out, out.size(), true);
          break;
        default: error(std::string("unknown escape '\\") + e + "' in a double-quoted key");
      }
      keep = out.size();
    }
  }

  std::uint32_t hex_escape(int digits) {
    std::uint32_t cp = 0;
    for (int i = 0; i < digits; ++i, ++pos_) {
      const char h = pos_ < s_.size() ? s_[pos_] : '\0';
      int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (v < 0) error("escape needs " + std::to_string(digits) + " hex digits");
      cp = cp * 16 + static_cast<std::uint32_t>(v);
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      error("escape is not a valid Unicode code point");
    return cp;
  }

  std::string single_quoted(bool multiline) {
    const int start_line = line_;
    std::string out;
    ++pos_;
    while (true) {
      if (pos_ >= s_.size()) {
        line_ = start_line;
        error("unterminated single-quoted key");
      }
      const char c = s_[pos_];
      if (c == '\'') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\'') {
          out += '\'';
          pos_ += 2;
          continue;
        }
        ++pos_;
        return out;
      }
      if (c == '\n' || c == '\r') {
        if (!multiline) error("line break inside a single-quoted key (allowed only after '? ')");
        fold(out, 0, false);
        continue;
      }
      out += c;
      ++pos_;
    }
  }

  // The id after "key:": a non-negative decimal integer below 2^31.
  int value() {
    skip_blanks();
    if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9')
      error("expected a non-negative integer id, found '" + s_.substr(pos_, s_.find('\n', pos_) - pos_) + "'");
    long long v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      v = v * 10 + (s_[pos_++] - '0');
      if (v > 0x7fffffff) error("id is too large");
    }
    end_of_line();
    return static_cast<int>(v);
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

VocabEntries parse_yaml_vocab(const std::string& text, const std::string& path) {
  return Parser(text, path).parse();
}

VocabEntries load_yaml_vocab(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open the vocabulary file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ModelError(path + ": cannot read the vocabulary file");
  return parse_yaml_vocab(buffer.str(), path);
}

}  // namespace s2s::text
