// Reader for CTranslate2 model.bin files (the weights of a converted model directory; config.json
// and the vocabularies are separate files). The file is memory-mapped (do not rewrite it while it
// is open); read_tensor() copies one variable.
//
// Layout (written by python/ctranslate2/specs/model_spec.py ModelSpec._serialize, read by
// src/models/model.cc Model::load; little-endian, packed back to back with no alignment padding):
//   u32     binary_version (1 to 6 are read; 6 is the current one)
//   [v>=2]  string spec name, e.g. "TransformerSpec"; u32 spec revision (v1: no name, revision 1)
//   u32     n_vars, then per variable (sorted by name by the writer):
//             string name; u8 rank; rank x u32 dims;
//             v>=4: u8 dtype id (0 float32, 1 int8, 2 int16, 3 int32, 4 float16, 5 bfloat16),
//                   u32 nbytes
//             v<=3: u8 item size (4 float32, 2 int16, 1 int8), u32 element count
//             the raw data, C order
//   [v>=3]  u32 n_aliases, then per alias: string alias, string target name
//   string  = u16 (byte length + 1), the UTF-8 bytes, a NUL
// Versions 4, 5 and 6 share this layout; 6 moved unk/bos/eos tokens from attribute variables to
// config.json.
//
// Spec attributes are stored as variables: bools as int8 scalars, enums as int8 scalars, counts as
// int16/int32 scalars, floats as float32 scalars, and strings (e.g. "unk_token" in versions < 6)
// as 1-D int8 arrays of their UTF-8 bytes with no NUL. read_int/read_bool/read_float/read_string
// decode them; they return nullopt when the variable is absent (the caller's default applies, as
// in CTranslate2's get_attribute_with_default).
//
// Aliases name the same data as another variable (CTranslate2 writes one for tied weights). An
// alias of an alias is resolved; an alias to a missing name or an alias cycle is a ModelError. As
// Model::load does, an alias "a" -> "v" also makes "a_scale" an alias of "v_scale" when that
// variable exists (the quantisation scale of an int8/int16 weight).
//
// read_tensor() returns float32 for float32, float16 and bfloat16 data, int8 and int32 as they
// are, and int16 widened to int32 (s2s tensors have no int16 type; the values are exact).
//
// Every error is a ModelError whose message starts with the file path and says what is wrong, e.g.
//   model.bin: variable 'encoder/layer_0/ffn/linear_0/weight': 4096 bytes claimed, 100 left
// Every size read from the file is checked against the bytes left before it is used.
//
// Usage:
//   Ct2ModelFile ct2("model_dir/model.bin");
//   Tensor w = ct2.read_tensor("encoder/layer_0/ffn/linear_0/weight");
//   const std::int64_t heads = ct2.read_int("encoder/num_heads").value_or(8);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "s2s/core/tensor.h"
#include "s2s/formats/mapped_file.h"
#include "s2s/formats/tensor_index.h"

namespace s2s::formats {

// names() lists the variables in file order, then the aliases (explicit ones in file order, then
// the implied "_scale" aliases).
class Ct2ModelFile : public TensorIndex {
 public:
  explicit Ct2ModelFile(const std::string& path);

  std::uint32_t version() const { return version_; }
  const std::string& spec_name() const { return spec_name_; }  // "" for version 1
  std::uint32_t revision() const { return revision_; }

  // The variable a name refers to: the name itself for a variable, the final target of an alias.
  const std::string& resolve(const std::string& name) const;
  const Shape& shape(const std::string& name) const;
  // The stored element type: "float32", "int8", "int16", "int32", "float16" or "bfloat16".
  const char* dtype_name(const std::string& name) const;

  // Copies one variable (or an alias's target) out of the file. Thread-safe.
  Tensor read_tensor(const std::string& name) const;

  // Attribute variables; nullopt when absent, a ModelError when present with the wrong type.
  std::optional<std::int64_t> read_int(const std::string& name) const;    // one int8/16/32 value
  std::optional<bool> read_bool(const std::string& name) const;           // one integer, != 0
  std::optional<float> read_float(const std::string& name) const;         // one float value
  std::optional<std::string> read_string(const std::string& name) const;  // 1-D int8 bytes

 private:
  struct Variable {
    Shape shape;
    std::uint8_t type = 0;  // CTranslate2 dtype id
    std::uint64_t offset = 0;
    std::uint64_t nbytes = 0;
  };

  void parse();
  void resolve_aliases(const std::vector<std::pair<std::string, std::string>>& aliases);
  // The position of the variable a name refers to (itself, or an alias's target).
  std::size_t variable_of(const std::string& name) const;
  const Variable& find(const std::string& name) const;
  // A one-element variable of an integer (or else a float) type; nullptr when the name is absent.
  const Variable* scalar(const std::string& name, bool integer, const char* expected) const;

  MappedFile file_;
  std::uint32_t version_ = 0;
  std::string spec_name_;
  std::uint32_t revision_ = 1;
  std::vector<Variable> variables_;  // the first names(), in their order
  // For each alias (the names after the variables), the position of its variable.
  std::vector<std::size_t> alias_targets_;
};

}  // namespace s2s::formats
