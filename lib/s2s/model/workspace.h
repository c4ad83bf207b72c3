// Workspace: the scratch one worker's encoder and teacher-forced decoder passes write, kept from
// one batch to the next so that its buffers (tens of MB at batch 32) are allocated and
// page-faulted in once rather than per batch. A worker (a translator's or scorer's job) leases
// one from the model's pool (Model::workspaces) and passes it down; two jobs at once never share
// one. Step-by-step decoding keeps its own temporaries in its DecoderState.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

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

// Workspaces for whoever runs a model: lease() hands out a free one (a new one when all are in
// use) and takes it back when the lease ends. As many exist as jobs ever ran at once.
class WorkspacePool {
 public:
  class Lease {
   public:
    Lease(WorkspacePool& pool, std::unique_ptr<Workspace> workspace)
        : pool_(&pool), workspace_(std::move(workspace)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (workspace_) pool_->give_back(std::move(workspace_));
    }
    Workspace& operator*() const { return *workspace_; }
    Workspace* operator->() const { return workspace_.get(); }

   private:
    WorkspacePool* pool_;
    std::unique_ptr<Workspace> workspace_;
  };

  Lease lease() {
    std::unique_ptr<Workspace> free;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        free = std::move(free_.back());
        free_.pop_back();
      }
    }
    return Lease(*this, free ? std::move(free) : std::make_unique<Workspace>());
  }

 private:
  void give_back(std::unique_ptr<Workspace> workspace) {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(workspace));
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<Workspace>> free_;
};

}  // namespace s2s::model
