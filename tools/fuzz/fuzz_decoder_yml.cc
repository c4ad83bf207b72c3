// formats::find_marian_files on a folder holding only a decoder.yml with the bytes: yaml-cpp
// reads the file, then the settings, 'models' and 'vocabs' are taken from it. Nothing else is in
// the folder, so a well-formed file still ends in "not found" (a ModelError).
#include "fuzz_common.h"
#include "s2s/formats/marian.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)s2s::fuzz::write_temp("decoder.yml", data, size);
  s2s::fuzz::expect_clean([&] { (void)s2s::formats::find_marian_files(s2s::fuzz::temp_dir()); });
  return 0;
}
