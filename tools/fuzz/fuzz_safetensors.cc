// SafetensorsFile on a file holding the bytes: header bound, JSON, entry checks and tiling at
// open, then every tensor's shape, dtype and data.
#include "fuzz_common.h"
#include "s2s/formats/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = s2s::fuzz::write_temp("fuzz.safetensors", data, size);
  s2s::fuzz::expect_clean([&] {
    const s2s::formats::SafetensorsFile st(path);
    (void)st.metadata().size();
    for (const std::string& name : st.names()) {
      (void)st.shape(name);
      (void)st.dtype_name(name);
      // Unsupported dtypes are a ModelError for that tensor only; go on with the others.
      s2s::fuzz::expect_clean([&] { (void)st.read_tensor(name); });
    }
  });
  return 0;
}
