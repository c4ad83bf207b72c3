#include "s2s/pipeline/translator.h"

#include <algorithm>

#include "s2s/batch/batch.h"
#include "s2s/batch/batcher.h"
#include "s2s/search/beam.h"

namespace s2s {

bool is_blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

Translator::Translator(std::shared_ptr<const Model> model, TranslateOptions options)
    : model_(std::move(model)), options_(options) {
  if (options_.batch_size < 1) throw UsageError("batch size must be at least 1");
  if (options_.batch_tokens < 0) throw UsageError("batch tokens must not be negative");
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines) const {
  std::vector<Translation> results(lines.size());
  std::vector<std::vector<std::int32_t>> ids;  // encoded non-blank lines
  std::vector<std::size_t> slot;               // their input positions
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i])) continue;
    ids.push_back(model_->codec().encode_source(lines[i]));
    slot.push_back(i);
  }
  std::vector<std::size_t> lengths;
  for (const auto& s : ids) lengths.push_back(s.size());
  const BatchLimits limits{options_.batch_size, options_.batch_tokens};
  for (const std::vector<std::size_t>& members : make_batches(lengths, limits)) {
    std::vector<std::vector<std::int32_t>> sequences;
    for (std::size_t m : members) sequences.push_back(ids[m]);
    const Batch batch = make_batch(sequences, model_->config().source_eos_id);
    const EncoderOutput encoded = model_->encoder().forward(batch.ids, batch.lengths);
    std::vector<std::vector<Hypothesis>> found = beam_search(*model_, encoded, options_.search);
    for (std::size_t k = 0; k < members.size(); ++k)
      results[slot[members[k]]].hypotheses = std::move(found[k]);
  }
  return results;
}

}  // namespace s2s
