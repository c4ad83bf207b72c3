// gather_rows: argument checks, and the fast path itself, one memcpy per row (oneDNN has no
// gather primitive). See gather.h.
#include "s2s/ops/gather.h"

#include <cstdint>
#include <cstring>

#include "s2s/ops/detail.h"

namespace s2s::ops {

namespace detail {

// table [V, ...] contiguous, ids int32 [N] with every id in [0, V), out [N, ...] like table.
bool prepare_gather_rows(const Tensor& table, const Tensor& ids, Tensor& out) {
  S2S_CHECK(table.rank() >= 1, "gather_rows table needs at least one axis, got ",
            to_string(table.shape()));
  check_contiguous(table, "gather_rows table");
  check_dtype(ids, DataType::i32, "gather_rows ids");
  S2S_CHECK(ids.rank() == 1, "gather_rows ids are ", to_string(ids.shape()), ", expected [N]");
  check_contiguous(ids, "gather_rows ids");
  S2S_CHECK(&out != &table, "gather_rows output must not be its table");
  const dim_t rows = table.dim(0);
  const std::int32_t* p = ids.data<std::int32_t>();
  for (dim_t i = 0; i < ids.numel(); ++i)
    S2S_CHECK(p[i] >= 0 && p[i] < rows, "gather_rows id ", p[i], " at position ", i,
              " is outside the table ", to_string(table.shape()));
  Shape shape = table.shape();
  shape[0] = ids.numel();
  prepare_output(out, shape, table.dtype(), "gather_rows out");
  check_contiguous(out, "gather_rows out");
  return !out.empty();
}

}  // namespace detail

void gather_rows(const Tensor& table, const Tensor& ids, Tensor& out) {
  if (!detail::prepare_gather_rows(table, ids, out)) return;
  const std::size_t row_bytes = out.nbytes() / static_cast<std::size_t>(ids.numel());
  const auto* src = static_cast<const char*>(table.raw());
  auto* dst = static_cast<char*>(out.raw());
  const std::int32_t* p = ids.data<std::int32_t>();
  for (dim_t i = 0; i < ids.numel(); ++i)
    std::memcpy(dst + i * row_bytes, src + p[i] * row_bytes, row_bytes);
}

}  // namespace s2s::ops
