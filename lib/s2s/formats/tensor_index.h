// The names of the tensors in one model file, in file order: the part the npz, safetensors and
// CTranslate2 readers have in common (listing, membership, lookup by name, and the errors for a
// missing or repeated name), written once. Each reader derives from it, adds its names while it
// parses the file, and keeps its own per-tensor records in a vector in the same order, so that
// position(name) finds a record.
//
//   class NpzArchive : public TensorIndex { ... entries_[position(name)] ... };
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace s2s::formats {

// The bytes a tensor of dimensions `dims` with `item_size`-byte elements needs, as a reader
// checks a size its file claims; nullopt when that overflows, or when the product of the
// non-zero dimensions does not fit in dim_t (then even an empty tensor's strides could).
std::optional<std::uint64_t> tensor_bytes(const std::vector<std::uint64_t>& dims,
                                          std::uint64_t item_size);

class TensorIndex {
 public:
  const std::string& path() const { return path_; }
  // Every name, in the order the reader added them.
  const std::vector<std::string>& names() const { return names_; }
  bool contains(const std::string& name) const { return positions_.count(name) != 0; }

 protected:
  // `noun` and `nouns` name one and several of the file's items in messages: "tensor", "tensors".
  TensorIndex(std::string path, std::string noun, std::string nouns);

  // Appends a name and returns its position (the count of names before it). `kind` names it in
  // the error for a name that is already there: "<path>: <kind> '<name>' appears twice".
  std::size_t add(std::string name, const std::string& kind);
  // The position of a name. A missing name is a ModelError that says how many names the file
  // has and which of them are closest: "<path>: no tensor 'x' (the file has 12 tensors; ...)".
  std::size_t position(const std::string& name) const;
  // Throws ModelError("<path>: <message>"): every reader error starts with the file.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string path_, noun_, nouns_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::size_t> positions_;
};

}  // namespace s2s::formats
