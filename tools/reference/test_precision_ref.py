#!/usr/bin/python3
"""Self-checks of the precision emulation (precision_ref.py), of its use in marian_ref.py, and of
the goldens tools/fixtures/make_precision_goldens.py wrote.

    /usr/bin/python3 tools/reference/test_precision_ref.py
"""

import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import marian_ref as ref  # noqa: E402
import precision_ref as pr  # noqa: E402

F32 = np.float32
MODELS = os.path.join(ROOT, "tests", "data", "models")
GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
PRECISION_FIXTURES = ["marian-postnorm-swish-tiedall", "marian-ffn3-learnedpos-legacyW"]


def bf16_neighbours(x):
    """The bfloat16 values just below and above float32 x in magnitude, by cutting the low 16
    bits of its bit pattern (a second way to the same rounding, to check round_bf16 with)."""
    bits = np.asarray(x, dtype=F32).view(np.uint32)
    low = (bits & np.uint32(0xFFFF0000)).view(F32)
    high = (low.view(np.uint32) + np.uint32(0x10000)).view(F32)
    return low, high, bits & np.uint32(0xFFFF)


class TestRoundBf16(unittest.TestCase):
    def test_ties_go_to_even(self):
        one = 1.0
        cases = [(one + 2 ** -8, one),                       # halfway 1 | 1+2^-7: 1 is even
                 (one + 3 * 2 ** -8, one + 2 ** -6),         # halfway 1+2^-7 | 1+2^-6: upper even
                 (-(one + 2 ** -8), -one),
                 (3 * 2 ** -134, 2 ** -132),                 # subnormal tie, upper even
                 (2 ** -134, 0.0)]                           # half the smallest subnormal
        for x, want in cases:
            self.assertEqual(pr.round_bf16(F32(x)), F32(want), x)

    def test_nearest_otherwise(self):
        self.assertEqual(pr.round_bf16(F32(1 + 2 ** -8 + 2 ** -20)), F32(1 + 2 ** -7))
        self.assertEqual(pr.round_bf16(F32(1 + 2 ** -8 - 2 ** -20)), F32(1))
        self.assertEqual(pr.round_bf16(F32(0.16748047)), F32(0.16796875))  # the tie the engine met

    def test_special_values(self):
        big = np.finfo(F32).max                                # rounds past the largest bf16
        out = pr.round_bf16(np.array([big, -big, np.inf, -np.inf, np.nan, 0.0, -0.0], F32))
        self.assertEqual(list(out[:4]), [np.inf, -np.inf, np.inf, -np.inf])
        self.assertTrue(np.isnan(out[4]))
        self.assertEqual(out.dtype, F32)
        self.assertTrue(np.signbit(out[6]) and not np.signbit(out[5]))

    def test_random_bit_patterns_against_bit_cutting(self):
        bits = np.random.default_rng(7).integers(0, 2 ** 32, 200000, dtype=np.uint64)
        x = bits.astype(np.uint32).view(F32)
        x = x[np.isfinite(x) & (np.abs(x) < np.finfo(F32).max / 2)]
        low, high, rest = bf16_neighbours(x)
        even_low = (low.view(np.uint32) >> 16) % 2 == 0
        want = np.where((rest < 0x8000) | ((rest == 0x8000) & even_low), low, high)
        got = pr.round_bf16(x)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        self.assertTrue(np.all(pr.round_bf16(got) == got))    # bf16 values stay as they are


class TestInt8(unittest.TestCase):
    def test_columns_scale_by_their_own_maximum(self):
        w = np.array([[127.0, 0.0, -0.5],
                      [2.5, 0.0, 0.2],
                      [-0.5, 0.0, 0.125],
                      [1.5, 0.0, -0.0625]], F32)
        q, scale = pr.quantize_columns(w)
        np.testing.assert_array_equal(scale, F32([1.0, 1.0, 0.5 / 127]))   # zero column: 1
        np.testing.assert_array_equal(q[:, 0], [127, 2, 0, 2])            # ties to even
        np.testing.assert_array_equal(q[:, 1], 0)
        np.testing.assert_array_equal(q[:, 2], [-127, 51, 32, -16])       # 0.2 x 254 = 50.8

    def test_rows_multiply_by_the_inverse_scale(self):
        q, scale = pr.quantize_rows(np.array([[254.0, 5.0, -3.0, 1.0], [0.0] * 4], F32))
        np.testing.assert_array_equal(scale[:, 0], F32([2.0, 1.0]))
        np.testing.assert_array_equal(q, [[127, 2, -2, 0], [0, 0, 0, 0]])
        # x / scale = 103.49999 but x * (1 / scale) = 103.5 exactly: s2s multiplies, so 104
        amax, x = F32(1.8691334), F32(1.52327)
        self.assertEqual(np.rint(x / (amax / F32(127))), 103)
        q, _ = pr.quantize_rows(np.array([amax, x], F32))
        np.testing.assert_array_equal(q, [127, 104])

    def test_linear_int8_is_the_dequantized_product(self):
        rng = np.random.default_rng(3)
        x, w, b = (rng.standard_normal(s).astype(F32) for s in ((5, 24), (24, 7), (7,)))
        xq, xs = pr.quantize_rows(x)
        wq, ws = pr.quantize_columns(w)
        want = (xq * xs.astype(np.float64)) @ (wq * ws.astype(np.float64)) + b
        got = pr.linear("int8", x, w, b)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
        self.assertGreater(np.abs(got - (x @ w + b)).max(), 1e-3)  # and it is not float32

    def test_linear_int8_7bit_quantizes_weights_to_63_levels(self):
        rng = np.random.default_rng(5)
        x, w = rng.standard_normal((4, 32)).astype(F32), rng.standard_normal((32, 6)).astype(F32)
        wq, ws = pr.quantize_columns(w, 63)
        self.assertEqual(np.abs(wq).max(), 63)
        np.testing.assert_array_equal(ws, np.abs(w).max(axis=0) / F32(63))
        xq, xs = pr.quantize_rows(x)
        want = (xq * xs.astype(np.float64)) @ (wq * ws.astype(np.float64))
        got = pr.linear("int8_7bit", x, w)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
        self.assertGreater(np.abs(got - pr.linear("int8", x, w)).max(), 1e-4)  # not int8's

    def test_linear_bf16_rounds_both_operands(self):
        rng = np.random.default_rng(4)
        x, w = rng.standard_normal((3, 16)).astype(F32), rng.standard_normal((16, 5)).astype(F32)
        want = pr.round_bf16(x).astype(np.float64) @ pr.round_bf16(w).astype(np.float64)
        np.testing.assert_allclose(pr.linear("bfloat16", x, w), want, rtol=0, atol=1e-5)
        b = np.ones(5, F32)
        np.testing.assert_array_equal(pr.linear("float32", x, w, b), ref.affine(x, w, b))
        with self.assertRaises(ValueError):
            pr.linear("int4", x, w)


class TestMarianPrecision(unittest.TestCase):
    def setUp(self):
        if not os.path.isdir(os.path.join(MODELS, PRECISION_FIXTURES[0])):
            self.skipTest("fixtures not generated")

    def test_only_step_decoding_rounds_keys_and_values(self):
        """forward_all equals the steps in float32 (test_marian_ref.py), but in bfloat16 / int8
        only the steps read bf16 keys and values, so the two differ, by more than float error."""
        folder = os.path.join(MODELS, PRECISION_FIXTURES[0])
        g = np.load(os.path.join(GOLDEN, PRECISION_FIXTURES[0] + ".npz"))
        src, n = g["src_ids"][:1, :g["src_lengths"][0]], g["src_lengths"][:1]
        tgt = g["tgt_ids"][:1, :g["tgt_lengths"][0]]
        for precision in ("bfloat16", "int8"):
            m = ref.load_model(folder, precision)
            enc = ref.encoder(m, src, n)
            full = ref.decoder_forward_all(m, enc, n, tgt)[0]
            state, prev, steps = ref.decoder_init(m, enc, n), np.array([-1]), []
            for t in range(tgt.shape[1]):
                logits, state = ref.decoder_step(m, state, prev)
                steps.append(logits[0])
                prev = tgt[:, t]
            self.assertGreater(np.abs(np.stack(steps) - full).max(), 1e-3, precision)

    def test_goldens_reproduce(self):
        for name in PRECISION_FIXTURES:
            g = np.load(os.path.join(GOLDEN, name + ".precision.npz"))
            base = np.load(os.path.join(GOLDEN, name + ".npz"))
            np.testing.assert_array_equal(g["src_ids"], base["src_ids"])
            for precision in ("bfloat16", "int8"):
                m = ref.load_model(os.path.join(MODELS, name), precision)
                for b, n in enumerate(g["src_lengths"]):
                    ids, logits = ref.greedy(m, g["src_ids"][b, :n])
                    row = g[precision + "_greedy_ids"][b]
                    self.assertEqual(list(row[:len(ids)]), ids)
                    self.assertTrue(np.all(row[len(ids):] == -1))
                    want = g[precision + "_greedy_logits"][b, :len(ids)]
                    np.testing.assert_allclose(want, logits, rtol=0, atol=1e-5)


if __name__ == "__main__":
    unittest.main(verbosity=2)
