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

  // Tells the kernel that bytes [offset, offset + length) have been copied out and will not be
  // read again soon: their pages leave this process's resident set (they stay in the page
  // cache, and reading them again is still valid). Without this, loading a model holds the
  // whole file resident beside the tensors copied from it, doubling the peak RSS of a load.
  void drop_pages(std::uint64_t offset, std::uint64_t length) const;

 private:
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
};

// Drops the pages of one tensor's bytes when a reader's copy function returns (any path).
struct DropPagesOnReturn {
  const MappedFile& file;
  std::uint64_t offset, length;
  ~DropPagesOnReturn() { file.drop_pages(offset, length); }
};

}  // namespace s2s::formats
