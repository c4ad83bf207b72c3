#!/usr/bin/python3
"""Self-checks of the numpy Marian reference and of the generated fixtures.

    /usr/bin/python3 -m unittest discover -s tools/reference -p 'test_*.py'
    /usr/bin/python3 tools/reference/test_marian_ref.py
"""

import os
import struct
import sys
import unittest
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import marian_ref as ref  # noqa: E402

MODELS = os.path.join(ROOT, "tests", "data", "models")
GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
FIXTURES = ["marian-postnorm-swish-tiedall", "marian-prenorm-relu-untied",
            "marian-ymlids-gelu-tied", "marian-ffn3-learnedpos-legacyW"]
TOL = 1e-5


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        return [l for l in fh.read().split("\n") if l]


class Base(unittest.TestCase):
    cache = {}

    def setUp(self):
        for name in FIXTURES:
            if not os.path.isdir(os.path.join(MODELS, name)):
                self.skipTest("fixtures not generated")

    def fixture(self, name):
        if name not in self.cache:
            m = ref.load_model(os.path.join(MODELS, name))
            srcs = read_lines(os.path.join(GOLDEN, name + ".sources.txt"))
            tgts = read_lines(os.path.join(GOLDEN, name + ".targets.txt"))
            src = [ref.encode_text(m, s, "source") for s in srcs]
            tgt = [ref.encode_text(m, t, "target") for t in tgts]
            self.cache[name] = (m, src, tgt)
        return self.cache[name]


class TestPositional(unittest.TestCase):
    def test_values(self):
        np.testing.assert_allclose(ref.positional(4, [1])[0], [0.8414710, 0.0001000, 0.5403023, 1.0],
                                   atol=1e-6, rtol=0)
        np.testing.assert_allclose(
            ref.positional(8, [3])[0],
            [0.14112, 0.1387981, 0.0064633, 0.0003, -0.9899925, 0.9903207, 0.9999791, 1.0],
            atol=1e-5, rtol=0)
        self.assertEqual(ref.positional(16, [0]).dtype, np.float32)

    def test_golden_file(self):
        p = os.path.join(GOLDEN, "positional.npz")
        if not os.path.exists(p):
            self.skipTest("no golden")
        g = np.load(p)
        np.testing.assert_array_equal(g["pe_d4"], ref.positional(4, np.arange(10)))
        np.testing.assert_array_equal(g["pe_d8"], ref.positional(8, np.arange(10)))


class TestConsistency(Base):
    def test_forward_all_equals_cached_steps(self):
        """Teacher-forced decoder_step (K/V cache) == decoder_forward_all at every position."""
        for name in FIXTURES:
            m, src, tgt = self.fixture(name)
            for s, t in zip(src, tgt):
                S = np.array([s])
                enc = ref.encoder(m, S, np.array([len(s)]))
                full = ref.decoder_forward_all(m, enc, np.array([len(s)]), np.array([t]))[0]
                st = ref.decoder_init(m, enc, np.array([len(s)]))
                prev = np.array([-1])
                for pos in range(len(t)):
                    lg, st = ref.decoder_step(m, st, prev)
                    d = np.abs(lg[0] - full[pos]).max()
                    self.assertLess(d, TOL, "%s pos %d diff %g" % (name, pos, d))
                    prev = np.array([t[pos]])

    def test_forward_all_equals_growing_prefix(self):
        """Recomputing forward_all on the prefix t[:p] gives the same logits at position p."""
        for name in FIXTURES:
            m, src, tgt = self.fixture(name)
            s, t = src[1], tgt[1]
            enc = ref.encoder(m, np.array([s]), np.array([len(s)]))
            full = ref.decoder_forward_all(m, enc, np.array([len(s)]), np.array([t]))[0]
            for p in range(len(t)):
                part = ref.decoder_forward_all(m, enc, np.array([len(s)]), np.array([t[:p + 1]]))[0]
                d = np.abs(part[p] - full[p]).max()
                self.assertLess(d, TOL, "%s pos %d diff %g" % (name, p, d))

    def test_batch_equals_single(self):
        for name in FIXTURES:
            m, src, tgt = self.fixture(name)
            S, sl = ref.pad_batch(src)
            T, tl = ref.pad_batch(tgt)
            enc_b = ref.encoder(m, S, sl)
            log_b = ref.decoder_forward_all(m, enc_b, sl, T)
            for b in range(len(src)):
                enc_1 = ref.encoder(m, np.array([src[b]]), np.array([sl[b]]))
                d = np.abs(enc_b[b, :sl[b]] - enc_1[0]).max()
                self.assertLess(d, TOL, "%s encoder sent %d diff %g" % (name, b, d))
                log_1 = ref.decoder_forward_all(m, enc_1, np.array([sl[b]]), np.array([tgt[b]]))
                d = np.abs(log_b[b, :tl[b]] - log_1[0]).max()
                self.assertLess(d, TOL, "%s logits sent %d diff %g" % (name, b, d))

    def test_greedy_semantics(self):
        for name in FIXTURES:
            m, src, _ = self.fixture(name)
            for s in src:
                out, logits = ref.greedy(m, s)
                self.assertEqual(len(out), logits.shape[0])
                self.assertNotIn(m.unk_id, out)
                if out[-1] != m.eos_id:
                    self.assertEqual(len(out), 3 * len(s))
                self.assertNotIn(m.eos_id, out[:-1])


class TestGolden(Base):
    def test_golden_reproduces(self):
        for name in FIXTURES:
            m, src, tgt = self.fixture(name)
            g = np.load(os.path.join(GOLDEN, name + ".npz"))
            expect = {"src_ids": np.int32, "src_lengths": np.int32, "encoder_out": np.float32,
                      "tgt_ids": np.int32, "tgt_lengths": np.int32, "forward_all_logits": np.float32,
                      "forward_all_logprobs": np.float32, "greedy_ids": np.int32,
                      "greedy_logits": np.float32}
            for k, dt in expect.items():
                self.assertEqual(g[k].dtype, dt, k)
            S, sl = ref.pad_batch(src)
            T, tl = ref.pad_batch(tgt)
            np.testing.assert_array_equal(g["src_ids"], S)
            np.testing.assert_array_equal(g["src_lengths"], sl)
            np.testing.assert_array_equal(g["tgt_ids"], T)
            np.testing.assert_array_equal(g["tgt_lengths"], tl)
            enc = ref.encoder(m, S, sl)
            for b in range(len(src)):
                np.testing.assert_allclose(g["encoder_out"][b, :sl[b]], enc[b, :sl[b]], atol=TOL, rtol=0)
                self.assertTrue(np.all(g["encoder_out"][b, sl[b]:] == 0))
            lg = ref.decoder_forward_all(m, g["encoder_out"], sl, T)
            lp = ref.log_softmax(lg)
            for b in range(len(tgt)):
                np.testing.assert_allclose(g["forward_all_logits"][b, :tl[b]], lg[b, :tl[b]], atol=TOL, rtol=0)
                np.testing.assert_allclose(g["forward_all_logprobs"][b, :tl[b]], lp[b, :tl[b]], atol=TOL, rtol=0)
            for b, s in enumerate(src):
                out, steps = ref.greedy(m, s)
                row = g["greedy_ids"][b]
                self.assertEqual(list(row[:len(out)]), out)
                self.assertTrue(np.all(row[len(out):] == -1))
                np.testing.assert_allclose(g["greedy_logits"][b, :len(out)], steps, atol=TOL, rtol=0)
                self.assertTrue(np.all(g["greedy_logits"][b, len(out):] == 0))
            self.assertEqual(g["forward_all_logits"].shape[2], m.V)


class TestFixtureFormats(Base):
    def _npz(self, name):
        d = os.path.join(MODELS, name)
        return [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".npz")][0]

    def test_cnpy_layout(self):
        for name in ("marian-postnorm-swish-tiedall", "marian-ffn3-learnedpos-legacyW"):
            path = self._npz(name)
            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    self.assertEqual(info.compress_type, zipfile.ZIP_STORED)
                    self.assertEqual(info.extra, b"")
                    self.assertEqual(info.date_time, (1980, 0, 0, 0, 0, 0))
                    data = z.read(info)
                    self.assertEqual(data[:8], b"\x93NUMPY\x01\x00")
                    hl = struct.unpack("<H", data[8:10])[0]
                    self.assertEqual((10 + hl) % 16, 0)
                names = z.namelist()
                self.assertEqual(names[-1], "special:model.yml.npy")
            raw = np.load(path)["special:model.yml"]
            self.assertEqual(raw.dtype, np.int8)
            b = raw.tobytes()
            self.assertEqual(b.count(b"\x00"), 1)
            self.assertTrue(b.endswith(b"\x00"))

    def test_savez_layouts(self):
        b_path = self._npz("marian-prenorm-relu-untied")
        with zipfile.ZipFile(b_path) as z:
            self.assertTrue(all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()))
            with open(b_path, "rb") as fh:
                raw = fh.read()
            for i in z.infolist():   # numpy forces zip64: local headers carry a 0x0001 extra
                off = i.header_offset
                self.assertEqual(raw[off:off + 4], b"PK\x03\x04")
                n, e = struct.unpack("<HH", raw[off + 26:off + 30])
                self.assertGreater(e, 0)
                self.assertEqual(raw[off + 30 + n:off + 32 + n], b"\x01\x00")
        raw = np.load(b_path)["special:model.yml"].tobytes()
        self.assertEqual(len(raw) % 256, 0)
        self.assertGreater(raw.count(b"\x00"), 1)
        c_path = self._npz("marian-ymlids-gelu-tied")
        with zipfile.ZipFile(c_path) as z:
            self.assertTrue(all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist()))

    def test_names_and_shapes(self):
        m, _, _ = self.fixture("marian-postnorm-swish-tiedall")
        self.assertIn("Wemb", m.w)
        self.assertNotIn("encoder_Wemb", m.w)
        self.assertEqual(m.w["decoder_l2_context_Wq"].shape, (16, 16))
        self.assertEqual(m.w["encoder_l1_ffn_W1"].shape, (16, 32))
        self.assertEqual(m.w["decoder_ff_logit_out_b"].shape, (1, m.V))
        m, _, _ = self.fixture("marian-prenorm-relu-untied")
        Vs, Vt = m.cfg["dim-vocabs"]
        self.assertNotEqual(Vs, Vt)
        self.assertEqual(m.w["decoder_ff_logit_out_Wt"].shape, (Vt, 16))
        self.assertEqual(m.w["encoder_Wemb"].shape, (Vs, 16))
        for k in ("encoder_emb_ln_scale_pre", "decoder_emb_ln_bias_pre", "encoder_top_ln_scale",
                  "decoder_top_ln_bias", "encoder_l1_self_Wo_ln_scale_pre", "decoder_l2_ffn_ffn_ln_bias_pre"):
            self.assertIn(k, m.w)
        self.assertEqual(m.src_vocab.kind, "spm")
        self.assertEqual((m.src_vocab.eos, m.src_vocab.unk), (0, 1))
        self.assertEqual((m.tgt_vocab.eos, m.tgt_vocab.unk), (2, 0))
        m, _, _ = self.fixture("marian-ymlids-gelu-tied")
        self.assertNotIn(m.eos_id, (0, 1))
        self.assertNotIn(m.unk_id, (0, 1))
        self.assertIn(">>deu<<", m.src_vocab.piece2id)
        self.assertIn("decoder_Wemb", m.w)
        self.assertNotIn("decoder_ff_logit_out_Wt", m.w)
        m, _, _ = self.fixture("marian-ffn3-learnedpos-legacyW")
        self.assertEqual(m.w["Wpos"].shape, (64, 16))
        self.assertEqual(m.w["encoder_l1_ffn_W2"].shape, (32, 32))
        self.assertEqual(m.w["decoder_ff_logit_out_W"].shape, (16, m.V))
        self.assertNotIn("decoder_ff_logit_out_b", m.w)
        self.assertNotIn(">>fra<<", m.src_vocab.piece2id)   # id >= dim-vocabs is dropped
        self.assertFalse(os.path.exists(os.path.join(MODELS, "marian-ffn3-learnedpos-legacyW", "decoder.yml")))

    def test_sizes(self):
        for name in FIXTURES:
            d = os.path.join(MODELS, name)
            total = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
            self.assertLess(total, 200 * 1024, name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
