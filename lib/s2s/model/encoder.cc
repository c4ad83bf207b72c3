#include "s2s/model/encoder.h"

#include "s2s/layers/mask.h"

namespace s2s::model {

Encoder::Encoder(layers::WeightStore& weights, const ModelConfig& config, Tensor embeddings,
                 Tensor positions)
    : heads_(config.heads),
      embedding_(weights, "encoder", std::move(embeddings), std::move(positions),
                 config.embedding()),
      has_final_norm_(config.final_norm) {
  const dim_t d = config.d_model;
  for (dim_t i = 0; i < config.encoder_layers; ++i) {
    const std::string p = "encoder/layer_" + std::to_string(i);
    layers_.push_back(Layer{
        layers::Residual(weights, p + "/self_attn", config.block()),
        layers::MultiHeadAttention(weights, p + "/self_attn", layers::AttentionKind::self, d,
                                   config.heads, config.relative_max_distance),
        layers::Residual(weights, p + "/ffn", config.block()),
        layers::FeedForward(weights, p + "/ffn", d, config.encoder_ffn_dim,
                            config.encoder_ffn_depth, config.activation)});
  }
  if (has_final_norm_)
    final_norm_ = layers::LayerNorm(weights, "encoder/final_norm", d, config.layer_norm_epsilon);
}

EncoderOutput Encoder::forward(const Tensor& ids, const std::vector<std::int32_t>& lengths) const {
  S2S_CHECK(ids.rank() == 2 && ids.dim(0) == static_cast<dim_t>(lengths.size()),
            "ids ", to_string(ids.shape()), " for ", lengths.size(), " lengths");
  EncoderOutput out;
  out.lengths = lengths;
  Tensor& x = out.memory;
  // Kept per thread across batches, as the decoder's state is: allocated afresh for every batch,
  // its buffers (tens of MB at batch 32) were mapped and page-faulted in again each time (26,545
  // -> 19,771 faults decoding 200 sentences with the shipped model, bench/NOTES.md). Only `x`
  // (returned) is new per call.
  thread_local LayerScratch s;
  embedding_(ids, 0, s.embedding, x);

  Tensor visible;  // padding mask: every query of sentence b sees its lengths[b] keys
  layers::padding_counts(lengths, heads_, ids.dim(1), visible);
  for (const Layer& layer : layers_) {
    const Tensor& y = layer.self_block.pre(x, s.normed);
    layer.self_attention.project_qkv(y, s.keys, s.values, s.attention);
    layer.self_attention.attend_projected(s.keys, s.values, &visible, s.attention, s.sublayer);
    layer.self_block.post(s.sublayer, x);
    std::swap(x, s.sublayer);

    const Tensor& z = layer.ffn_block.pre(x, s.normed);
    layer.ffn(z, s.sublayer, s.hidden, s.hidden2);
    layer.ffn_block.post(s.sublayer, x);
    std::swap(x, s.sublayer);
  }
  if (has_final_norm_) final_norm_(x, x);
  return out;
}

}  // namespace s2s::model
