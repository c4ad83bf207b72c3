// Sinusoidal positions: Marian's (D/2 - 1) frequency formula against the values in
// the reference's table; Hugging Face's D/2 variant against its own (docs/models.md, "Where the
// formats compute differently").
#include "s2s/formats/npz.h"
#include "s2s/layers/embedding.h"
#include "test_utils.h"

namespace s2s {

TEST_CASE("Marian sinusoid matches the documented values", "[layers]") {
  Tensor pe;
  layers::sinusoid_positions(layers::PositionEncoding::sinusoid_marian, 1, 1, 4, pe);
  const float d4[] = {0.8414710f, 0.0001000f, 0.5403023f, 1.0000000f};
  for (int i = 0; i < 4; ++i) CHECK(pe.data<float>()[i] == Approx(d4[i]).margin(1e-6));

  layers::sinusoid_positions(layers::PositionEncoding::sinusoid_marian, 3, 1, 8, pe);
  const float d8[] = {0.14112f, 0.1387981f, 0.0064633f, 0.0003f,
                      -0.9899925f, 0.9903207f, 0.9999791f, 1.0f};
  for (int i = 0; i < 8; ++i) CHECK(pe.data<float>()[i] == Approx(d8[i]).margin(1e-5));
}

TEST_CASE("Hugging Face sinusoid uses D/2 in the frequency", "[layers]") {
  Tensor pe;
  layers::sinusoid_positions(layers::PositionEncoding::sinusoid_hf, 1, 1, 4, pe);
  const float d4[] = {0.8414710f, 0.0099998f, 0.5403023f, 0.9999500f};
  for (int i = 0; i < 4; ++i) CHECK(pe.data<float>()[i] == Approx(d4[i]).margin(1e-6));
}

TEST_CASE("Marian sinusoid table matches the reference", "[layers]") {
  formats::NpzArchive golden(test::data_path("golden/positional.npz"));
  Tensor pe;
  layers::sinusoid_positions(layers::PositionEncoding::sinusoid_marian, 0, 10, 4, pe);
  S2S_CHECK_CLOSE(pe, golden.read_tensor("pe_d4"), 1e-5);
  layers::sinusoid_positions(layers::PositionEncoding::sinusoid_marian, 0, 10, 8, pe);
  S2S_CHECK_CLOSE(pe, golden.read_tensor("pe_d8"), 1e-5);
  // A window starting later equals the same rows of the full table.
  Tensor tail;
  layers::sinusoid_positions(layers::PositionEncoding::sinusoid_marian, 6, 4, 8, tail);
  S2S_CHECK_CLOSE(tail, pe.slice(0, 6, 10).clone(), 1e-6);
}

}  // namespace s2s
