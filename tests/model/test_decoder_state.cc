// DecoderState: select_rows moves rows (with their history through the position-major caches
// and their source sentence) between steps. However rows move, each step's logits must equal
// teacher forcing over the same prefix.
#include <random>

#include "fixtures.h"
#include "s2s/batch/batch.h"
#include "support/model_support.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("decoder steps with rows reordered, replicated and dropped match teacher forcing",
          "[model]") {
  const auto model = test::load_fixture(test::marian_fixtures()[0]);
  const batch::Batch batch = batch::make_batch({{5, 6, 7, 8, 9, 10, 0}, {11, 12, 0}});
  const model::EncoderOutput encoded = test::encode(model->encoder(), batch.ids, batch.lengths);
  const dim_t steps = 150;
  const dim_t vocab = model->config().target_vocab_size;

  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int32_t> token(2, static_cast<std::int32_t>(vocab - 1));
  Tensor target({2, steps}, DataType::i32);
  for (dim_t i = 0; i < target.numel(); ++i) target.data<std::int32_t>()[i] = token(rng);
  Tensor expected;
  test::forward_all(model->decoder(), encoded, target, expected);  // [2, steps, V]

  model::DecoderState state;
  model->decoder().start(encoded, steps, state, /*max_rows=*/4);
  std::vector<std::int32_t> sentence_of_row = {0, 1};
  std::vector<std::int32_t> previous(2, model->decoder().start_id());
  Tensor logits;
  for (dim_t t = 0; t < steps; ++t) {
    model->decoder().step(state, previous, logits);
    const dim_t rows = static_cast<dim_t>(sentence_of_row.size());
    for (dim_t r = 0; r < rows; ++r) {
      INFO("step " << t << " row " << r);
      const dim_t s = sentence_of_row[static_cast<std::size_t>(r)];
      Tensor want = expected.slice(0, s, s + 1).slice(1, t, t + 1).clone();
      want.reshape({1, vocab});
      S2S_CHECK_CLOSE(logits.slice(0, r, r + 1).clone(), want, 1e-4f);
    }
    // Rows move as in beam search: swapped, replicated, dropped. Each keeps its history and
    // source sentence.
    std::vector<std::int32_t> selected;
    if (t == 40) selected = {1, 0};
    if (t == 70) selected = {1, 0, 0};  // a replicated row, as when a beam expands
    if (t == 100) selected = {2, 0};    // row 1 dropped, as when a hypothesis finishes
    if (!selected.empty()) {
      state.select_rows(selected);
      std::vector<std::int32_t> moved;
      for (std::int32_t r : selected)
        moved.push_back(sentence_of_row[static_cast<std::size_t>(r)]);
      sentence_of_row = moved;
    }
    previous.clear();
    for (std::int32_t s : sentence_of_row)
      previous.push_back(target.data<std::int32_t>()[s * steps + t]);
  }
  CHECK_THROWS_WITH(state.select_rows({0, 0, 0, 0, 0}), Catch::Contains("started for 4"));
  CHECK(state.step() == steps);
}

}  // namespace s2s
