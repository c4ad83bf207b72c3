#include "s2s/core/dtype.h"

namespace s2s {
namespace {

struct DataTypeInfo {
  const char* name;
  std::size_t size;
};

// Indexed by DataType; the static_assert keeps it in step with the enum.
constexpr DataTypeInfo kInfo[] = {
    {"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"int8", 1},
    {"uint8", 1},   {"int32", 4},   {"int64", 8},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == static_cast<std::size_t>(DataType::count_),
              "kInfo must list every DataType");

}  // namespace

const char* dtype_name(DataType dtype) { return kInfo[static_cast<int>(dtype)].name; }
std::size_t dtype_size(DataType dtype) { return kInfo[static_cast<int>(dtype)].size; }

}  // namespace s2s
