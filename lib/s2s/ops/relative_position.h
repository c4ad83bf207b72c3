// Relative position representations (Shaw et al. 2018, as OpenNMT-py and CTranslate2 compute
// them; docs/models.md, "CTranslate2"). Query i (absolute position i + offset, offset = L − T so
// that a single cached-decoding query sits at the last key) and key j are at distance bucket
//   idx(i, j) = clamp(j − (i + offset), −K, K) + K,   K = max_distance, R = 2K + 1 buckets.
// The attention layer computes Q·R_Kᵀ with a matmul and then:
//   add_relative_scores:  scores[b,h,i,j] += qr[b,h,i,idx(i,j)]     (the relative logit term)
//   bucket_by_distance:   buckets[b,h,i,c] = Σ_{j: idx(i,j)=c} probs[b,h,i,j]
// after which buckets·R_V is the relative value term. Both are plain loops: oneDNN has no
// primitive for them and they cost O(B·H·T·L), far below the matmuls around them.
// Shapes: scores/probs f32 [B, H, T, L] contiguous; qr/buckets f32 [B, H, T, R].
#pragma once

#include "s2s/core/tensor.h"

namespace s2s::ops {

void add_relative_scores(const Tensor& qr, dim_t max_distance, Tensor& scores);
void bucket_by_distance(const Tensor& probs, dim_t max_distance, Tensor& buckets);

}  // namespace s2s::ops
