// The warnings about what was done to an input line (translator.h InputNotes), as `s2s
// translate` prints them and the library's results list them: one message per thing done,
// naming the line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "s2s/pipeline/translator.h"

namespace s2s::corpus {

// Warnings about language labels: each line whose label the model does not know, and the first
// line without one when the model is multilingual (once: every line would say the same).
class LabelWarnings {
 public:
  explicit LabelWarnings(const model::Model& model);
  void add(std::size_t line_number, const pipeline::InputNotes& notes,
           std::vector<std::string>& out);

 private:
  std::string known_;
  bool warned_no_label_ = false;
};

// The warnings about one input line (1-based number over the whole input).
std::vector<std::string> input_warnings(std::size_t line_number, const pipeline::InputNotes& notes,
                                        const pipeline::TokenLimit& limit, LabelWarnings& labels);

}  // namespace s2s::corpus
