// Translator: lines in, translations out, in input order. Blank lines give empty results without
// running the model; the rest are encoded, sorted by length into batches (batch/batcher.h),
// encoded once per batch, searched, and put back into their input slots.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "s2s/model/model.h"
#include "s2s/search/hypothesis.h"
#include "s2s/search/options.h"

namespace s2s {

struct TranslateOptions {
  SearchOptions search;
  dim_t batch_size = 32;   // sentences per batch
  dim_t batch_tokens = 0;  // if > 0: padded source tokens per batch instead of sentences
};

// The result for one input line: the n-best list, best first (one entry unless n_best; empty
// for a blank line).
struct Translation {
  std::vector<Hypothesis> hypotheses;
};

class Translator {
 public:
  Translator(std::shared_ptr<const Model> model, TranslateOptions options);

  // One result per input line, same order. A line's result never depends on the other lines.
  std::vector<Translation> translate(const std::vector<std::string>& lines) const;

  const Model& model() const { return *model_; }
  const TranslateOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Model> model_;
  TranslateOptions options_;
};

// True when a line holds only whitespace (or nothing).
bool is_blank(const std::string& line);

}  // namespace s2s
