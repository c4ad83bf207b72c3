// formats::parse_npy on the raw bytes, then the copy into a tensor (to_tensor) that a successful
// parse allows: the parser's size checks are what stand between a header and that copy.
#include "fuzz_common.h"
#include "s2s/formats/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  s2s::fuzz::expect_clean([&] {
    const s2s::formats::NpyView view = s2s::formats::parse_npy(data, size, "fuzz.npy");
    const s2s::Tensor t = s2s::formats::to_tensor(view);
    // The tensor must hold exactly the payload the parser measured (f16 widens to f32).
    const std::size_t expected = view.dtype == s2s::DataType::f16 ? view.nbytes * 2 : view.nbytes;
    if (t.nbytes() != expected) std::abort();
  });
  return 0;
}
