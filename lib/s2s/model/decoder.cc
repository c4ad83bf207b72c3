#include "s2s/model/decoder.h"

#include <algorithm>
#include <numeric>

#include "s2s/core/error.h"
#include "s2s/layers/mask.h"
#include "s2s/ops/gather.h"
#include "s2s/ops/softmax.h"

namespace s2s::model {
Decoder::Decoder(layers::WeightStore& weights, const ModelConfig& config, Tensor embeddings,
                 Tensor positions)
    : heads_(config.heads),
      alignment_layer_(config.alignment_layer),
      alignment_note_(config.alignment_note),
      d_model_(config.d_model),
      start_id_(config.decoder_start_id),
      cache_dtype_(weights.linear_precision() == ops::Precision::f32 ? DataType::f32
                                                                     : DataType::bf16),
      embedding_(weights, "decoder", std::move(embeddings), std::move(positions),
                 config.embedding()),
      has_final_norm_(config.final_norm),
      output_packing_(weights.linear_packing()) {
  const dim_t d = config.d_model;
  for (dim_t i = 0; i < config.decoder_layers; ++i) {
    const std::string p = "decoder/layer_" + std::to_string(i);
    layers_.push_back(Layer{
        layers::Residual(weights, p + "/self_attn", config.block()),
        layers::MultiHeadAttention(weights, p + "/self_attn", layers::AttentionKind::self, d,
                                   config.heads, config.relative_max_distance),
        layers::Residual(weights, p + "/cross_attn", config.block()),
        layers::MultiHeadAttention(weights, p + "/cross_attn", layers::AttentionKind::cross,
                                   d, config.heads),
        layers::Residual(weights, p + "/ffn", config.block()),
        layers::FeedForward(weights, p + "/ffn", d, config.decoder_ffn_dim,
                            config.decoder_ffn_depth, config.activation)});
  }
  if (has_final_norm_)
    final_norm_ = layers::LayerNorm(weights, "decoder/final_norm", d, config.layer_norm_epsilon);

  Tensor bias;
  if (config.output_bias) {
    bias = weights.take("decoder/output/bias", {config.target_vocab_size});
    output_bias_ = bias.clone();
  }
  if (config.tied_output) {
    output_ = layers::Linear(embedding_.table().view(), ops::WeightLayout::out_in,
                             config.output_bias ? &bias : nullptr, weights.linear_packing());
    output_rows_ = embedding_.table().view();
    return;
  }
  auto w = weights.take_linear("decoder/output/weight", d, config.target_vocab_size);
  if (weights.linear_packing().keep_output_rows)
    output_rows_ = w.layout == ops::WeightLayout::out_in ? w.weight.clone()
                                                         : w.weight.permuted({1, 0}).clone();
  output_ = layers::Linear(std::move(w.weight), w.layout, config.output_bias ? &bias : nullptr,
                           weights.linear_packing());
}

void Decoder::restrict_output(DecoderState& state,
                              const std::vector<std::int32_t>& candidates) const {
  if (output_rows_.rank() != 2 || output_rows_.dtype() != DataType::f32)
    throw UsageError(
        "a shortlist needs the output layer's float32 rows, which this model was loaded without "
        "(load it with ops::Packing::keep_output_rows)");
  const dim_t vocab = output_rows_.dim(0);
  for (std::int32_t id : candidates)
    S2S_CHECK(id >= 0 && id < vocab, "shortlist candidate ", id, " outside the vocabulary of ",
              vocab);
  state.candidates_ = candidates;
  const auto count = static_cast<dim_t>(candidates.size());
  const Tensor ids = Tensor::wrap(state.candidates_.data(), {count}, DataType::i32);
  Tensor rows, bias;
  ops::gather_rows(output_rows_, ids, rows);
  if (output_bias_.rank() == 1) {
    bias.resize({count});
    for (dim_t c = 0; c < count; ++c)
      bias.data<float>()[c] = output_bias_.data<float>()[candidates[static_cast<std::size_t>(c)]];
  }
  state.candidate_output_ = layers::Linear(std::move(rows), ops::WeightLayout::out_in,
                                           bias.rank() == 1 ? &bias : nullptr, output_packing_);
}

void Decoder::restricted_output(DecoderState& state, Tensor& x, Tensor& logits,
                                ops::Epilogue epilogue) const {
  if (has_final_norm_) final_norm_(x, x);
  state.candidate_output_(x, logits, epilogue);
  logits.reshape({x.dim(0), logits.dim(-1)});
}

DecoderState Decoder::start(const EncoderOutput& encoded, dim_t max_steps,
                            dim_t max_rows) const {
  DecoderState state;
  start(encoded, max_steps, state, max_rows);
  return state;
}

void Decoder::start(const EncoderOutput& encoded, dim_t max_steps, DecoderState& state,
                    dim_t max_rows) const {
  const dim_t batch = encoded.memory.dim(0), source_len = encoded.memory.dim(1);
  const dim_t head_dim = d_model_ / heads_;
  state.step_ = 0;
  state.candidates_.clear();      // the whole vocabulary until restrict_output
  state.keep_alignment_ = false;  // a state reused for another batch: asked again
  state.limit_ = max_steps;
  state.row_capacity_ = std::max(batch, max_rows);
  state.source_lengths_ = encoded.lengths;
  state.origin_.resize(static_cast<std::size_t>(batch));
  std::iota(state.origin_.begin(), state.origin_.end(), 0);
  state.history_.resize({batch, max_steps}, DataType::i32);
  state.layers_.resize(layers_.size());
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    LayerCache& cache = state.layers_[i];
    // When the caches must be reallocated, room for batches up to twice as long, so that they
    // are not reallocated (and faulted in again) for every slightly longer batch: decoding
    // touches only the slabs it writes, so the reserve costs address space, not memory.
    const Shape self_shape{max_steps, state.row_capacity_, heads_, head_dim};
    const std::size_t bytes =
        static_cast<std::size_t>(num_elements(self_shape)) * dtype_size(cache_dtype_);
    for (Tensor* self_cache : {&cache.self_keys, &cache.self_values}) {
      if (self_cache->capacity() < bytes) self_cache->reserve(2 * bytes);
      self_cache->resize(self_shape, cache_dtype_);
    }
    // Batches come sorted by length, each a little longer: grown by half at a time, not to fit.
    const Shape cross_shape{batch, heads_, source_len, head_dim};
    const std::size_t cross_bytes =
        static_cast<std::size_t>(num_elements(cross_shape)) * dtype_size(cache_dtype_);
    for (Tensor* cross_cache : {&cache.cross_keys, &cache.cross_values}) {
      if (cross_cache->capacity() < cross_bytes) cross_cache->reserve(cross_bytes + cross_bytes / 2);
      cross_cache->resize(cross_shape, cache_dtype_);
    }
    layers_[i].cross_attention.project_kv(encoded.memory, cache.cross_keys, cache.cross_values,
                                          state.scratch_.attention);
  }
  // Size the step temporaries for the largest step now, so that steps never allocate.
  LayerScratch& s = state.scratch_;
  const dim_t rows = state.row_capacity_;
  s.attention.scores.resize({rows, heads_, 1, std::max(max_steps, source_len)});
  s.attention.projected.resize({rows, 1, 3 * d_model_});  // a step's fused Q, K, V
}

void Decoder::step(DecoderState& state, const std::vector<std::int32_t>& previous, Tensor& logits,
                   ops::Epilogue epilogue) const {
  const dim_t batch = state.batch_size(), t = state.step_;
  S2S_CHECK(static_cast<dim_t>(previous.size()) == batch, previous.size(), " ids for ", batch,
            " rows");
  if (t >= state.limit_)
    throw InternalError("decoder step " + std::to_string(t) + " beyond the limit of " +
                        std::to_string(state.limit_) + " steps");
  state.begin_step();
  state.ids_.resize({batch, 1}, DataType::i32);
  std::copy(previous.begin(), previous.end(), state.ids_.data<std::int32_t>());
  Tensor& x = state.x_;
  LayerScratch& s = state.scratch_;
  embedding_(state.ids_, t, s.embedding, x);  // [B, 1, D] at position t

  const Tensor sentence_of_row = Tensor::wrap(state.origin_.data(), {batch}, DataType::i32);
  const Tensor source_lengths = Tensor::wrap(state.source_lengths_.data(), {batch}, DataType::i32);
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    LayerCache& cache = state.layers_[i];
    // Self-attention: write this position's keys/values into the cache, attend over 0..t.
    const Tensor& y = layer.self_block.pre(x, s.normed);
    layer.self_attention.step_self(y, cache.self_keys, cache.self_values, t, state.history_,
                                   s.attention, s.sublayer);
    layer.self_block.post(s.sublayer, x);
    std::swap(x, s.sublayer);
    // Cross-attention: each row over its own sentence's keys/values.
    const Tensor& z = layer.cross_block.pre(x, s.normed);
    layer.cross_attention.step_cross(z, cache.cross_keys, cache.cross_values, sentence_of_row,
                                     source_lengths, s.attention, s.sublayer);
    if (state.keep_alignment_ && static_cast<dim_t>(i) == alignment_layer_)
      keep_alignment_rows(layer, state);
    layer.cross_block.post(s.sublayer, x);
    std::swap(x, s.sublayer);
    feed_forward(layer, x, s);
  }
  if (state.candidates_.empty()) {
    output(x, logits, epilogue);
    logits.reshape({batch, logits.dim(-1)});
  } else {
    restricted_output(state, x, logits, epilogue);
  }
  ++state.step_;
}

void Decoder::check_alignment() const {
  if (alignment_layer_ < 0)
    throw UsageError("--alignment: this model cannot give word alignments: " + alignment_note_);
}

void Decoder::keep_alignment(DecoderState& state) const {
  check_alignment();
  state.keep_alignment_ = true;
}

void Decoder::keep_alignment_rows(const Layer& layer, DecoderState& state) const {
  const dim_t batch = state.batch_size(), keys = state.layers_.front().cross_keys.dim(2);
  state.alignment_.resize({batch, keys});
  for (dim_t r = 0; r < batch; ++r) {
    const float* p = layer.cross_attention.probabilities(state.scratch_.attention, r, 0, 0, 1, keys);
    float* row = state.alignment_.data<float>() + r * keys;
    const dim_t n = std::min(keys, state.source_length(r));
    std::copy_n(p, n, row);
    std::fill(row + n, row + keys, 0.0f);
  }
}

void Decoder::final_states(const EncoderOutput& encoded, const Tensor& target,
                           Workspace& workspace, Tensor* alignment) const {
  forward_layers(encoded, target, workspace, alignment);
  if (has_final_norm_) final_norm_(workspace.states, workspace.states);
}

void Decoder::target_log_probs(const EncoderOutput& encoded, const Tensor& target,
                               Workspace& workspace, Tensor& log_probs, Tensor* alignment) const {
  if (alignment != nullptr) check_alignment();
  final_states(encoded, target, workspace, alignment);
  const dim_t rows = target.numel();
  log_probs.resize(target.shape(), DataType::f32);
  const Tensor flat = workspace.states.reshaped({rows, d_model_});
  const std::int32_t* gold = target.data<std::int32_t>();
  float* out = log_probs.data<float>();
  // A few rows at a time: the [rows, V] log-softmax of a whole batch would not fit in memory.
  constexpr dim_t kRowsPerChunk = 64;
  Tensor& logits = workspace.logits;
  Tensor& chunk_log_probs = workspace.chunk_log_probs;
  for (dim_t first = 0; first < rows; first += kRowsPerChunk) {
    const dim_t last = std::min(rows, first + kRowsPerChunk);
    output_(flat.slice(0, first, last), logits);
    ops::log_softmax(logits, chunk_log_probs);
    const dim_t vocab = chunk_log_probs.dim(1);
    for (dim_t r = first; r < last; ++r) {
      const std::int32_t id = gold[r];
      S2S_CHECK(id >= 0 && id < vocab, "target id ", id, " outside the vocabulary of ", vocab);
      out[r] = chunk_log_probs.data<float>()[(r - first) * vocab + id];
    }
  }
}

void Decoder::forward_layers(const EncoderOutput& encoded, const Tensor& target,
                             Workspace& workspace, Tensor* alignment) const {
  S2S_CHECK(target.rank() == 2 && target.dtype() == DataType::i32 &&
                target.dim(0) == encoded.memory.dim(0),
            "target ", to_string(target.shape()), " for a batch of ", encoded.memory.dim(0));
  const dim_t batch = target.dim(0), steps = target.dim(1);
  // Decoder input: the start token, then the gold target shifted right by one.
  Tensor inputs({batch, steps}, DataType::i32);
  const std::int32_t* gold = target.data<std::int32_t>();
  std::int32_t* in = inputs.data<std::int32_t>();
  for (dim_t b = 0; b < batch; ++b)
    for (dim_t t = 0; t < steps; ++t) in[b * steps + t] = t == 0 ? start_id_ : gold[b * steps + t - 1];

  // The worker's, kept across batches (model/workspace.h): allocated afresh for every batch,
  // these buffers (several MB each when scoring) were mapped and page-faulted in again for each
  // one (docs/performance.md, "Memory: huge pages, kept scratch, reused buffers").
  LayerScratch& s = workspace.decoder;
  Tensor& x = workspace.states;
  Tensor& causal = workspace.causal;
  Tensor& cross_visible = workspace.cross_visible;
  Tensor& cross_keys = workspace.cross_keys;
  Tensor& cross_values = workspace.cross_values;
  embedding_(inputs, 0, s.embedding, x);
  layers::causal_counts(batch, heads_, steps, causal);
  layers::padding_counts(encoded.lengths, heads_, steps, cross_visible);
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    const Tensor& y = layer.self_block.pre(x, s.normed);
    layer.self_attention.project_qkv(y, s.keys, s.values, s.attention);
    layer.self_attention.attend_projected(s.keys, s.values, &causal, s.attention, s.sublayer);
    layer.self_block.post(s.sublayer, x);
    std::swap(x, s.sublayer);
    layer.cross_attention.project_kv(encoded.memory, cross_keys, cross_values, s.attention);
    const Tensor& z = layer.cross_block.pre(x, s.normed);
    layer.cross_attention.attend(z, cross_keys, cross_values, &cross_visible, s.attention,
                                 s.sublayer);
    if (alignment != nullptr && static_cast<dim_t>(i) == alignment_layer_) {
      const dim_t keys = cross_keys.dim(2);
      alignment->resize({batch, steps, keys});
      for (dim_t b = 0; b < batch; ++b)
        for (dim_t t = 0; t < steps; ++t)
          std::copy_n(layer.cross_attention.probabilities(s.attention, b, 0, t, steps, keys), keys,
                      alignment->data<float>() + (b * steps + t) * keys);
    }
    layer.cross_block.post(s.sublayer, x);
    std::swap(x, s.sublayer);
    feed_forward(layer, x, s);
  }
}

void Decoder::feed_forward(const Layer& layer, Tensor& x, LayerScratch& s) const {
  const Tensor& z = layer.ffn_block.pre(x, s.normed);
  layer.ffn(z, s.sublayer, s.hidden, s.hidden2);
  layer.ffn_block.post(s.sublayer, x);
  std::swap(x, s.sublayer);
}

void Decoder::output(Tensor& x, Tensor& logits, ops::Epilogue epilogue) const {
  if (has_final_norm_) final_norm_(x, x);
  output_(x, logits, epilogue);
}

}  // namespace s2s::model
