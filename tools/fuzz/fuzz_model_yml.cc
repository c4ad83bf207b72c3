// formats::marian_config on the bytes as the text of special:model.yml (yaml-cpp, then the
// option checks).
#include "fuzz_common.h"
#include "s2s/formats/marian.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  s2s::fuzz::expect_clean([&] { (void)s2s::formats::marian_config(text, "fuzz.npz"); });
  return 0;
}
