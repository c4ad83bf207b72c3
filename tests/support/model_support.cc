#include "support/model_support.h"

namespace s2s::test {

model::EncoderOutput encode(const model::Encoder& encoder, const Tensor& ids,
                            const std::vector<std::int32_t>& lengths) {
  model::Workspace workspace;
  return encoder.forward(ids, lengths, workspace);
}

void forward_all(const model::Decoder& decoder, const model::EncoderOutput& encoded,
                 const Tensor& target, Tensor& logits) {
  model::Workspace workspace;
  decoder.final_states(encoded, target, workspace);
  decoder.project(workspace.states, logits);
}

void target_log_probs(const model::Decoder& decoder, const model::EncoderOutput& encoded,
                      const Tensor& target, Tensor& log_probs, Tensor* alignment) {
  model::Workspace workspace;
  decoder.target_log_probs(encoded, target, workspace, log_probs, alignment);
}

}  // namespace s2s::test
