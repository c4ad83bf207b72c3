#include "s2s/corpus/warnings.h"

#include "s2s/core/strings.h"
#include "s2s/pipeline/long_lines.h"
#include "s2s/pipeline/protection.h"
#include "s2s/text/clean.h"

namespace s2s::corpus {

// The model's >>xxx<< language labels, space-separated ("" when it is not multilingual).
LabelWarnings::LabelWarnings(const model::Model& model)
    : known_(join(model.codec().source_vocab().language_tokens(), " ")) {}

void LabelWarnings::add(std::size_t line_number, const pipeline::InputNotes& notes,
                        std::vector<std::string>& out) {
  const std::string line = "line " + std::to_string(line_number) + ": ";
  if (!notes.unknown_label.empty())
    out.push_back(line + notes.unknown_label + " is not a language label of this model (" +
                  (known_.empty() ? "it is not multilingual" : "it knows " + known_) +
                  "): translated as ordinary text");
  if (notes.no_label && !warned_no_label_) {
    warned_no_label_ = true;
    out.push_back(line + "no >>xxx<< language label, and this model is multilingual (it knows " +
                  known_ + "): give --target-lang or start each line with a label (said once)");
  }
}

// The warnings about what was done to one input line (1-based number over the whole input).
std::vector<std::string> input_warnings(std::size_t line_number, const pipeline::InputNotes& notes,
                                        const pipeline::TokenLimit& limit, LabelWarnings& labels) {
  std::vector<std::string> warnings;
  labels.add(line_number, notes, warnings);
  for (std::string& warning : pipeline::protection_messages(line_number, notes))
    warnings.push_back(std::move(warning));
  if (notes.invalid_utf8 > 0) warnings.push_back(text::invalid_utf8_message(line_number, notes.invalid_utf8));
  if (notes.long_line != pipeline::InputNotes::LongLine::no)
    warnings.push_back(pipeline::long_line_message(line_number, notes, limit));
  for (std::string& warning : pipeline::glossary_messages(line_number, notes))
    warnings.push_back(std::move(warning));
  for (std::string& warning : pipeline::short_messages(line_number, notes))
    warnings.push_back(std::move(warning));
  return warnings;
}

}  // namespace s2s::corpus
