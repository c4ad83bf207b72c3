#include "s2s/layers/embedding.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "s2s/ops/elementwise.h"
#include "s2s/ops/gather.h"

namespace s2s::layers {

void sinusoid_positions(PositionEncoding kind, dim_t first, dim_t count, dim_t d, Tensor& out) {
  S2S_CHECK(kind == PositionEncoding::sinusoid_marian || kind == PositionEncoding::sinusoid_hf,
            "not a sinusoid: ", position_encoding_name(kind));
  out.resize({count, d}, DataType::f32);
  const dim_t half = d / 2;
  // Marian: inc = ln(1e4) / (half - 1) (tensor2tensor style); HF: ln(1e4) / half.
  const float denominator = static_cast<float>(kind == PositionEncoding::sinusoid_marian
                                                   ? std::max<dim_t>(half - 1, 1)
                                                   : half);
  const float inc = std::log(10000.0f) / denominator;
  float* p = out.data<float>();
  for (dim_t r = 0; r < count; ++r) {
    const float pos = static_cast<float>(first + r);
    for (dim_t k = 0; k < half; ++k) {
      const float w = std::exp(-static_cast<float>(k) * inc);
      p[r * d + k] = std::sin(pos * w);
      p[r * d + half + k] = std::cos(pos * w);
    }
  }
}

Embedding::Embedding(WeightStore& weights, const std::string& stack, Tensor table,
                     Tensor positions, const EmbeddingSettings& config)
    : table_(std::move(table)),
      learned_positions_(std::move(positions)),
      kind_(config.positions),
      scale_(config.scale_embeddings ? std::sqrt(static_cast<float>(config.d_model)) : 1.0f),
      position_offset_(config.position_offset),
      has_norm_(config.embedding_norm) {
  if (has_norm_)
    norm_ = LayerNorm(weights, stack + "/emb_norm", config.d_model, config.layer_norm_epsilon);
}

void Embedding::operator()(const Tensor& ids, dim_t first_position, EmbeddingScratch& s,
                           Tensor& out) const {
  S2S_CHECK(ids.rank() == 2 && ids.dtype() == DataType::i32, "ids must be int32 [B, T], got ",
            to_string(ids.shape()));
  const dim_t batch = ids.dim(0), steps = ids.dim(1), d = table_.dim(1);

  // -1 (the zero start vector) is looked up as row 0 and zeroed afterwards.
  s.lookup_ids.resize({batch * steps}, DataType::i32);
  const std::int32_t* in = ids.data<std::int32_t>();
  std::int32_t* lookup = s.lookup_ids.data<std::int32_t>();
  for (dim_t i = 0; i < batch * steps; ++i) lookup[i] = in[i] < 0 ? 0 : in[i];
  out.resize({batch, steps, d}, DataType::f32);
  Tensor rows_out = out.reshaped({batch * steps, d});
  ops::gather_rows(table_, s.lookup_ids, rows_out);
  float* o = out.data<float>();
  for (dim_t i = 0; i < batch * steps; ++i)
    if (in[i] < 0) std::fill(o + i * d, o + (i + 1) * d, 0.0f);

  Tensor& pe = s.positions;
  if (kind_ == PositionEncoding::learned) {
    // Marian clamps positions past the table to its last row.
    s.position_rows.resize({steps}, DataType::i32);
    const dim_t last = learned_positions_.dim(0) - 1;
    for (dim_t t = 0; t < steps; ++t)
      s.position_rows.data<std::int32_t>()[t] =
          static_cast<std::int32_t>(std::min(first_position + t, last));
    pe.resize({steps, d}, DataType::f32);
    ops::gather_rows(learned_positions_, s.position_rows, pe);
  } else if (kind_ != PositionEncoding::none) {
    sinusoid_positions(kind_, first_position + position_offset_, steps, d, pe);
  }
  if (kind_ == PositionEncoding::none) {
    for (dim_t i = 0; i < out.numel(); ++i) o[i] *= scale_;
  } else {
    ops::add(out, pe, out, scale_);  // out = scale · E[id] + PE, PE broadcast over the batch
  }
  if (has_norm_) norm_(out, out);
}

}  // namespace s2s::layers
