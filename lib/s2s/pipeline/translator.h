// Translator: lines in, lines out, in input order. Blank lines give empty results without
// running the model; the rest are encoded, sorted by length into batches, encoded once per batch,
// searched, and decoded back into their input slots.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/options.h"

namespace s2s {

struct TranslateOptions {
  SearchOptions search;
  dim_t batch_size = 16;  // sentences per batch
};

class Translator {
 public:
  Translator(std::shared_ptr<const Model> model, TranslateOptions options);

  // One output per input line, same order.
  std::vector<std::string> translate(const std::vector<std::string>& lines) const;

 private:
  std::shared_ptr<const Model> model_;
  TranslateOptions options_;
};

// True when a line holds only whitespace (or nothing).
bool is_blank(const std::string& line);

}  // namespace s2s
