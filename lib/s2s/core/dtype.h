// Element types a Tensor can hold, with their names and sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace s2s {

enum class DataType : std::uint8_t { f32, f16, bf16, i8, u8, i32, i64, count_ };

// "float32", "int8", ...
const char* dtype_name(DataType dtype);
std::size_t dtype_size(DataType dtype);

template <typename T>
constexpr DataType dtype_of();
template <> constexpr DataType dtype_of<float>() { return DataType::f32; }
template <> constexpr DataType dtype_of<std::int8_t>() { return DataType::i8; }
template <> constexpr DataType dtype_of<std::uint8_t>() { return DataType::u8; }
template <> constexpr DataType dtype_of<std::int32_t>() { return DataType::i32; }
template <> constexpr DataType dtype_of<std::int64_t>() { return DataType::i64; }

}  // namespace s2s
