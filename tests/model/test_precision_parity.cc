// Whole-model parity of --precision bfloat16 and int8 with the numpy emulation of the schemes
// (tools/reference/precision_ref.py via marian_ref.py; goldens written by
// tools/fixtures/make_precision_goldens.py): the linear layers in bf16 / int8, and the decoder's
// step caches (self-attention K/V, cross-attention K/V of the encoder output) in bf16. The op
// tests check each PackedMatmul exactly; this checks that the model uses them where it should:
// every linear layer, the fused and tied ones included, and nothing else.
#include <cstdio>
#include <string>

#include "s2s/batch/batch.h"
#include "greedy_search.h"
#include "support/model_support.h"
#include "fixtures.h"
#include "model/golden.h"

namespace s2s {
namespace {

// Norm-wise error (max |a - b| / max |b| over a step's logits) allowed against the emulation.
// The quantization itself is emulated exactly and float32 summation order (oneDNN vs numpy) is
// all that differs: most steps agree to 1e-6. But now and then a value lies within that
// difference of a rounding boundary, an exact tie even, and the engine rounds one activation or
// cached key/value the other way: a bf16 step is 2^-8 of the value, and the logits move by up
// to ~1e-2 of their scale (marian-ymlids-gelu-tied, not used: 0.0077). Measured here (1 and 2
// threads alike):
//   marian-postnorm-swish-tiedall   bfloat16 2.4e-3   int8 5.6e-7
//   marian-ffn3-learnedpos-legacyW  bfloat16 1.0e-7   int8 3.5e-7
// The 2.4e-3 is one flip: at step 37 of the third source an input of the first FFN is an exact
// tie in numpy, the engine rounds it the other way, two values that step caches in layer 2 differ
// by a bf16 step, and steps 49 and 80 show it; the caches are otherwise bit for bit the same.
// Leaving the bf16 caches out of the reference makes them 7.1e-3 to 4.3e-2, and greedy ids differ
// (a float32 output layer: 4.1e-3 to 2.8e-2; each case fails on ids or logits). If an unrelated
// change breaks this test, look for such a flip first (compare the engine's caches with the
// reference's). 5e-3: twice the worst measured, below what a missing bf16 cache does.
constexpr double kTolerance = 5e-3;

// As tools/fixtures/make_precision_goldens.py writes them (see there for why these two).
const char* const kFixtures[] = {"marian-postnorm-swish-tiedall", "marian-ffn3-learnedpos-legacyW"};

}  // namespace

TEST_CASE("bfloat16 and int8 models match the numpy emulation step by step", "[model][parity]") {
  for (const char* name : kFixtures) {
    // int8 at 127 weight levels (CPUs with VNNI) and at 63 (the others; tested on every CPU).
    struct Variant {
      ops::Precision precision;
      const char* key;  // of the goldens (make_precision_goldens.py)
      int weight_levels;
    };
    for (const Variant& v : {Variant{ops::Precision::bf16, "bfloat16", 0},
                             Variant{ops::Precision::int8, "int8", 127},
                             Variant{ops::Precision::int8, "int8_7bit", 63}}) {
      const ops::Precision precision = v.precision;
      if (!test::cpu_computes(precision)) continue;
      if (v.weight_levels > ops::int8_weight_levels()) continue;  // would saturate here
      const std::string key = v.key;
      SECTION(name + std::string(" ") + key) {
        const test::FixtureModel& fixture = test::fixture_named(name);
        const auto model =
            test::load_fixture(fixture, ops::Packing(precision, v.weight_levels, false));
        const test::Golden golden(std::string(name) + ".precision");
        const Tensor src_ids = golden.get("src_ids");
        const std::vector<std::int32_t> src_lengths = test::lengths_of(golden.get("src_lengths"));
        const Tensor greedy_ids = golden.get(key + "_greedy_ids");
        const Tensor greedy_logits = golden.get(key + "_greedy_logits");

        // Each sentence alone, as the reference decodes it.
        test::StepErrors worst;
        for (dim_t b = 0; b < src_ids.dim(0); ++b) {
          INFO("sentence " << b);
          const std::vector<std::int32_t> expected = test::greedy_row(greedy_ids, b);
          const batch::Batch one = batch::make_batch({test::row(src_ids, b, src_lengths[b])});
          const model::EncoderOutput encoded = test::encode(model->encoder(), one.ids, one.lengths);
          const auto hyps = test::greedy_search(*model, encoded, test::greedy_options(fixture));
          CHECK(hyps[0].ids == expected);
          worst.merge(test::step_logit_errors(*model, encoded, expected, greedy_logits, b));
        }
        const std::size_t over = worst.steps_over(kTolerance);
        std::printf("precision parity %-30s %-9s step logits: norm-wise %.2g, element-wise %.2g, "
                    "max abs %.2g; %zu of %zu steps over %.0e\n", name, key.c_str(),
                    worst.normwise, worst.elementwise, worst.absolute, over,
                    worst.step_normwise.size(), kTolerance);
        if (v.weight_levels == 63) {
          // 7-bit weights, measured on an AVX2 CPU: the engine's int8 products equal the
          // scheme's integer sums exactly (checked on this fixture with its own quantized
          // activations), yet on marian-ffn3-learnedpos-legacyW 6 of 122 steps, all in its third
          // sentence and each on its own (the steps between agree to 1e-7), are off by up to
          // 0.03 norm-wise, the greedy ids still equal: we take them for activations on a
          // rounding boundary that round the other way than in numpy (not traced further). A
          // real fault (a layer not quantized, a missing bf16 cache) moves most steps: at most
          // 1 step in 10 may exceed the tolerance.
          CHECK(over * 10 <= worst.step_normwise.size());
          CHECK(worst.normwise <= 0.05);
        } else {
          CHECK(worst.normwise <= kTolerance);
        }
      }
    }
  }
}

}  // namespace s2s
