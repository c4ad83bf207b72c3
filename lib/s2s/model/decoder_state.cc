#include "s2s/model/decoder_state.h"

#include <algorithm>
#include <cstring>

namespace s2s::model {

void DecoderState::begin_step() {
  std::int32_t* history = history_.data<std::int32_t>();
  for (dim_t r = 0; r < batch_size(); ++r)
    history[r * limit_ + step_] = static_cast<std::int32_t>(r);
}

void DecoderState::select_rows(const std::vector<std::int32_t>& rows) {
  const dim_t n = static_cast<dim_t>(rows.size());
  for (std::int32_t r : rows)
    S2S_CHECK(r >= 0 && r < batch_size(), "row ", r, " outside a batch of ", batch_size());
  S2S_CHECK(n <= row_capacity_, n, " rows selected, but the decoder was started for ",
            row_capacity_);
  bool identity = n == batch_size();
  for (dim_t i = 0; identity && i < n; ++i) identity = rows[i] == i;
  if (identity) return;  // greedy search at most steps: every row continues
  spare_history_.resize({n, limit_}, DataType::i32);
  const std::int32_t* from = history_.data<std::int32_t>();
  std::int32_t* to = spare_history_.data<std::int32_t>();
  spare_origin_.resize(static_cast<std::size_t>(n));
  spare_lengths_.resize(static_cast<std::size_t>(n));
  for (dim_t i = 0; i < n; ++i) {
    std::memcpy(to + i * limit_, from + rows[i] * limit_,
                static_cast<std::size_t>(step_) * sizeof(std::int32_t));
    spare_origin_[i] = origin_[rows[i]];
    spare_lengths_[i] = source_lengths_[rows[i]];
  }
  std::swap(history_, spare_history_);
  std::swap(origin_, spare_origin_);
  std::swap(source_lengths_, spare_lengths_);
}

}  // namespace s2s::model
