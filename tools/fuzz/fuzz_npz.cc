// NpzArchive on a file holding the bytes: the zip directory (zip64 included) at open, then every
// entry read (inflate, CRC, npy) and, for byte entries, read as text like special:model.yml.
#include "fuzz_common.h"
#include "s2s/formats/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = s2s::fuzz::write_temp("fuzz.npz", data, size);
  s2s::fuzz::expect_clean([&] {
    const s2s::formats::NpzArchive npz(path);
    for (const std::string& name : npz.names()) {
      if (!npz.contains(name)) std::abort();  // names() and the index must agree
      // Each entry on its own: one corrupt entry must not hide a crash in the next.
      s2s::fuzz::expect_clean([&] {
        const s2s::formats::NpyArray a = npz.read(name);
        if (a.file_dtype == s2s::DataType::i8 || a.file_dtype == s2s::DataType::u8)
          (void)npz.read_text(name);
      });
    }
  });
  return 0;
}
