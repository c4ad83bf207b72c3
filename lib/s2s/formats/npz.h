// Reader for .npz archives: a zip file with one .npy array per entry (Marian's cnpy, numpy.savez,
// numpy.savez_compressed). The archive is memory-mapped (do not rewrite the file while it is open);
// read() copies one array out of it.
//
// Zip layout used (PKWARE APPNOTE; all integers little-endian, offsets from the start of a record):
//   per entry:  local header 50 4B 03 04 (30 bytes): name_len u16 @26, extra_len u16 @28, then the
//               name, the extra field and the data. Its size fields are ignored: numpy writes
//               0xFFFFFFFF there (zip64), streaming writers write 0.
//   central directory, one record per entry: 50 4B 01 02 (46 bytes): flags u16 @8, method u16 @10,
//               crc32 u32 @16, compressed u32 @20, uncompressed u32 @24, name_len u16 @28,
//               extra_len u16 @30, comment_len u16 @32, local header offset u32 @42, name @46.
//               A saturated (0xFFFFFFFF) size or offset is taken from the zip64 extra field
//               (id 0x0001), which lists only the saturated values, in the order uncompressed,
//               compressed, offset.
//   [zip64 end of central directory record 50 4B 06 06: entries u64 @32, cd size u64 @40,
//    cd offset u64 @48; found through the 20-byte locator 50 4B 06 07 (record offset u64 @8)
//    just before the end record; read only when an end-record field is saturated]
//   end of central directory 50 4B 05 06 (22 bytes + a comment of up to 65535 bytes, so it is
//               found by scanning back from the end): entries u16 @10, cd size u32 @12,
//               cd offset u32 @16, comment_len u16 @20.
// Methods: 0 (stored: cnpy, np.savez) and 8 (raw deflate: np.savez_compressed). The CRC-32 of
// every entry is verified when it is read. Entry names lose their ".npy" suffix, so Marian's
// "encoder_l1_self_Wq.npy" is read as "encoder_l1_self_Wq".
//
// Every error is a ModelError whose message starts with the file path and says what is wrong.
// No size read from the file is allocated before it has been checked against the file size.
//
// Usage:
//   NpzArchive npz("model.npz");
//   for (const std::string& name : npz.names()) ...
//   Tensor wq = npz.read_tensor("encoder_l1_self_Wq");   // f16 entries come back as f32
//   std::string config = npz.read_text("special:model.yml");
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "s2s/core/tensor.h"
#include "s2s/formats/mapped_file.h"
#include "s2s/formats/tensor_index.h"

namespace s2s::formats {

// One array read from an archive.
struct NpyArray {
  Tensor tensor;                       // owned, contiguous; f16 widened to f32, bool read as u8
  std::string descr;                   // element type as written, e.g. "<f2"
  DataType file_dtype = DataType::f32; // element type in the file (f16 for "<f2")
};

// names() lists the entries in archive order, without ".npy".
class NpzArchive : public TensorIndex {
 public:
  explicit NpzArchive(const std::string& path);

  // Reads, checks (CRC, npy header, payload size) and copies one entry. Thread-safe.
  NpyArray read(const std::string& name) const;
  Tensor read_tensor(const std::string& name) const;
  // An int8/uint8 entry as text, cut at the first NUL (Marian pads "special:model.yml" with NULs).
  std::string read_text(const std::string& name) const;

 private:
  struct Entry {
    std::uint16_t method = 0;
    std::uint32_t crc = 0;
    std::uint64_t compressed = 0;
    std::uint64_t uncompressed = 0;
    std::uint64_t data_offset = 0;  // start of the entry's data, after the local header
  };

  // Where the central directory is (offset and size in bytes) and its entry count.
  struct Directory {
    std::uint64_t count = 0;
    std::uint64_t size = 0;
    std::uint64_t offset = 0;
  };

  void read_directory();
  Directory find_directory() const;
  std::uint64_t read_central_record(const Directory& directory, std::uint64_t i, std::uint64_t p);
  void read_zip64_extra(const std::uint8_t* extra, std::uint64_t extra_len,
                        const std::string& entry, Entry& e, std::uint64_t& local) const;
  void check_sizes(const Entry& e, const std::string& entry) const;
  std::uint64_t data_offset(std::uint64_t local, std::uint64_t compressed,
                            const std::string& entry) const;
  const Entry& find(const std::string& name) const;

  MappedFile file_;
  std::vector<Entry> entries_;  // in the order of names()
};

}  // namespace s2s::formats
