// The Transformer decoder. Two entry points run the same layers:
//   step:         one token per row, self-attention keys/values appended to the state's cache,
//                 cross-attention keys/values computed once in start();
//   final_states: teacher forcing over a whole target sequence with a causal mask (scoring,
//                 target_log_probs).
// The first decoder input is the config's start (Marian: a zero vector), then the previous token.
// Shapes: B batch, T target length, S source length, D model dim, V target vocabulary.
#pragma once

#include <vector>

#include "s2s/layers/embedding.h"
#include "s2s/layers/feed_forward.h"
#include "s2s/layers/residual.h"
#include "s2s/model/config.h"
#include "s2s/model/decoder_state.h"
#include "s2s/model/encoder.h"

namespace s2s::model {

class Decoder {
 public:
  Decoder(layers::WeightStore& weights, const ModelConfig& config, Tensor embeddings,
          Tensor positions);

  // Prepares decoding of a batch for up to max_steps steps: projects the encoder output into
  // every layer's cross-attention keys/values and reserves the self-attention caches for up to
  // max_rows rows per step (at least the batch; beam search: batch x beam size).
  DecoderState start(const EncoderOutput& encoded, dim_t max_steps, dim_t max_rows = 0) const;
  // The same into an existing state, reusing its buffers where they are large enough: a
  // translator that keeps one state for all its batches allocates (and page-faults) its
  // caches once instead of once per batch.
  void start(const EncoderOutput& encoded, dim_t max_steps, DecoderState& state,
             dim_t max_rows = 0) const;

  // Until the next start(), step() computes the logits of `candidates` only (sorted target ids,
  // model/shortlist.h): column c of its logits is candidates[c], so that the log-softmax and the
  // choice of tokens cover the candidates alone, as Marian's and CTranslate2's shortlists do.
  // Their rows of the output layer are packed in the model's precision, once per call.
  // UsageError when the model keeps no float32 output rows (ops::Packing::keep_output_rows).
  void restrict_output(DecoderState& state, const std::vector<std::int32_t>& candidates) const;

  // UsageError when the model names no alignment layer, saying why (ModelConfig::alignment_note).
  void check_alignment() const;
  // Word alignment for the steps of this batch (DecoderState::alignment_row); check_alignment.
  void keep_alignment(DecoderState& state) const;

  // previous: int32 ids [B] of the tokens chosen at the previous step (start_id() at step 0).
  // logits: [B, V] raw scores for the next token ([B, C] after restrict_output, one column per
  // candidate); with Epilogue::log_softmax their log-softmax, each row's while it is in cache.
  void step(DecoderState& state, const std::vector<std::int32_t>& previous, Tensor& logits,
            ops::Epilogue epilogue = ops::Epilogue::none) const;

  // target: int32 [B, T] gold tokens (right-padded). workspace.states [B, T, D]: the decoder's
  // output before the output layer (final norm applied), position t computed from the start
  // input and target[:, :t]; project() turns it into logits predicting target[:, t].
  // alignment, when given: [B, T, S], the cross-attention probabilities of the alignment layer
  // (ModelConfig::alignment_layer), head 0, of every target position (word alignment).
  void final_states(const EncoderOutput& encoded, const Tensor& target, Workspace& workspace,
                    Tensor* alignment = nullptr) const;
  // The output layer: states [..., D] -> logits [..., V].
  void project(const Tensor& states, Tensor& logits) const { output_(states, logits); }

  // Teacher forcing for scoring: log_probs [B, T] = log p(target[b, t] | source, target[b, :t]),
  // without ever holding the [B, T, V] distribution (done a few rows at a time). Entries past a
  // target's length are meaningless. alignment: as final_states.
  void target_log_probs(const EncoderOutput& encoded, const Tensor& target, Workspace& workspace,
                        Tensor& log_probs, Tensor* alignment = nullptr) const;

  std::int32_t start_id() const { return start_id_; }
  // Bytes of self-attention keys and values that one row adds per step, over all layers: what
  // each beam hypothesis costs per token it decodes.
  std::size_t cache_bytes_per_token() const {
    return layers_.size() * 2 * static_cast<std::size_t>(d_model_) * dtype_size(cache_dtype_);
  }
  dim_t layer_count() const { return static_cast<dim_t>(layers_.size()); }
  dim_t model_dim() const { return d_model_; }

 private:
  struct Layer {
    layers::Residual self_block;
    layers::MultiHeadAttention self_attention;
    layers::Residual cross_block;
    layers::MultiHeadAttention cross_attention;
    layers::Residual ffn_block;
    layers::FeedForward ffn;
  };
  // Every layer over the shifted target with a causal mask: workspace.states [B, T, D] before
  // the final norm.
  void forward_layers(const EncoderOutput& encoded, const Tensor& target, Workspace& workspace,
                      Tensor* alignment) const;
  // The feed-forward block of a layer (shared by step and forward_layers), in place on x.
  void feed_forward(const Layer& layer, Tensor& x, LayerScratch& s) const;
  // step(): the alignment layer's head-0 probabilities into state.alignment_.
  void keep_alignment_rows(const Layer& layer, DecoderState& state) const;
  // Final norm + output projection: x [B, T, D] -> logits [B, T, V] (epilogue: step()).
  void output(Tensor& x, Tensor& logits, ops::Epilogue epilogue = ops::Epilogue::none) const;
  // step()'s output layer over the state's candidates: x [B, 1, D] -> logits [B, C].
  void restricted_output(DecoderState& state, Tensor& x, Tensor& logits,
                         ops::Epilogue epilogue) const;

  dim_t heads_;
  dim_t alignment_layer_;  // ModelConfig::alignment_layer
  std::string alignment_note_;
  dim_t d_model_;
  std::int32_t start_id_;
  // Of the key/value caches of step(): float32, or bfloat16 when the linear layers run in
  // bfloat16 or int8. That halves the caches, most of the memory of a beam-4 batch beyond the
  // weights (docs/performance.md, "Memory: huge pages, kept scratch, reused buffers"); those
  // precisions round their activations more coarsely anyway.
  DataType cache_dtype_;
  layers::Embedding embedding_;
  std::vector<Layer> layers_;
  bool has_final_norm_;
  layers::LayerNorm final_norm_;
  layers::Linear output_;
  // The output weight as float32 rows [V, D] and its bias [V] (empty without one), for
  // restrict_output: a view of the embedding table when tied, a copy when kept; rank 0 when
  // absent.
  Tensor output_rows_;
  Tensor output_bias_;
  ops::Packing output_packing_;  // the linear layers', for the candidates' output layer
};

}  // namespace s2s::model
