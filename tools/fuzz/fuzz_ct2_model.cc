// Ct2ModelFile on a file holding the bytes: the record walk and alias resolution at open, then
// every variable and alias read as a tensor and through each attribute accessor.
#include "fuzz_common.h"
#include "s2s/formats/ct2_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = s2s::fuzz::write_temp("model.bin", data, size);
  s2s::fuzz::expect_clean([&] {
    const s2s::formats::Ct2ModelFile ct2(path);
    for (const std::string& name : ct2.names()) {
      if (!ct2.contains(name)) std::abort();  // names() and the lookup must agree
      (void)ct2.resolve(name);
      (void)ct2.shape(name);
      (void)ct2.dtype_name(name);
      // A variable of the wrong type for an accessor is a ModelError for that call only.
      s2s::fuzz::expect_clean([&] { (void)ct2.read_tensor(name); });
      s2s::fuzz::expect_clean([&] { (void)ct2.read_int(name); });
      s2s::fuzz::expect_clean([&] { (void)ct2.read_bool(name); });
      s2s::fuzz::expect_clean([&] { (void)ct2.read_float(name); });
      s2s::fuzz::expect_clean([&] { (void)ct2.read_string(name); });
    }
  });
  return 0;
}
