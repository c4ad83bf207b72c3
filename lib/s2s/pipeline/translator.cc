#include "s2s/pipeline/translator.h"

#include <algorithm>
#include <numeric>

#include "s2s/batch/batch.h"
#include "s2s/search/beam.h"

namespace s2s {

bool is_blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

Translator::Translator(std::shared_ptr<const Model> model, TranslateOptions options)
    : model_(std::move(model)), options_(options) {
  if (options_.batch_size < 1) throw UsageError("batch size must be at least 1");
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines) const {
  std::vector<Translation> results(lines.size());
  std::vector<std::vector<std::int32_t>> ids(lines.size());
  std::vector<std::size_t> order;  // indices of lines that need the model
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i])) continue;
    ids[i] = model_->codec().encode_source(lines[i]);
    order.push_back(i);
  }
  // Similar lengths together waste less padding; stable keeps equal lengths in input order.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ids[a].size() < ids[b].size(); });
  const std::size_t batch_size = static_cast<std::size_t>(options_.batch_size);
  for (std::size_t start = 0; start < order.size(); start += batch_size) {
    const std::size_t end = std::min(order.size(), start + batch_size);
    std::vector<std::vector<std::int32_t>> sequences;
    for (std::size_t k = start; k < end; ++k) sequences.push_back(ids[order[k]]);
    const Batch batch = make_batch(sequences, model_->config().source_eos_id);
    const EncoderOutput encoded = model_->encoder().forward(batch.ids, batch.lengths);
    std::vector<std::vector<Hypothesis>> found = beam_search(*model_, encoded, options_.search);
    for (std::size_t k = start; k < end; ++k)
      results[order[k]].hypotheses = std::move(found[k - start]);
  }
  return results;
}

}  // namespace s2s
