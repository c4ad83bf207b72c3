#!/usr/bin/python3
"""Self-checks of the HF MarianMT and CTranslate2 (OpenNMT-py / Marian conversions) numpy references
and of the generated hf-* / ct2-* fixtures and goldens.

    /usr/bin/python3 tools/reference/test_hf_onmt_ref.py
    /usr/bin/python3 -m unittest discover -s tools/reference -p 'test_*.py'
"""

import json
import math
import os
import struct
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "fixtures"))
import hf_ref  # noqa: E402
import marian_ref  # noqa: E402
import onmt_ref  # noqa: E402

MODELS = os.path.join(ROOT, "tests", "data", "models")
GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
HF = ["hf-marian-tied", "hf-marian-fp16-untied"]
CT2 = ["ct2-onmt-relpos", "ct2-onmt-abspos", "ct2-marian"]
MARIAN = "marian-postnorm-swish-tiedall"
TOL = 1e-5


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        return [l for l in fh.read().split("\n") if l]


def ct2_spm(name):
    if name == "ct2-marian":   # no .spm in the folder (size budget), see README
        d = os.path.join(MODELS, MARIAN)
        return dict(source_spm=os.path.join(d, "source.spm"), target_spm=os.path.join(d, "target.spm"))
    return {}


class Base(unittest.TestCase):
    cache = {}

    def setUp(self):
        for name in HF + CT2 + [MARIAN]:
            if not os.path.isdir(os.path.join(MODELS, name)):
                self.skipTest("fixtures not generated")

    def fixture(self, name):
        """(ref module, model, src id lists, tgt id lists) from the golden text files."""
        if name not in self.cache:
            ref = hf_ref if name.startswith("hf-") else onmt_ref
            m = ref.load_model(os.path.join(MODELS, name), **({} if ref is hf_ref else ct2_spm(name)))
            srcs = read_lines(os.path.join(GOLDEN, name + ".sources.txt"))
            tgts = read_lines(os.path.join(GOLDEN, name + ".targets.txt"))
            src = [ref.encode_text(m, s, "source") for s in srcs]
            tgt = [ref.encode_text(m, t, "target") for t in tgts]
            self.cache[name] = (ref, m, src, tgt)
        return self.cache[name]


# ----------------------------------------------------------------------------------------------
class TestPositions(unittest.TestCase):
    def test_hf_sinusoid_values(self):
        np.testing.assert_allclose(hf_ref.hf_positional(4, [1])[0], [0.8414710, 0.0099998, 0.5403023, 0.9999500],
                                   atol=1e-6, rtol=0)
        self.assertTrue(np.all(hf_ref.hf_positional(16, [0])[0] == np.array([0] * 8 + [1] * 8, np.float32)))

    def test_ct2_marian_table_equals_hf(self):
        import make_ct2_fixtures as mcf
        t = mcf.ct2_marian_sinusoid(16).astype(np.float32)
        self.assertEqual(t.shape, (2048, 16))
        np.testing.assert_array_equal(t[:200], hf_ref.hf_positional(16, np.arange(200)))

    def test_marian_sinusoid_differs(self):
        a = hf_ref.hf_positional(16, [5])[0]
        b = marian_ref.positional(16, [5])[0]
        np.testing.assert_array_equal(b, hf_ref.marian_positional(16, [5])[0])
        self.assertEqual(a[0], b[0])            # frequency index 0 is 1 in both
        self.assertGreater(np.abs(a - b).max(), 1e-3)

    def test_onmt_interleaved_pe(self):
        import make_ct2_fixtures as mcf
        pe = mcf.onmt_pe(8, 16)[:, 0, :]
        p, k = 3, 2
        w = math.exp(-2 * k * math.log(10000.0) / 16)
        self.assertAlmostEqual(float(pe[p, 2 * k]), math.sin(p * w), places=6)
        self.assertAlmostEqual(float(pe[p, 2 * k + 1]), math.cos(p * w), places=6)


class TestRelativePositions(unittest.TestCase):
    def test_index_matrix_hand_computed(self):
        # K = 2, 4 queries x 4 keys: idx = clamp(j - i, -2, 2) + 2
        expect = np.array([[2, 3, 4, 4],
                           [1, 2, 3, 4],
                           [0, 1, 2, 3],
                           [0, 0, 1, 2]])
        np.testing.assert_array_equal(onmt_ref.relative_position_index(4, 4, 2), expect)
        # cached decoding: one query (position 3) against 4 keys = last row
        np.testing.assert_array_equal(onmt_ref.relative_position_index(1, 4, 2), expect[3:])
        # K = 4, query 0 of 7 keys: clipping at +4
        np.testing.assert_array_equal(onmt_ref.relative_position_index(1, 7, 4, offset=0)[0],
                                      [4, 5, 6, 7, 8, 8, 8])
        # query 6 of 7 keys: clipping at -4
        np.testing.assert_array_equal(onmt_ref.relative_position_index(7, 7, 4)[6],
                                      [0, 0, 0, 1, 2, 3, 4])

    def test_attention_against_loops(self):
        """onmt_ref.attention (vectorised, CTranslate2 formulation) == OpenNMT-py's formula
        evaluated with explicit loops on the relpos fixture's first encoder layer."""
        m = onmt_ref.load_model(os.path.join(MODELS, "ct2-onmt-relpos"))
        rng = np.random.default_rng(0)
        T, D, H = 6, m.D, m.enc_heads
        dh = D // H
        x = rng.standard_normal((1, T, D)).astype(np.float32)
        P = "encoder/layer_0/self_attention"
        got = onmt_ref.attention(m, P, H, x, None, np.float32(0), True, True)
        v = m.v
        R = v[P + "/relative_position_keys"].astype(np.float64)
        K = (R.shape[0] - 1) // 2
        self.assertEqual(K, 4)
        np.testing.assert_array_equal(v[P + "/relative_position_values"], v[P + "/relative_position_keys"])
        h = m.layer_norm(P + "/layer_norm", x)[0].astype(np.float64)
        W0, b0 = v[P + "/linear_0/weight"].astype(np.float64), v[P + "/linear_0/bias"].astype(np.float64)
        qkv = h @ W0.T + b0
        q, k, val = qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:]
        out = np.zeros((T, D))
        for hd in range(H):
            sl = slice(hd * dh, (hd + 1) * dh)
            for i in range(T):
                qi = q[i, sl] / math.sqrt(dh)
                s = np.array([qi @ k[j, sl] + qi @ R[min(max(j - i, -K), K) + K] for j in range(T)])
                a = np.exp(s - s.max())
                a /= a.sum()
                out[i, sl] = sum(a[j] * (val[j, sl] + R[min(max(j - i, -K), K) + K]) for j in range(T))
        W1, b1 = v[P + "/linear_1/weight"].astype(np.float64), v[P + "/linear_1/bias"].astype(np.float64)
        expect = out @ W1.T + b1 + x[0]
        np.testing.assert_allclose(got[0], expect, atol=2e-5, rtol=0)


# ----------------------------------------------------------------------------------------------
class TestConsistency(Base):
    def test_forward_all_equals_steps(self):
        for name in HF + CT2:
            ref, m, src, tgt = self.fixture(name)
            for s, t in zip(src, tgt):
                sl = np.array([len(s)])
                enc = ref.encoder(m, np.array([s]), sl)
                full = ref.decoder_forward_all(m, enc, sl, np.array([t]))[0]
                st = ref.decoder_init(m, enc, sl)
                prev = np.array([0])
                for pos in range(len(t)):
                    lg, st = ref.decoder_step(m, st, prev)
                    d = np.abs(lg[0] - full[pos]).max()
                    self.assertLess(d, TOL, "%s pos %d diff %g" % (name, pos, d))
                    prev = np.array([t[pos]])

    def test_padding_invariance(self):
        for name in HF + CT2:
            ref, m, src, tgt = self.fixture(name)
            S, sl = ref.pad_batch(src)
            T, tl = ref.pad_batch(tgt)
            S = np.concatenate([S, np.full((len(src), 3), 5, S.dtype)], axis=1)   # extra non-zero padding
            T = np.concatenate([T, np.full((len(tgt), 2), 7, T.dtype)], axis=1)
            enc_b = ref.encoder(m, S, sl)
            log_b = ref.decoder_forward_all(m, enc_b, sl, T)
            for b in range(len(src)):
                enc_1 = ref.encoder(m, np.array([src[b]]), np.array([sl[b]]))
                d = np.abs(enc_b[b, :sl[b]] - enc_1[0]).max()
                self.assertLess(d, TOL, "%s encoder sent %d diff %g" % (name, b, d))
                log_1 = ref.decoder_forward_all(m, enc_1, np.array([sl[b]]), np.array([tgt[b]]))
                d = np.abs(log_b[b, :tl[b]] - log_1[0]).max()
                self.assertLess(d, TOL, "%s logits sent %d diff %g" % (name, b, d))

    def test_hf_greedy_semantics(self):
        saw_unk = False
        for name in HF:
            ref, m, src, _ = self.fixture(name)
            for s in src:
                out, logits = hf_ref.greedy(m, s)
                self.assertEqual(len(out), logits.shape[0])
                self.assertNotIn(m.pad_id, out)
                self.assertNotIn(m.eos_id, out[:-1])
                saw_unk |= m.unk_id in out
                if out[-1] != m.eos_id:
                    self.assertEqual(len(out), math.ceil(3 * len(s)))
        self.assertTrue(saw_unk, "<unk> is never emitted: the golden does not test that HF allows it")

    def test_ct2_greedy_semantics(self):
        eos0 = 0
        for name in CT2:
            ref, m, src, _ = self.fixture(name)
            for s in src:
                out, logits = onmt_ref.greedy(m, s)
                self.assertNotEqual(out[0], m.eos_id)        # min_decoding_length = 1
                self.assertNotIn(m.eos_id, out[:-1])
                eos0 += int(np.argmax(logits[0]) == m.eos_id)
                if out[-1] != m.eos_id:
                    self.assertEqual(len(out), math.ceil(3 * len(s)))
                short, _ = onmt_ref.greedy(m, s, min_length=0)
                if np.argmax(logits[0]) == m.eos_id:
                    self.assertEqual(short, [m.eos_id])
        self.assertGreater(eos0, 0, "min_decoding_length never matters in the goldens")


class TestTokenization(Base):
    def test_hf_tied_equals_marian(self):
        _, m, src, tgt = self.fixture("hf-marian-tied")
        mm = marian_ref.load_model(os.path.join(MODELS, MARIAN))
        srcs = read_lines(os.path.join(GOLDEN, "hf-marian-tied.sources.txt"))
        self.assertEqual(src, [marian_ref.encode_text(mm, s) for s in srcs])
        self.assertEqual(src[3][-1], m.eos_id)
        self.assertIn(m.src_unk_id, src[3])            # the unseen euro sign

    def test_hf_language_code(self):
        _, m, src, _ = self.fixture("hf-marian-fp16-untied")
        code = m.vocab[">>deu<<"]
        self.assertEqual(src[1][0], code)
        self.assertEqual(src[3][0], code)
        self.assertNotIn(code, src[0])
        plain = hf_ref.encode_text(m, read_lines(os.path.join(GOLDEN, "hf-marian-tied.sources.txt"))[1])
        self.assertEqual(src[1][1:], plain)
        self.assertEqual(hf_ref.split_language_code(">>fra<< Hi"), ([">>fra<<"], " Hi"))
        self.assertEqual(m.target_vocab["</s>"], 0)
        self.assertNotEqual(m.vocab, m.target_vocab)

    def test_ct2_source_eos(self):
        _, m, src, tgt = self.fixture("ct2-onmt-relpos")
        self.assertFalse(m.config["add_source_eos"])
        self.assertNotEqual(src[0][-1], m.src_vocab.eos_id)
        self.assertEqual(tgt[0][-1], m.eos_id)
        self.assertEqual(m.start_id, m.tgt_vocab.to_id("<s>"))
        self.assertEqual(m.tgt_vocab.tokens[:4], ["<unk>", "<blank>", "<s>", "</s>"])
        _, m, src, _ = self.fixture("ct2-marian")
        self.assertTrue(m.config["add_source_eos"])
        self.assertEqual(src[0][-1], m.src_vocab.eos_id)
        mm = marian_ref.load_model(os.path.join(MODELS, MARIAN))
        srcs = read_lines(os.path.join(GOLDEN, "ct2-marian.sources.txt"))
        self.assertEqual(src, [marian_ref.encode_text(mm, s) for s in srcs])
        self.assertNotIn("<s>", m.tgt_vocab.t2i)
        self.assertEqual(m.start_id, m.unk_id)           # "<s>" -> <unk>, zeroed by start_from_zero_embedding


# ----------------------------------------------------------------------------------------------
class TestCrossFormat(Base):
    def test_hf_with_marian_settings_reproduces_marian(self):
        _, hm, src, tgt = self.fixture("hf-marian-tied")
        hm2 = hf_ref.load_model(os.path.join(MODELS, "hf-marian-tied"), ln_eps=1e-6,
                                positional=hf_ref.marian_positional)
        mm = marian_ref.load_model(os.path.join(MODELS, MARIAN))
        S, sl = marian_ref.pad_batch(src)
        T, tl = marian_ref.pad_batch(tgt)
        lm = marian_ref.decoder_forward_all(mm, marian_ref.encoder(mm, S, sl), sl, T)
        lh = hf_ref.decoder_forward_all(hm2, hf_ref.encoder(hm2, S, sl), sl, T)
        for b in range(len(src)):
            d = np.abs(lm[b, :tl[b]] - lh[b, :tl[b], :mm.V]).max()
            self.assertLess(d, 1e-5, "sentence %d diff %g" % (b, d))
            self.assertTrue(np.all(lh[b, :tl[b], hm2.pad_id] == 0))
        # and with Marian's <unk> suppression the greedy ids are Marian's golden ids
        mg = np.load(os.path.join(GOLDEN, MARIAN + ".npz"))["greedy_ids"]
        for b, s in enumerate(src):
            out, _ = hf_ref.greedy(hm2, s, suppress=[hm2.unk_id])
            self.assertEqual(out, [int(x) for x in mg[b] if x >= 0])
        # HF semantics (D/2 sinusoid, eps 1e-5) really differ
        lh1 = hf_ref.decoder_forward_all(hm, hf_ref.encoder(hm, S, sl), sl, T)
        self.assertGreater(np.abs(lh1[0, :tl[0], :mm.V] - lm[0, :tl[0]]).max(), 1e-3)

    def test_recorded_cross_format_counts(self):
        g = np.load(os.path.join(GOLDEN, "hf-marian-tied.npz"))
        mg = np.load(os.path.join(GOLDEN, MARIAN + ".npz"))["greedy_ids"]
        self.assertLess(float(g["cross_marian_forward_max_abs_diff"]), 1e-5)
        for b in range(4):
            a = [int(x) for x in mg[b] if x >= 0]
            h = [int(x) for x in g["greedy_ids"][b] if x >= 0]
            n = sum(1 for i in range(max(len(a), len(h))) if i >= len(a) or i >= len(h) or a[i] != h[i])
            self.assertEqual(n, int(g["cross_marian_greedy_diff_tokens"][b]))

    def test_ct2_marian_equals_hf(self):
        """Same weights, same math (HF sinusoid, eps 1e-5, zero start, sqrt(D) scale)."""
        _, cm, src, tgt = self.fixture("ct2-marian")
        _, hm, hsrc, htgt = self.fixture("hf-marian-tied")
        self.assertEqual(src, hsrc)
        S, sl = onmt_ref.pad_batch(src)
        T, tl = onmt_ref.pad_batch(tgt)
        lc = onmt_ref.decoder_forward_all(cm, onmt_ref.encoder(cm, S, sl), sl, T)
        lh = hf_ref.decoder_forward_all(hm, hf_ref.encoder(hm, S, sl), sl, T)
        for b in range(len(src)):
            self.assertLess(np.abs(lc[b, :tl[b]] - lh[b, :tl[b], :cm.V]).max(), 1e-5)
        g = np.load(os.path.join(GOLDEN, "ct2-marian.npz"))
        np.testing.assert_array_equal(g["greedy_ids"], np.load(os.path.join(GOLDEN, "hf-marian-tied.npz"))["greedy_ids"])
        self.assertLess(float(g["cross_hf_forward_max_abs_diff"]), 1e-5)
        self.assertLess(float(g["cross_marian_forward_max_abs_diff"]), 1e-5)


# ----------------------------------------------------------------------------------------------
class TestGolden(Base):
    KEYS = {"src_ids": np.int32, "src_lengths": np.int32, "encoder_out": np.float32, "tgt_ids": np.int32,
            "tgt_lengths": np.int32, "forward_all_logits": np.float32, "forward_all_logprobs": np.float32,
            "greedy_ids": np.int32, "greedy_logits": np.float32}

    def test_golden_reproduces(self):
        for name in HF + CT2:
            ref, m, src, tgt = self.fixture(name)
            g = np.load(os.path.join(GOLDEN, name + ".npz"))
            for k, dt in self.KEYS.items():
                self.assertEqual(g[k].dtype, dt, "%s %s" % (name, k))
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
                self.assertTrue(np.all(g["forward_all_logits"][b, tl[b]:] == 0))
            for b, s in enumerate(src):
                out, steps = ref.greedy(m, s)
                row = g["greedy_ids"][b]
                self.assertEqual(list(row[:len(out)]), out, name)
                self.assertTrue(np.all(row[len(out):] == -1))
                np.testing.assert_allclose(g["greedy_logits"][b, :len(out)], steps, atol=TOL, rtol=0)
            self.assertEqual(g["forward_all_logits"].shape[2], m.V)


# ----------------------------------------------------------------------------------------------
class TestFormats(Base):
    def _st_header(self, path):
        with open(path, "rb") as fh:
            raw = fh.read()
        n = struct.unpack("<Q", raw[:8])[0]
        return n, raw[8:8 + n]

    def test_safetensors_layout(self):
        for name, dtype in (("hf-marian-tied", "F32"), ("hf-marian-fp16-untied", "F16")):
            path = os.path.join(MODELS, name, "model.safetensors")
            n, hdr = self._st_header(path)
            self.assertEqual(n % 8, 0)
            self.assertTrue(hdr.startswith(b'{"__metadata__":{"format":"pt"},'))
            h = json.loads(hdr)
            names = [k for k in h if k != "__metadata__"]
            self.assertEqual(names, sorted(names))                       # one dtype: sorted by name
            self.assertEqual({h[k]["dtype"] for k in names}, {dtype})
            self.assertEqual(h[names[0]]["data_offsets"][0], 0)
            t, meta = hf_ref.read_safetensors(path)
            self.assertEqual(meta, {"format": "pt"})
            self.assertTrue(all(not k.startswith("model.encoder.embed_positions") for k in t))
        t, _ = hf_ref.read_safetensors(os.path.join(MODELS, "hf-marian-tied", "model.safetensors"))
        self.assertIn("model.shared.weight", t)
        for k in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"):
            self.assertNotIn(k, t)
        self.assertEqual(t["model.shared.weight"].shape, (251, 16))
        self.assertTrue(np.all(t["model.shared.weight"][250] == 0))
        self.assertEqual(t["final_logits_bias"].shape, (1, 251))
        self.assertEqual(t["final_logits_bias"][0, 250], 0)
        self.assertEqual(t["model.encoder.layers.0.fc1.weight"].shape, (32, 16))
        mw = marian_ref.load_npz(os.path.join(MODELS, MARIAN, "opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz"))
        np.testing.assert_array_equal(t["model.decoder.layers.1.encoder_attn.q_proj.weight"], mw["decoder_l2_context_Wq"].T)
        np.testing.assert_array_equal(t["model.encoder.layers.0.fc1.weight"], mw["encoder_l1_ffn_W1"].T)
        t, _ = hf_ref.read_safetensors(os.path.join(MODELS, "hf-marian-fp16-untied", "model.safetensors"))
        self.assertNotIn("model.shared.weight", t)
        for k in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"):
            self.assertIn(k, t)
            self.assertEqual(t[k].dtype, np.float16)
            self.assertTrue(np.all(t[k][200] == 0))

    def test_hf_configs(self):
        for name, pad in (("hf-marian-tied", 250), ("hf-marian-fp16-untied", 200)):
            d = os.path.join(MODELS, name)
            with open(os.path.join(d, "config.json")) as fh:
                c = json.load(fh)
            self.assertEqual((c["pad_token_id"], c["decoder_start_token_id"], c["bad_words_ids"]), (pad, pad, [[pad]]))
            self.assertEqual((c["eos_token_id"], c["max_position_embeddings"], c["max_length"]), (0, 16, 512))
            self.assertTrue(c["scale_embedding"])
            self.assertEqual(c["vocab_size"], pad + 1)
            for f in ("generation_config.json", "tokenizer_config.json", "special_tokens_map.json",
                      "vocab.json", "source.spm", "target.spm"):
                self.assertTrue(os.path.exists(os.path.join(d, f)), f)
        self.assertTrue(os.path.exists(os.path.join(MODELS, "hf-marian-fp16-untied", "target_vocab.json")))

    def test_model_bin_roundtrip_and_layout(self):
        import make_ct2_fixtures as mcf
        for name in CT2:
            path = os.path.join(MODELS, name, "model.bin")
            mb = onmt_ref.read_model_bin(path)
            self.assertEqual((mb["binary_version"], mb["spec"], mb["revision"]), (6, "TransformerSpec", 7))
            names = list(mb["variables"])
            self.assertEqual(names, sorted(names))
            spec = dict(mb["variables"])
            spec.update(dict(mb["aliases"]))
            with open(path, "rb") as fh:
                self.assertEqual(mcf.serialize(spec, "TransformerSpec", 7), fh.read())
            v = mb["variables"]
            for s in ("encoder/num_heads", "decoder/num_heads", "decoder/alignment_layer"):
                self.assertEqual(v[s].dtype, np.int16)
                self.assertEqual(v[s].ndim, 0)
            for s in ("encoder/pre_norm", "encoder/activation", "encoder/scale_embeddings",
                      "decoder/start_from_zero_embedding", "encoder/multi_query_attention"):
                self.assertEqual(v[s].dtype, np.int8)
        mb = onmt_ref.read_model_bin(os.path.join(MODELS, "ct2-onmt-relpos", "model.bin"))
        al = dict(mb["aliases"])
        for side in ("encoder", "decoder"):
            for l in (0, 1):
                p = "%s/layer_%d/self_attention/relative_position_" % (side, l)
                self.assertEqual(al[p + "values"], p + "keys")
                self.assertEqual(mb["variables"][p + "keys"].shape, (9, 4))
        self.assertEqual(al["encoder/embeddings_0/weight"], "decoder/embeddings/weight")
        self.assertEqual(al["decoder/projection/weight"], "decoder/embeddings/weight")
        v = mb["variables"]
        self.assertEqual(v["decoder/layer_0/self_attention/linear_0/weight"].shape, (48, 16))
        self.assertEqual(v["decoder/layer_0/self_attention/linear_0/weight"].dtype, np.int8)
        self.assertEqual(v["decoder/layer_0/self_attention/linear_0/weight_scale"].shape, (48,))
        self.assertEqual(v["decoder/layer_0/attention/linear_1/weight"].shape, (32, 16))
        self.assertNotIn("encoder/position_encodings/encodings", v)
        self.assertEqual(int(v["encoder/scale_embeddings"]), 0)
        self.assertEqual(int(v["decoder/embeddings/weight_scale"][1]), 1)      # zero <blank> row: amax 0 -> 127
        m = onmt_ref.load_model(os.path.join(MODELS, "ct2-onmt-relpos"))
        np.testing.assert_array_equal(m.v["decoder/projection/weight"], m.v["decoder/embeddings/weight"])
        q = v["decoder/embeddings/weight"].astype(np.float32)
        r = (np.float32(1) / v["decoder/embeddings/weight_scale"]).astype(np.float32)
        np.testing.assert_array_equal(m.v["decoder/embeddings/weight"], q * r[:, None])
        mb = onmt_ref.read_model_bin(os.path.join(MODELS, "ct2-onmt-abspos", "model.bin"))
        self.assertEqual(dict(mb["aliases"]), {"encoder/position_encodings/encodings":
                                               "decoder/position_encodings/encodings"})
        self.assertEqual(mb["variables"]["decoder/position_encodings/encodings"].shape, (512, 16))
        self.assertEqual(mb["variables"]["decoder/position_encodings/encodings"].dtype, np.float16)
        mb = onmt_ref.read_model_bin(os.path.join(MODELS, "ct2-marian", "model.bin"))
        self.assertEqual(mb["variables"]["decoder/position_encodings/encodings"].shape, (2048, 16))
        self.assertEqual(int(mb["variables"]["decoder/start_from_zero_embedding"]), 1)
        self.assertEqual(int(mb["variables"]["decoder/activation"]), 2)        # swish
        self.assertEqual(len(mb["aliases"]), 3)

    def test_ct2_configs_and_vocabs(self):
        for name, eos, files in (("ct2-onmt-relpos", False, ["shared_vocabulary.json"]),
                                 ("ct2-onmt-abspos", False, ["source_vocabulary.json", "target_vocabulary.json"]),
                                 ("ct2-marian", True, ["shared_vocabulary.json"])):
            d = os.path.join(MODELS, name)
            with open(os.path.join(d, "config.json")) as fh:
                c = json.load(fh)
            self.assertEqual(c, {"add_source_bos": False, "add_source_eos": eos, "bos_token": "<s>",
                                 "decoder_start_token": "<s>", "eos_token": "</s>", "layer_norm_epsilon": None,
                                 "multi_query_attention": False, "unk_token": "<unk>"})
            for f in files:
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    toks = json.load(fh)
                self.assertIsInstance(toks, list)
            self.assertEqual(sorted(f for f in os.listdir(d) if f.endswith(".json")),
                             sorted(files + ["config.json"]))

    def test_sizes(self):
        for name in HF + CT2:
            d = os.path.join(MODELS, name)
            total = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
            self.assertLess(total, 200 * 1024, name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
