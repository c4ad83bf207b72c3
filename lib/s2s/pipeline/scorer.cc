#include "s2s/pipeline/scorer.h"

#include <algorithm>

#include "s2s/batch/batch.h"
#include "s2s/batch/batcher.h"
#include "s2s/search/scoring_rules.h"

namespace s2s::pipeline {

Scorer::Scorer(std::shared_ptr<const model::Model> model, ScoreOptions options)
    : model_(std::move(model)), options_(options) {
  if (options_.batch_size < 1) throw UsageError("batch size must be at least 1");
  if (options_.batch_tokens < 0) throw UsageError("batch tokens must not be negative");
  if (options_.alignment.on()) model_->decoder().check_alignment();  // before any input
}

std::vector<PairScore> Scorer::score(const std::vector<std::pair<std::string, std::string>>& pairs,
                                     const std::atomic<bool>* stop) const {
  const text::TextCodec& codec = model_->codec();
  std::vector<std::vector<std::int32_t>> sources(pairs.size());
  std::vector<PairScore> results(pairs.size());
  std::vector<std::size_t> lengths(pairs.size());
  const std::size_t start = options_.target_start.size();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    sources[i] = codec.encode_source(options_.source_label.empty()
                                         ? pairs[i].first
                                         : options_.source_label + " " + pairs[i].first);
    results[i].target_ids = codec.encode_target(pairs[i].second);
    // The decoder pass dominates: batch by target (the language token included).
    lengths[i] = results[i].target_ids.size() + start;
    const dim_t limit = model_->config().max_positions;
    results[i].beyond_positions =
        limit > 0 && std::max(sources[i].size(), lengths[i]) > static_cast<std::size_t>(limit);
  }
  search::SearchOptions rules;
  rules.normalize = options_.normalize;
  const batch::BatchLimits limits{options_.batch_size, options_.batch_tokens};
  Tensor log_probs, alignment;
  // Longest batches first, as Translator does: the workspace's buffers (model/workspace.h)
  // then reach their size at once instead of growing (and being faulted in again) batch after
  // batch. The batches themselves, and so every score, are the same in any order.
  std::vector<std::vector<std::size_t>> batches = batch::make_batches(lengths, limits);
  std::reverse(batches.begin(), batches.end());
  const model::WorkspacePool::Lease workspace = model_->workspaces().lease();
  for (const std::vector<std::size_t>& members : batches) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return {};
    std::vector<std::vector<std::int32_t>> src, tgt;
    for (std::size_t m : members) {
      src.push_back(sources[m]);
      tgt.push_back(options_.target_start);
      tgt.back().insert(tgt.back().end(), results[m].target_ids.begin(), results[m].target_ids.end());
    }
    const batch::Batch source_batch = batch::make_batch(src, model_->config().source_eos_id);
    const batch::Batch target_batch = batch::make_batch(tgt, model_->config().eos_id);
    const model::EncoderOutput encoded =
        model_->encoder().forward(source_batch.ids, source_batch.lengths, *workspace);
    model_->decoder().target_log_probs(encoded, target_batch.ids, *workspace, log_probs,
                                       options_.alignment.on() ? &alignment : nullptr);
    const dim_t steps = log_probs.dim(1);
    for (std::size_t k = 0; k < members.size(); ++k) {
      PairScore& r = results[members[k]];
      const float* row = log_probs.data<float>() + static_cast<dim_t>(k) * steps + start;
      r.token_scores.assign(row, row + r.target_ids.size());
      for (float lp : r.token_scores) r.score += lp;  // summed in order, in float32 as Marian
      r.normalized_score = search::normalized_score(r.score, r.target_ids.size() + start, rules);
      if (options_.alignment.on()) {
        r.source = AlignedSource::whole(src[k], pairs[members[k]].first, false);
        r.target_text = pairs[members[k]].second;
        const dim_t keys = alignment.dim(2);
        const std::size_t width = src[k].size();
        for (std::size_t t = start; t < start + r.target_ids.size(); ++t) {
          const float* a = alignment.data<float>() + (static_cast<dim_t>(k) * steps + t) * keys;
          r.alignment.insert(r.alignment.end(), a, a + width);
        }
      }
    }
  }
  return results;
}

}  // namespace s2s::pipeline
