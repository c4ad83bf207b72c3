#include "s2s/model/encoder.h"

#include <algorithm>

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

namespace {

// Sentences go through the layers a group at a time, at most this many positions (padding
// included) per group: the layer scratch (Q/K/V, attention scores, the feed-forward's hidden
// layer) is sized for one group, not for the batch. Each sentence's result is the same either way
// (every op works per position or per sentence). A batch of 32 long sentences (153 positions,
// table B's first) needed 72 MB of scratch per thread, faulted in afresh by every worker.
constexpr dim_t kGroupPositions = 2048;

}  // namespace

EncoderOutput Encoder::forward(const Tensor& ids, const std::vector<std::int32_t>& lengths,
                               Workspace& workspace) const {
  S2S_CHECK(ids.rank() == 2 && ids.dim(0) == static_cast<dim_t>(lengths.size()),
            "ids ", to_string(ids.shape()), " for ", lengths.size(), " lengths");
  const dim_t batch = ids.dim(0), length = ids.dim(1);
  const dim_t per_group = std::max<dim_t>(1, kGroupPositions / std::max<dim_t>(length, 1));
  EncoderOutput out;
  out.lengths = lengths;
  if (per_group >= batch) {
    encode(ids, lengths, workspace.encoder, out.memory);
    return out;
  }
  Tensor& group_out = workspace.encoder_group;
  for (dim_t first = 0; first < batch; first += per_group) {
    const dim_t last = std::min(batch, first + per_group);
    const std::vector<std::int32_t> group_lengths(lengths.begin() + first, lengths.begin() + last);
    encode(ids.slice(0, first, last), group_lengths, workspace.encoder, group_out);
    if (first == 0) out.memory.resize({batch, length, group_out.dim(2)});
    out.memory.slice(0, first, last).copy_from(group_out);
  }
  return out;
}

void Encoder::encode(const Tensor& ids, const std::vector<std::int32_t>& lengths,
                     LayerScratch& s, Tensor& x) const {
  // `s` is the worker's, kept across batches (model/workspace.h; docs/performance.md, "Memory:
  // huge pages, kept scratch, reused buffers"); only `x` (returned) is new.
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
}

}  // namespace s2s::model
