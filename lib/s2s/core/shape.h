// Shapes and sizes. Sizes are a signed 64-bit dim_t so that differences and negative axes are safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace s2s {

using dim_t = std::int64_t;
using Shape = std::vector<dim_t>;

// Number of elements of a shape (1 for a scalar shape {}).
dim_t num_elements(const Shape& shape);

// Contiguous row-major strides, in elements.
Shape contiguous_strides(const Shape& shape);

// "[2, 3, 4]"
std::string to_string(const Shape& shape);

}  // namespace s2s
