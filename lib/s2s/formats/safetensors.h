// Reader for Hugging Face .safetensors files (model.safetensors of a converted MarianMT model).
// The file is memory-mapped (do not rewrite it while it is open); read_tensor() copies one tensor.
//
// Layout (huggingface/safetensors, safetensors/src/tensor.rs; integers little-endian):
//   u64        N, the byte length of the header (the reference reader rejects N > 100,000,000)
//   N bytes    UTF-8 JSON object, space-padded (the reference writer pads to a multiple of 8):
//                { "__metadata__": {"format": "pt", ...},          optional, string -> string
//                  "<name>": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ... }
//   rest       the data buffer. Offsets are relative to its first byte, `end` is exclusive; data is
//              C order with no strides or padding. shape [] is a scalar (1 element), a 0 in the
//              shape an empty tensor.
// dtype strings and element sizes: BOOL U8 I8 F8_E5M2 F8_E4M3 F8_E8M0 F8_E4M3FNUZ F8_E5M2FNUZ (1),
// I16 U16 F16 BF16 (2), I32 U32 F32 (4), I64 U64 F64 C64 (8). Any other string (including the
// sub-byte F4 / F6_E2M3 / F6_E3M2) is rejected when the file is opened.
//
// Checks made when the file is opened, as the reference reader (`Metadata::validate`) does: every
// entry has a known dtype, an unsigned integer shape and two unsigned integer offsets with
// end - begin == numel * itemsize (computed without overflow); sorted by offset, the entries tile
// the buffer from 0 with no gap or overlap and the last end is the end of the file.
//
// read_tensor() supports F32, F16 and BF16 (all returned as f32) and I32 / I64 (returned as int32 /
// int64). Other dtypes can be listed, but reading them is a ModelError naming the tensor and dtype.
//
// Every error is a ModelError whose message starts with the file path and says what is wrong.
// No size read from the file is allocated before it has been checked against the file size.
//
// Usage:
//   SafetensorsFile st("model.safetensors");
//   for (const std::string& name : st.names()) ...
//   Tensor w = st.read_tensor("model.encoder.layers.0.fc1.weight");
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "s2s/core/tensor.h"
#include "s2s/formats/mapped_file.h"
#include "s2s/formats/tensor_index.h"

namespace s2s::formats {

// names() lists the tensors in the order of their data in the file.
class SafetensorsFile : public TensorIndex {
 public:
  explicit SafetensorsFile(const std::string& path);

  const Shape& shape(const std::string& name) const;
  // The dtype string as written in the header, e.g. "F32", "BF16".
  const std::string& dtype_name(const std::string& name) const;
  // The "__metadata__" object (empty when the file has none).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // Copies one tensor out of the file. Thread-safe.
  Tensor read_tensor(const std::string& name) const;

 private:
  struct Entry {
    std::string name;
    std::string dtype;  // as written
    Shape shape;
    std::uint64_t begin = 0;  // offsets into the data buffer
    std::uint64_t end = 0;
  };

  void parse_header();
  std::uint64_t header_length() const;
  nlohmann::json header_json(std::uint64_t n) const;
  void read_metadata(const nlohmann::json& value);
  std::uint64_t unsigned_of(const nlohmann::json& v, const std::string& what) const;
  Entry read_entry(const std::string& key, const nlohmann::json& value,
                   std::uint64_t buffer) const;
  std::uint64_t read_shape(const nlohmann::json& shape, const std::string& what, Entry& e) const;
  void index_tiled_entries(std::uint64_t buffer);
  const Entry& find(const std::string& name) const;

  MappedFile file_;
  std::uint64_t data_start_ = 0;  // 8 + N
  std::vector<Entry> entries_;    // sorted by offset, the order of names()
  std::map<std::string, std::string> metadata_;
};

}  // namespace s2s::formats
