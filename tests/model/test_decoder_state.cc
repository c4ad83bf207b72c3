// DecoderState: the self-attention caches start small and double as decoding goes on, and
// select_rows moves rows (with their source sentence) between steps. Whatever the growth and
// reordering, each step's logits must equal teacher forcing over the same prefix.
#include <random>

#include "fixtures.h"
#include "s2s/batch/batch.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("decoder steps past the caches' first capacity, with rows reordered, match teacher "
          "forcing", "[model]") {
  const auto model = test::load_fixture(test::marian_fixtures()[0]);
  const Batch batch = make_batch({{5, 6, 7, 8, 9, 10, 0}, {11, 12, 0}});
  const EncoderOutput encoded = model->encoder().forward(batch.ids, batch.lengths);
  const dim_t steps = 150;  // the caches start at 64 positions, then grow to 128 and 150
  const dim_t vocab = model->config().target_vocab_size;

  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int32_t> token(2, static_cast<std::int32_t>(vocab - 1));
  Tensor target({2, steps}, DataType::i32);
  for (dim_t i = 0; i < target.numel(); ++i) target.data<std::int32_t>()[i] = token(rng);
  Tensor expected;
  model->decoder().forward_all(encoded, target, expected);  // [2, steps, V]

  DecoderState state;
  model->decoder().start(encoded, steps, state);
  std::vector<std::int32_t> sentence_of_row = {0, 1};
  std::vector<std::int32_t> previous(2, model->decoder().start_id());
  Tensor logits;
  for (dim_t t = 0; t < steps; ++t) {
    model->decoder().step(state, previous, logits);
    for (dim_t r = 0; r < 2; ++r) {
      INFO("step " << t << " row " << r);
      const dim_t s = sentence_of_row[static_cast<std::size_t>(r)];
      Tensor want = expected.slice(0, s, s + 1).slice(1, t, t + 1).clone();
      want.reshape({1, vocab});
      S2S_CHECK_CLOSE(logits.slice(0, r, r + 1).clone(), want, 1e-4f);
    }
    if (t == 40 || t == 100) {  // swap the rows: their caches and source sentences move too
      state.select_rows({1, 0});
      std::swap(sentence_of_row[0], sentence_of_row[1]);
    }
    for (dim_t r = 0; r < 2; ++r)
      previous[static_cast<std::size_t>(r)] =
          target.data<std::int32_t>()[sentence_of_row[static_cast<std::size_t>(r)] * steps + t];
  }
  CHECK(state.step() == steps);
}

}  // namespace s2s
