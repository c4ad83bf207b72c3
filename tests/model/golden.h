// The golden outputs of tests/data/golden/*.npz (tools/fixtures/*.py) and the step-by-step
// comparison with them that the parity tests share.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "s2s/formats/npz.h"
#include "s2s/model/model.h"
#include "test_utils.h"

namespace s2s::test {

// tests/data/golden/<name>.npz
struct Golden {
  formats::NpzArchive npz;
  explicit Golden(const std::string& name) : npz(data_path("golden/" + name + ".npz")) {}
  Tensor get(const std::string& key) const { return npz.read_tensor(key); }
};

// The first `length` ids of row b of a [B, L] int32 tensor.
inline std::vector<std::int32_t> row(const Tensor& ids, dim_t b, dim_t length) {
  const std::int32_t* p = ids.data<std::int32_t>() + b * ids.dim(1);
  return std::vector<std::int32_t>(p, p + length);
}

inline std::vector<std::int32_t> lengths_of(const Tensor& t) {
  const std::int32_t* p = t.data<std::int32_t>();
  return std::vector<std::int32_t>(p, p + t.numel());
}

// The reference's greedy ids of sentence b (the golden array is right-padded with -1).
inline std::vector<std::int32_t> greedy_row(const Tensor& greedy_ids, dim_t b) {
  std::vector<std::int32_t> ids;
  for (dim_t t = 0; t < greedy_ids.dim(1); ++t) {
    const std::int32_t id = greedy_ids.data<std::int32_t>()[b * greedy_ids.dim(1) + t];
    if (id >= 0) ids.push_back(id);
  }
  return ids;
}

// Worst errors of step logits over the steps compared: compare()'s element-wise relative error,
// the norm-wise one (max |a - b| / max |b| of a step) and the largest absolute difference.
struct StepErrors {
  double elementwise = 0.0, normwise = 0.0, absolute = 0.0;
  std::vector<double> step_normwise;  // each step's norm-wise error, in order
  void merge(const StepErrors& o) {
    elementwise = std::max(elementwise, o.elementwise);
    normwise = std::max(normwise, o.normwise);
    absolute = std::max(absolute, o.absolute);
    step_normwise.insert(step_normwise.end(), o.step_normwise.begin(), o.step_normwise.end());
  }
  std::size_t steps_over(double tolerance) const {
    std::size_t n = 0;
    for (double e : step_normwise) n += e > tolerance;
    return n;
  }
};

// Decodes `encoded` (one sentence, row b of the goldens) step by step, feeding `ids` after the
// start token (the reference's greedy path, so that one early difference does not derail the
// rest), and compares each step's logits with expected[b, t, :] ([B, L, V] golden logits).
inline StepErrors step_logit_errors(const model::Model& model, const model::EncoderOutput& encoded,
                                    const std::vector<std::int32_t>& ids, const Tensor& expected,
                                    dim_t b) {
  StepErrors errors;
  model::DecoderState state = model.decoder().start(encoded, static_cast<dim_t>(ids.size()));
  std::int32_t previous = model.decoder().start_id();
  Tensor logits;
  for (std::size_t t = 0; t < ids.size(); ++t) {
    model.decoder().step(state, {previous}, logits);
    const dim_t step = static_cast<dim_t>(t);
    const Tensor want = expected.slice(0, b, b + 1).slice(1, step, step + 1).clone();
    Tensor got = logits.view();
    got.reshape(want.shape());
    // Norm-wise judges every entry against max |b|: its worst entry is the largest |a - b|.
    const Comparison normwise = compare(got, want, 1.0);
    errors.merge({compare(got, want).max_rel_error, normwise.max_rel_error,
                  std::fabs(double(normwise.actual) - double(normwise.expected)),
                  {normwise.max_rel_error}});
    previous = ids[t];
  }
  return errors;
}

}  // namespace s2s::test
