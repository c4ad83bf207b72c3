// Whole-model conveniences for tests: each call with a workspace of its own (the library's
// workers lease theirs from Model::workspaces and keep it across batches).
#pragma once

#include <cstdint>
#include <vector>

#include "s2s/model/decoder.h"
#include "s2s/model/encoder.h"

namespace s2s::test {

// Encoder::forward in a fresh workspace.
model::EncoderOutput encode(const model::Encoder& encoder, const Tensor& ids,
                            const std::vector<std::int32_t>& lengths);

// Teacher forcing over a whole target: logits [B, T, V], position t predicting target[:, t]
// from the start input and target[:, :t] (Decoder::final_states, then its output layer).
void forward_all(const model::Decoder& decoder, const model::EncoderOutput& encoded,
                 const Tensor& target, Tensor& logits);

// Decoder::target_log_probs in a fresh workspace.
void target_log_probs(const model::Decoder& decoder, const model::EncoderOutput& encoded,
                      const Tensor& target, Tensor& log_probs, Tensor* alignment = nullptr);

}  // namespace s2s::test
