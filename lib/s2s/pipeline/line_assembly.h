// Putting lines together from their units' translations (Translator::translate_each): a line
// of several units (sentences, pieces of a long line) joined, masked spans put back, each line
// handed on when its last unit is in. Internal to pipeline/.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "s2s/pipeline/translator.h"
#include "s2s/pipeline/units.h"

namespace s2s::pipeline {

// Each unit's hypotheses as they come in from the workers, and each line put together and handed
// to `done` when its last unit is in (Translator::translate_each). Thread-safe: one worker at a
// time finishes units, notes, and calls `done`.
class LineAssembly {
 public:
  LineAssembly(Units& units, std::vector<InputNotes>& notes, const Translator::LineDone& done,
               const model::Model& model, const TranslateOptions& options, bool can_align);

  // The lines with nothing to translate (blank), until `stopped()`.
  template <typename Stopped>
  void finish_blank_lines(const Stopped& stopped) {
    for (std::size_t i = 0; i < pending_.size() && !stopped(); ++i)
      if (pending_[i] == 0) done_(i, Translation{}, notes_[i]);
  }

  // Unit `u`'s hypotheses; the last of its line's units puts the line together.
  void finish_unit(std::size_t u, std::vector<search::Hypothesis> hypotheses);
  // Unit `u`'s translation is still short (TranslateOptions::short_translations).
  void note_short(std::size_t u, std::size_t translated_tokens, bool searched_again);
  // Unit `u`'s glossary constraints were not met: it was translated without them.
  void note_glossary_fallback(std::size_t u);

 private:
  // Line `line` from its units' hypotheses (joined when several), its masked spans put back.
  Translation assemble(std::size_t line);
  // The translation of a line that is one unit, `u`.
  Translation single_unit(std::size_t u, bool with_source);

  Units& units_;
  std::vector<InputNotes>& notes_;
  const Translator::LineDone& done_;
  const model::Model& model_;
  const TranslateOptions& options_;
  const bool can_align_;
  std::mutex mutex_;
  std::vector<std::vector<search::Hypothesis>> found_;  // each unit's, once searched
  std::vector<std::vector<AlignmentPairs>> kept_;       // see finish_unit
  std::vector<std::size_t> first_unit_;                 // each line's first unit
  std::vector<std::size_t> pending_;                    // each line's units still to translate
  std::vector<std::size_t> line_units_;                 // each line's units
};

}  // namespace s2s::pipeline
