// Reference gather_rows: copies byte by byte, so any dtype works (see gather.h).
#include <cstdint>

#include "s2s/ops/detail.h"
#include "support/ops_ref.h"
#include "s2s/ops/gather.h"

namespace s2s::ops::ref {

void gather_rows(const Tensor& table, const Tensor& ids, Tensor& out) {
  if (!detail::prepare_gather_rows(table, ids, out)) return;
  const dim_t row_bytes = static_cast<dim_t>(dtype_size(table.dtype())) *
                          (table.dim(0) == 0 ? 0 : table.numel() / table.dim(0));
  const auto* src = static_cast<const unsigned char*>(table.raw());
  auto* dst = static_cast<unsigned char*>(out.raw());
  const std::int32_t* p = ids.data<std::int32_t>();
  for (dim_t i = 0; i < ids.numel(); ++i)
    for (dim_t byte = 0; byte < row_bytes; ++byte)
      dst[i * row_bytes + byte] = src[p[i] * row_bytes + byte];
}

}  // namespace s2s::ops::ref
