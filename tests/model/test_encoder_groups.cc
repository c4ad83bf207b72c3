// Encoder::forward runs a batch with many positions a group of sentences at a time (encoder.cc),
// to bound its scratch memory. A sentence's encoding must not depend on the group it was in.
#include <random>

#include "fixtures.h"
#include "ops/ops_test_util.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("the encoder gives a sentence the same encoding in any group of sentences", "[model]") {
  const auto model = test::load_fixture(test::marian_fixtures()[0]);
  // 40 sentences padded to 60: 2,400 positions, split by the encoder (groups of 34 and 6); each
  // half alone (1,200 positions) is encoded in one group. Sentences 0 and 20 have the full length,
  // so that both halves are padded to 60 as the whole batch is.
  const dim_t sentences = 40, length = 60;
  std::mt19937 rng(11);
  const auto vocab = static_cast<std::int32_t>(model->config().source_vocab_size);
  std::uniform_int_distribution<std::int32_t> token(2, vocab - 1), size(1, length - 1);
  std::vector<std::vector<std::int32_t>> ids(static_cast<std::size_t>(sentences));
  for (dim_t b = 0; b < sentences; ++b) {
    const std::int32_t n = b % 20 == 0 ? static_cast<std::int32_t>(length - 1) : size(rng);
    auto& sentence = ids[static_cast<std::size_t>(b)];
    for (std::int32_t i = 0; i < n; ++i) sentence.push_back(token(rng));
    sentence.push_back(model->config().eos_id);
  }
  const batch::Batch whole = batch::make_batch(ids);
  REQUIRE(whole.ids.dim(1) == length);
  const model::EncoderOutput all = test::encode(model->encoder(), whole.ids, whole.lengths);
  for (dim_t half = 0; half < 2; ++half) {
    const auto first = ids.begin() + half * sentences / 2;
    const batch::Batch part = batch::make_batch({first, first + sentences / 2});
    REQUIRE(part.ids.dim(1) == length);
    const model::EncoderOutput alone = test::encode(model->encoder(), part.ids, part.lengths);
    for (dim_t b = 0; b < sentences / 2; ++b) {
      INFO("sentence " << half * sentences / 2 + b);
      const dim_t at = half * sentences / 2 + b;
      test::check_identical(all.memory.slice(0, at, at + 1).clone(),
                            alone.memory.slice(0, b, b + 1).clone());
    }
  }
}

}  // namespace s2s
