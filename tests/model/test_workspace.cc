// model::Workspace: the scratch a worker leases from its model's pool and passes down. A reused
// workspace (left holding another batch's larger buffers) gives the same results as a fresh one
// (the pool itself: tests/core/test_pool.cc).
#include "fixtures.h"
#include "ops/ops_test_util.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("a reused workspace gives the encoder and scoring the results of a fresh one",
          "[model]") {
  const auto model = test::load_fixture(test::marian_fixtures()[0]);
  const std::int32_t eos = model->config().eos_id;
  const batch::Batch big = batch::make_batch(
      {{5, 6, 7, 8, 9, 10, 11, 12, eos}, {13, 14, 15, eos}, {16, 17, 18, 19, 20, eos}});
  const batch::Batch small = batch::make_batch({{21, 22, eos}, {23, eos}});
  const batch::Batch target = batch::make_batch({{30, 31, eos}, {32, 33, 34, eos}});

  model::Workspace reused;
  Tensor scores_before;
  // Fill the workspace with a larger batch's buffers, then run the small batch in it.
  const model::EncoderOutput big_encoded = model->encoder().forward(big.ids, big.lengths, reused);
  const batch::Batch big_target =
      batch::make_batch({{40, 41, 42, 43, 44, eos}, {45, eos}, {46, 47, eos}});
  model->decoder().target_log_probs(big_encoded, big_target.ids, reused, scores_before);
  const model::EncoderOutput in_reused = model->encoder().forward(small.ids, small.lengths, reused);
  Tensor scores_reused;
  model->decoder().target_log_probs(in_reused, target.ids, reused, scores_reused);

  const model::EncoderOutput in_fresh = test::encode(model->encoder(), small.ids, small.lengths);
  Tensor scores_fresh;
  test::target_log_probs(model->decoder(), in_fresh, target.ids, scores_fresh);
  test::check_identical(in_reused.memory, in_fresh.memory);
  test::check_identical(scores_reused, scores_fresh);
}

}  // namespace s2s
