#!/usr/bin/python3
"""Self-checks of the numpy Marian beam search / scorer reference (marian_search.py) and of the
goldens tests/data/golden/<fixture>.search.json.

    /usr/bin/python3 tools/reference/test_marian_search.py
    /usr/bin/python3 -m unittest discover -s tools/reference -p 'test_*.py'
"""

import json
import math
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import marian_ref as ref  # noqa: E402
import marian_search as ms  # noqa: E402

MODELS = os.path.join(ROOT, "tests", "data", "models")
GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
FIXTURES = ["marian-postnorm-swish-tiedall", "marian-prenorm-relu-untied",
            "marian-ymlids-gelu-tied", "marian-ffn3-learnedpos-legacyW"]
F32 = np.float32

# ----------------------------------------------------------------------------------------------
# Fake scorer (model-formats.md 8.6): fixed log-prob tables, eos = 0, unk = 1, V = 6
# ----------------------------------------------------------------------------------------------
EOS, UNK, V = 0, 1, 6


class FakeScorer:
    """table: {prefix tuple: [V log-probs]}; default(prefix) -> [V] for other prefixes.
    Records every prefix it is asked about."""

    def __init__(self, table, default):
        self.table = {k: np.asarray(v, dtype=F32) for k, v in table.items()}
        self.default = default
        self.calls = []

    def __call__(self, prefix):
        self.calls.append(tuple(prefix))
        if tuple(prefix) in self.table:
            return self.table[tuple(prefix)]
        return np.asarray(self.default(tuple(prefix)), dtype=F32)


def core(scorer, beam, src_len=10, trace=None, **kw):
    return ms.beam_search_core(scorer, src_len, V, EOS, UNK, beam, trace=trace, **kw)


def f32sum(xs):
    s = F32(0)
    for x in xs:
        s = F32(s + F32(x))
    return s


class TestFakeScorer(unittest.TestCase):
    def test_beam_shrinks_on_eos_without_refill(self):
        table = {
            (): [-9, -0.01, -1.0, -1.5, -2.0, -6],     # -> [2] -1.0, [3] -1.5, [4] -2.0
            (2,): [-0.1, -9, -3, -3.2, -3.4, -3.6],    # [2 eos] -1.1 finishes at step 1
            (3,): [-4, -9, -0.3, -0.4, -5, -5],        # [3 2] -1.8, [3 3] -1.9
            (4,): [-4, -9, -0.2, -5, -5, -5],          # [4 2] -2.2 (rejected)
        }
        # afterwards every prefix prefers </s>, but many non-eos candidates (-0.2) would have
        # re-filled the beam if Marian refilled it
        sc = FakeScorer(table, lambda p: [-0.05, -9, -0.2, -0.2, -0.2, -0.2])
        trace = []
        hyps = core(sc, 3, trace=trace)
        self.assertEqual([st["width"] for st in trace], [3, 3, 2])
        self.assertEqual([st["finished"] for st in trace], [0, 1, 2])
        self.assertEqual([h["ids"] for h in hyps], [[2, EOS], [3, 2, EOS], [3, 3, EOS]])
        self.assertEqual(hyps[0]["score"], F32(F32(-1.0) + F32(-0.1)))
        self.assertEqual(hyps[1]["score"], f32sum([-1.5, -0.3, -0.05]))
        self.assertEqual(trace[1]["selected"][0][:2], (0, EOS))
        # the finished [2 </s>] is never expanded again
        self.assertNotIn((2, EOS), sc.calls)
        # margin at step 1: last selected [3 3] -1.9 vs first rejected [4 2] -2.2
        self.assertAlmostEqual(trace[1]["margin"], 0.3, places=5)

    def test_unk_suppressed(self):
        table = {(): [-5, -0.01, -2, -3, -4, -6]}
        sc = FakeScorer(table, lambda p: [-0.1, -0.001, -3, -3, -3, -3])
        hyps = core(sc, 1)
        self.assertEqual(hyps[0]["ids"], [2, EOS])
        hyps = core(sc, 3)
        for h in hyps:
            self.assertNotIn(UNK, h["ids"])
        self.assertEqual(sorted(h["ids"][0] for h in hyps), [2, 3, 4])    # not [1, 2, 3]
        hyps = core(sc, 1, src_len=1, allow_unk=True)
        self.assertEqual(hyps[0]["ids"], [UNK, UNK, UNK])      # cut at ceil(3 * 1)
        hyps = core(sc, 1, src_len=1, allow_unk=True)
        self.assertEqual(hyps[0]["score"], f32sum([-0.01, -0.001, -0.001]))

    def test_normalisation_counts_eos(self):
        table = {(): [-1.0, -9, -0.5, -9, -9, -9],            # -> [2] -0.5, [</s>] -1.0
                 (2,): [-1.2, -9, -9, -9, -9, -9]}            # -> [2 </s>] -1.7
        sc = FakeScorer(table, lambda p: [-9] * V)
        h0 = core(sc, 2, normalize=0.0)
        self.assertEqual([h["ids"] for h in h0], [[EOS], [2, EOS]])
        self.assertEqual([h["normalized"] for h in h0], [F32(-1.0), F32(F32(-0.5) + F32(-1.2))])
        h1 = core(sc, 2, normalize=1.0)
        self.assertEqual([h["ids"] for h in h1], [[2, EOS], [EOS]])
        self.assertEqual(h1[0]["normalized"], F32(F32(F32(-0.5) + F32(-1.2)) / F32(2)))   # L = 2 incl </s>
        self.assertEqual(h1[1]["normalized"], F32(-1.0))                                   # L = 1
        hw = core(sc, 2, normalize=1.0, word_penalty=0.5)
        self.assertEqual(hw[0]["ids"], [2, EOS])
        self.assertEqual(hw[0]["normalized"], F32((F32(-1.7) - F32(1.0)) / F32(2)))
        self.assertEqual(hw[1]["normalized"], F32(-1.5))
        hh = core(sc, 2, normalize=0.5)
        self.assertEqual([h["ids"] for h in hh], [[EOS], [2, EOS]])     # -1.0 > -1.7 / sqrt(2)
        self.assertAlmostEqual(float(hh[1]["normalized"]), -1.7 / math.sqrt(2), places=5)
        self.assertEqual(hh[1]["score"], F32(F32(-0.5) + F32(-1.2)))    # path score un-normalised

    def test_max_length_cut(self):
        dflt = lambda p: [-10, -10, -0.1, -0.2, -0.3, -0.4]            # never </s>
        for src_len, factor, expect in ((2, 3.0, 6), (3, 1.5, 5), (1, 3.0, 3), (7, 3.0, 21)):
            self.assertEqual(ms.max_target_length(src_len, factor), expect)
            trace = []
            hyps = core(FakeScorer({}, dflt), 2, src_len=src_len, max_length_factor=factor,
                        normalize=1.0, trace=trace)
            self.assertEqual(len(hyps), 2)
            self.assertEqual(len(trace), expect)
            self.assertEqual([st["cut"] for st in trace], [False] * (expect - 1) + [True])
            for h in hyps:
                self.assertEqual(len(h["ids"]), expect)
                self.assertNotEqual(h["ids"][-1], EOS)
                self.assertEqual(h["normalized"], F32(h["score"] / F32(expect)))
            self.assertEqual(hyps[0]["ids"], [2] * expect)

    def test_eos_at_the_cut_step(self):
        # src_len 2 -> at most 6 tokens; [2 2 2 2 2] prefers </s> at the 6th token
        def dflt(p):
            if p == (2, 2, 2, 2, 2):
                return [-0.01, -10, -0.5, -0.6, -10, -10]
            return [-10, -10, -0.1, -0.2, -10, -10]
        trace = []
        hyps = core(FakeScorer({}, dflt), 2, src_len=2, normalize=1.0, trace=trace)
        ids = [h["ids"] for h in hyps]
        self.assertIn([2, 2, 2, 2, 2, EOS], ids)
        self.assertEqual(len(hyps), 2)
        self.assertTrue(trace[-1]["cut"])
        self.assertEqual(trace[-1]["finished"], 1)
        for h in hyps:
            self.assertEqual(len(h["ids"]), 6)

    def test_ties_lower_flat_index_first(self):
        sc = FakeScorer({}, lambda p: [-10, -10, 0, 0, 0, 0])
        trace = []
        hyps = core(sc, 3, src_len=1, trace=trace)
        self.assertEqual([h["ids"] for h in hyps], [[2, 2, 2], [2, 2, 3], [2, 2, 4]])
        self.assertEqual([(a, b) for a, b, _ in trace[1]["selected"]], [(0, 2), (0, 3), (0, 4)])
        self.assertEqual(trace[0]["margin"], 0.0)

    def test_empty_source(self):
        sc = FakeScorer({}, lambda p: [-10, -10, 0, 0, 0, 0])
        hyps = core(sc, 4, src_len=1, empty_source=True, normalize=1.0)
        self.assertEqual([h["ids"] for h in hyps], [[EOS]] * 4)
        self.assertEqual([h["score"] for h in hyps], [F32(0)] * 4)
        self.assertEqual(sc.calls, [])

    def test_flip_probe(self):
        sc = FakeScorer({}, lambda p: [-10, -10, 0, 0, 0, 0])
        hyps = core(sc, 1, src_len=1, flip_boundary_below=1e-5)
        self.assertEqual(hyps[0]["ids"], [3, 3, 3])


# ----------------------------------------------------------------------------------------------
# Real fixtures
# ----------------------------------------------------------------------------------------------
class Fixtures(unittest.TestCase):
    cache = {}

    def setUp(self):
        for name in FIXTURES:
            if not os.path.isdir(os.path.join(MODELS, name)):
                self.skipTest("fixtures not generated")

    def fixture(self, name):
        if name not in self.cache:
            m = ref.load_model(os.path.join(MODELS, name))
            z = np.load(os.path.join(GOLDEN, name + ".npz"))
            srcs = [[int(x) for x in z["src_ids"][b, :z["src_lengths"][b]]] for b in range(len(z["src_lengths"]))]
            tgts = [[int(x) for x in z["tgt_ids"][b, :z["tgt_lengths"][b]]] for b in range(len(z["tgt_lengths"]))]
            scorers = [ms.ModelScorer(m, s) for s in srcs]
            self.cache[name] = (m, srcs, tgts, scorers, z)
        return self.cache[name]

    def test_beam1_equals_greedy(self):
        for name in FIXTURES:
            m, srcs, _, scs, z = self.fixture(name)
            for b, (s, sc) in enumerate(zip(srcs, scs)):
                for allow_unk in (False, True):
                    g, steps = ref.greedy(m, s, allow_unk=allow_unk)
                    hyps = ms.beam_search(m, s, 1, allow_unk=allow_unk, scorer=sc)
                    self.assertEqual(len(hyps), 1)
                    self.assertEqual(hyps[0]["ids"], g, (name, b, allow_unk))
                    lp = [ref.log_softmax(steps[i])[t] for i, t in enumerate(g)]
                    self.assertEqual(hyps[0]["token_logprobs"], lp)
                row = [int(x) for x in z["greedy_ids"][b] if x >= 0]
                self.assertEqual(ms.beam_search(m, s, 1, scorer=sc)[0]["ids"], row)

    def check_run(self, m, s, sc, beam, normalize=0.0, wp=0.0, allow_unk=False):
        trace = []
        hyps = ms.beam_search(m, s, beam, normalize=normalize, word_penalty=wp, allow_unk=allow_unk,
                              trace=trace, scorer=sc)
        max_len = ms.max_target_length(len(s))
        self.assertEqual(max_len, 3 * len(s))
        # n-best: exactly beam_size, sorted best first
        self.assertEqual(len(hyps), beam)
        nr = [float(h["normalized"]) for h in hyps]
        self.assertEqual(nr, sorted(nr, reverse=True))
        self.assertEqual(len({tuple(h["ids"]) for h in hyps}), beam)
        for h in hyps:
            ids = h["ids"]
            self.assertLessEqual(len(ids), max_len)
            self.assertNotIn(m.eos_id, ids[:-1])
            if ids[-1] != m.eos_id:
                self.assertEqual(len(ids), max_len)          # only length-cut hyps lack </s>
            if not allow_unk:
                self.assertNotIn(m.unk_id, ids)
            self.assertEqual(len(h["token_logprobs"]), len(ids))
            self.assertEqual(h["score"], f32sum(h["token_logprobs"]))
            self.assertEqual(h["normalized"], ms.normalized_score(h["score"], len(ids), normalize, wp))
            lp = sc(())
            self.assertEqual(h["token_logprobs"][0], lp[ids[0]])
        # beam width: starts at beam_size, shrinks by the number of </s> picks, never refilled
        widths = [st["width"] for st in trace]
        self.assertEqual(widths[0], beam)
        for a, b in zip(trace, trace[1:]):
            self.assertEqual(b["width"], a["width"] - a["finished"])
        last = trace[-1]
        self.assertTrue(last["cut"] or last["width"] == last["finished"])
        self.assertEqual(len(trace), max(len(h["ids"]) for h in hyps))
        return hyps, trace

    def test_search_invariants(self):
        for name in FIXTURES:
            m, srcs, _, scs, _ = self.fixture(name)
            for s, sc in zip(srcs, scs):
                for beam in (1, 2, 4, 6):
                    self.check_run(m, s, sc, beam)
                self.check_run(m, s, sc, 4, normalize=1.0)
                self.check_run(m, s, sc, 4, normalize=1.0, wp=0.5)
                self.check_run(m, s, sc, 4, allow_unk=True)

    def test_shrinking_beam_is_exercised(self):
        seen_shrink = seen_cut_and_eos = False
        for name in FIXTURES:
            m, srcs, _, scs, _ = self.fixture(name)
            for s, sc in zip(srcs, scs):
                hyps, trace = self.check_run(m, s, sc, 6)
                widths = [st["width"] for st in trace]
                if len(set(widths)) > 2:
                    seen_shrink = True
                ends = {h["ids"][-1] == m.eos_id for h in hyps}
                if ends == {True, False}:
                    seen_cut_and_eos = True
        self.assertTrue(seen_shrink)
        self.assertTrue(seen_cut_and_eos)

    def test_normalize_changes_only_ranking(self):
        for name in FIXTURES:
            m, srcs, _, scs, _ = self.fixture(name)
            for s, sc in zip(srcs, scs):
                a = ms.beam_search(m, s, 4, normalize=0.0, scorer=sc)
                b = ms.beam_search(m, s, 4, normalize=1.0, word_penalty=0.5, scorer=sc)
                self.assertEqual(sorted(h["ids"] for h in a), sorted(h["ids"] for h in b))

    def test_score_pairs(self):
        for name in FIXTURES:
            m, srcs, tgts, scs, z = self.fixture(name)
            for b, (s, t, sc) in enumerate(zip(srcs, tgts, scs)):
                r = ms.score_pairs(m, s, t)
                g = z["forward_all_logprobs"][b, np.arange(len(t)), t]
                np.testing.assert_allclose(r["token_logprobs"], g, atol=1e-5, rtol=0)
                self.assertEqual(r["score"], f32sum(r["token_logprobs"]))
                self.assertLess(float(r["score"]), 0.0)
                # scoring a beam hypothesis reproduces its path score (full pass vs cached steps)
                for h in ms.beam_search(m, s, 4, scorer=sc):
                    r2 = ms.score_pairs(m, s, h["ids"])
                    np.testing.assert_allclose(r2["token_logprobs"], h["token_logprobs"], atol=1e-4, rtol=0)
                    self.assertAlmostEqual(float(r2["score"]), float(h["score"]), delta=1e-3)

    def test_empty_source_forced_eos(self):
        m, _, _, _, _ = self.fixture(FIXTURES[0])
        hyps = ms.beam_search(m, [m.src_vocab.eos], 3, normalize=1.0)
        self.assertEqual([h["ids"] for h in hyps], [[m.eos_id]] * 3)
        self.assertEqual([h["score"] for h in hyps], [F32(0)] * 3)

    def test_goldens_reproduce(self):
        for name in FIXTURES:
            path = os.path.join(GOLDEN, name + ".search.json")
            if not os.path.exists(path):
                self.skipTest("no search goldens")
            m, srcs, tgts, scs, _ = self.fixture(name)
            with open(path, encoding="ascii") as fh:
                g = json.load(fh)
            self.assertEqual((g["fixture"], g["vocab_size"], g["eos_id"], g["unk_id"]),
                             (name, m.V, m.eos_id, m.unk_id))
            self.assertEqual([x["src_ids"] for x in g["sentences"]], srcs)
            self.assertEqual([x["max_length"] for x in g["sentences"]], [3 * len(s) for s in srcs])
            runs = {(r["beam_size"], r["normalize"], r["word_penalty"], r["allow_unk"]) for r in g["runs"]}
            self.assertEqual(runs, {(1, 0.0, 0.0, False), (1, 1.0, 0.0, False), (4, 0.0, 0.0, False),
                                    (4, 1.0, 0.0, False), (6, 0.0, 0.0, False), (6, 1.0, 0.0, False),
                                    (4, 1.0, 0.5, False), (4, 0.0, 0.0, True)})
            for r in g["runs"]:
                self.assertEqual(len(r["results"]), len(srcs))
                margins = []
                for s, sc, res in zip(srcs, scs, r["results"]):
                    trace = []
                    hyps = ms.beam_search(m, s, r["beam_size"], normalize=r["normalize"],
                                          word_penalty=r["word_penalty"], allow_unk=r["allow_unk"],
                                          trace=trace, scorer=sc)
                    margins.append(min(st["margin"] for st in trace if st["margin"] is not None))
                    self.assertEqual([h["ids"] for h in res], [h["ids"] for h in hyps])
                    for a, b in zip(res, hyps):
                        np.testing.assert_allclose(a["token_logprobs"], b["token_logprobs"], atol=1e-6, rtol=0)
                        self.assertAlmostEqual(a["score"], float(b["score"]), delta=1e-5)
                        self.assertAlmostEqual(a["normalized"], float(b["normalized"]), delta=1e-6)
                self.assertAlmostEqual(r["min_margin"], min(margins), delta=1e-6)
            self.assertEqual([x["tgt_ids"] for x in g["scores"]], tgts)
            for x, s, t in zip(g["scores"], srcs, tgts):
                self.assertAlmostEqual(x["score"], float(ms.score_pairs(m, s, t)["score"]), delta=1e-5)


if __name__ == "__main__":
    unittest.main(verbosity=2)
