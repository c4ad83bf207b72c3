// The reference twins of the ops (ops::ref): the plainest loops that compute what each op's
// header says, one element at a time, in the order the definition reads. Tests check the fast
// ops against them; the library never calls them, so they live here, in the test support
// library, and not in libs2s.
#pragma once

#include "s2s/ops/elementwise.h"
#include "s2s/ops/gather.h"
#include "s2s/ops/layer_norm.h"
#include "s2s/ops/matmul.h"
#include "s2s/ops/softmax.h"
#include "s2s/ops/step_attention.h"
#include "s2s/ops/topk.h"
#include "s2s/ops/transpose.h"

namespace s2s::ops::ref {

// ops/elementwise.h
void activation(Activation act, const Tensor& x, Tensor& y);
void add(const Tensor& a, const Tensor& b, Tensor& c, float a_scale = 1.0f);

// ops/gather.h
void gather_rows(const Tensor& table, const Tensor& ids, Tensor& out);

// ops/layer_norm.h
void layer_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon, Tensor& y);

// ops/matmul.h
void matmul(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options = {});

// ops/softmax.h
void softmax(const Tensor& x, Tensor& y, const Tensor* visible = nullptr);
void log_softmax(const Tensor& x, Tensor& y);

// ops/step_attention.h
void step_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const StepAttentionRows& rows, float scale, Tensor& scores, Tensor& out);

// ops/topk.h
void topk(const Tensor& x, dim_t k, Tensor& values, Tensor& indices);

// ops/transpose.h
void split_heads(const Tensor& x, dim_t heads, Tensor& y);
void merge_heads(const Tensor& x, Tensor& y);

}  // namespace s2s::ops::ref
