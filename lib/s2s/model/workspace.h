// Workspace: the scratch one worker's encoder and teacher-forced decoder passes write, kept from
// one batch to the next so that its buffers (tens of MB at batch 32) are allocated and
// page-faulted in once rather than per batch. A worker (a translator's or scorer's job) leases
// one from the model's pool (Model::workspaces) and passes it down; two jobs at once never share
// one. Step-by-step decoding keeps its own temporaries in its DecoderState.
#pragma once

#include "s2s/core/pool.h"
#include "s2s/model/layer_scratch.h"

namespace s2s::model {

struct Workspace {
  // Encoder::forward
  LayerScratch encoder;
  Tensor encoder_group;  // one group's output [B', S, D] (Encoder::forward)
  // Decoder::final_states and target_log_probs
  LayerScratch decoder;
  Tensor states;                       // [B, T, D]
  Tensor causal, cross_visible;        // attention masks
  Tensor cross_keys, cross_values;     // one layer's projected encoder output
  Tensor logits, chunk_log_probs;      // a few rows at a time (target_log_probs)
};

// A worker's workspace, taken for a job and given back after (core/pool.h).
using WorkspacePool = Pool<Workspace>;

}  // namespace s2s::model
