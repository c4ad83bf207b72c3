// MappedFile: a whole file mapped read-only into memory, shared by the model-file readers (npz,
// safetensors, CTranslate2 model.bin) so that weights are read in place, not through a copy.
// Empty files are valid and not mapped. Errors are ModelErrors that start with the path.
#pragma once

#include <cstdint>
#include <string>

namespace s2s::formats {

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }

 private:
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace s2s::formats
