#include "s2s/pipeline/protection.h"

#include "s2s/pipeline/alignment.h"
#include "s2s/pipeline/translator.h"

namespace s2s::pipeline {
namespace {

// `masked` (of the text after a language label) as the masking of the whole line: the label put
// back before its text and every offset moved past it.
void put_label_before(const std::string& label, text::ProtectedText& masked) {
  if (label.empty()) return;
  const std::size_t label_code_points = text::code_point_count(label);
  masked.text.insert(0, label);
  for (text::ProtectedSpan& span : masked.spans) {
    span.begin += label.size();
    span.model_begin += label_code_points;
    span.model_end += label_code_points;
  }
}

// The hard piece pairs of hypothesis k, as the line's units were joined (translator.h).
AlignmentPairs piece_pairs(const Translation& translation, std::size_t k) {
  if (translation.split) return translation.units[k].alignment;
  const search::Hypothesis& h = translation.hypotheses[k];
  return h.alignment.empty() ? AlignmentPairs{}
                             : hard_alignment(h.alignment, translation.source.ids.size(), 1.0f);
}

}  // namespace

LineProtection protect_line(std::string& line, std::size_t label_bytes, const text::TextCodec& codec,
                            const ProtectionSettings& settings, InputNotes& notes) {
  LineProtection protection;
  const std::string label = line.substr(0, label_bytes);
  const std::string body = line.substr(label_bytes);
  const text::ProtectOptions options{settings.patterns ? &codec : nullptr, settings.patterns};
  if (settings.html) {
    text::MarkupLine markup = text::parse_markup(body);
    if (markup.problem.empty()) {
      protection.masked = text::protect_markup(markup, options);
      protection.markup = std::move(markup);
    } else {
      notes.markup_problem = markup.problem;
    }
  }
  if (!protection.markup) protection.masked = text::protect(body, options);
  notes.unspellable = protection.masked.unspellable;
  notes.protected_spans = protection.masked.spans.size();
  if (!protection.active()) return protection;
  put_label_before(label, protection.masked);
  line = protection.masked.text;
  return protection;
}

void restore_line(Translation& translation, const LineProtection& protection,
                  const std::vector<std::string>& decoded, const text::TextCodec& codec,
                  InputNotes& notes) {
  translation.texts.clear();
  translation.text_alignment.clear();
  for (std::size_t k = 0; k < translation.hypotheses.size(); ++k) {
    const search::Hypothesis& h = translation.hypotheses[k];
    const AlignmentPairs pairs = piece_pairs(translation, k);
    const WordAlignment words =
        pairs.empty() ? WordAlignment{}
                      : word_alignment(pairs, translation.source, codec.source_vocab(), h.ids,
                                       codec.target_vocab(), decoded[k]);
    text::Restored restored = text::restore(protection.masked, decoded[k], words.spans);
    if (k == 0) notes.spans_placed = restored.placed_by_alignment;
    if (protection.markup) {
      // The alignment is over the fragment's text, not the printed HTML: not kept.
      translation.texts.push_back(
          text::render_markup(*protection.markup, restored.text, restored.alignment));
    } else {
      translation.texts.push_back(std::move(restored.text));
      translation.text_alignment.push_back(std::move(restored.alignment));
    }
  }
}

std::vector<std::string> protection_messages(std::size_t line_number, const InputNotes& notes) {
  std::vector<std::string> out;
  if (!notes.markup_problem.empty()) {
    text::MarkupLine problem;
    problem.problem = notes.markup_problem;
    out.push_back(text::markup_message(line_number, problem));
  }
  text::ProtectedText named;
  named.unspellable = notes.unspellable;
  if (!named.unspellable.empty()) out.push_back(text::unspellable_message(line_number, named));
  return out;
}

}  // namespace s2s::pipeline
