#include "s2s/text/segment.h"

#include <unicode/brkiter.h>
#include <unicode/filteredbrk.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <mutex>

#include "s2s/core/error.h"

namespace s2s::text {
namespace {

// Title abbreviations that precede a name, missing from CLDR's English suppressions (ICU 72
// cuts "Dr. Smith" but not "Mr. Smith"). Only words that practically never end a sentence.
constexpr const char* kExtraSuppressions[] = {"Dr.", "Prof.", "Mt.", "Sr.", "Jr.", "St.",
                                              "vs.", "cf.", "Fig.", "approx.", "No."};

struct UTextCloser {
  void operator()(UText* t) const { utext_close(t); }
};

}  // namespace

// ICU's iterators keep the text they walk: one prototype, cloned for each call (a clone is a
// copy of the compiled rules' state, far cheaper than building the filter again).
struct SentenceSplitter::Icu {
  std::unique_ptr<icu::BreakIterator> prototype;
  std::mutex mutex;  // cloning reads the prototype: ICU does not promise that is thread-safe
};

SentenceSplitter::SentenceSplitter(const std::string& language)
    : language_(language), icu_(std::make_unique<Icu>()) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Locale locale(language.empty() ? "root" : language.c_str());
  std::unique_ptr<icu::BreakIterator> rules(icu::BreakIterator::createSentenceInstance(locale, status));
  if (U_FAILURE(status) || !rules)
    throw Error(std::string("ICU sentence segmentation is not available: ") + u_errorName(status));
  std::unique_ptr<icu::FilteredBreakIteratorBuilder> builder(
      icu::FilteredBreakIteratorBuilder::createInstance(locale, status));
  if (U_FAILURE(status) || !builder) {  // no suppression data: the rules alone
    icu_->prototype = std::move(rules);
    return;
  }
  if (language.empty() || language == "en" || language.rfind("en_", 0) == 0 ||
      language.rfind("en-", 0) == 0)
    for (const char* word : kExtraSuppressions)
      builder->suppressBreakAfter(icu::UnicodeString::fromUTF8(word), status);
  icu_->prototype.reset(builder->wrapIteratorWithFilter(rules.release(), status));
  if (U_FAILURE(status) || !icu_->prototype)
    throw Error(std::string("ICU sentence segmentation failed to start: ") + u_errorName(status));
}

SentenceSplitter::~SentenceSplitter() = default;

std::size_t whitespace_at(std::string_view text, std::size_t pos) {
  const unsigned char c = static_cast<unsigned char>(text[pos]);
  if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f') return 1;
  if (c < 0x80) return 0;
  // Decode one UTF-8 character and ask ICU whether it is white space.
  UChar32 ch = 0;
  std::int32_t i = static_cast<std::int32_t>(pos);
  U8_NEXT(text.data(), i, static_cast<std::int32_t>(text.size()), ch);
  return ch >= 0 && u_isUWhiteSpace(ch) ? static_cast<std::size_t>(i) - pos : 0;
}

std::vector<Sentence> SentenceSplitter::split(std::string_view text) const {
  std::unique_ptr<icu::BreakIterator> it;
  {
    const std::lock_guard<std::mutex> lock(icu_->mutex);
    it.reset(icu_->prototype->clone());
  }
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UText, UTextCloser> utext(
      utext_openUTF8(nullptr, text.data(), static_cast<std::int64_t>(text.size()), &status));
  if (U_FAILURE(status)) throw Error(std::string("ICU could not read a line: ") + u_errorName(status));
  it->setText(utext.get(), status);
  if (U_FAILURE(status)) throw Error(std::string("ICU could not read a line: ") + u_errorName(status));
  std::vector<Sentence> sentences;
  std::size_t start = static_cast<std::size_t>(it->first());
  for (std::int32_t next = it->next(); next != icu::BreakIterator::DONE; next = it->next()) {
    // UText over UTF-8: boundaries are byte offsets.
    std::size_t b = start, e = static_cast<std::size_t>(next);
    start = e;
    for (std::size_t n; b < e && (n = whitespace_at(text, b)) > 0;) b += n;
    while (e > b) {
      std::size_t c = e - 1;
      while (c > b && (static_cast<unsigned char>(text[c]) & 0xC0) == 0x80) --c;
      if (whitespace_at(text, c) == 0) break;
      e = c;
    }
    if (e > b) sentences.push_back({b, e});
  }
  return sentences;
}

}  // namespace s2s::text
