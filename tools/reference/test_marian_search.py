#!/usr/bin/python3
"""Self-checks of the numpy Marian beam search / scorer reference (marian_search.py) and of the
goldens tests/data/golden/<fixture>.search.json (Marian, Hugging Face and CTranslate2 fixtures).

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
sys.path.insert(1, os.path.join(ROOT, "tools", "fixtures"))
import marian_ref as ref  # noqa: E402
import marian_search as ms  # noqa: E402

MODELS = os.path.join(ROOT, "tests", "data", "models")
GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
FIXTURES = ["marian-postnorm-swish-tiedall", "marian-prenorm-relu-untied",
            "marian-ymlids-gelu-tied", "marian-ffn3-learnedpos-legacyW"]
OTHER_FIXTURES = ["hf-marian-tied", "hf-marian-fp16-untied",
                  "ct2-onmt-relpos", "ct2-onmt-abspos", "ct2-marian"]
# expected per-model rules: (family, allow_unk, min_length, banned_ids)
RULES = {"hf-marian-tied": ("hf", True, 0, [250]), "hf-marian-fp16-untied": ("hf", True, 0, [200]),
         "ct2-onmt-relpos": ("ct2", True, 1, []), "ct2-onmt-abspos": ("ct2", True, 1, []),
         "ct2-marian": ("ct2", True, 1, [])}
F32 = np.float32

# ----------------------------------------------------------------------------------------------
# Fake scorer: fixed log-prob tables, eos = 0, unk = 1, V = 6
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

    def test_banned_ids(self):
        table = {(): [-5, -3, -0.01, -0.5, -2, -6]}
        sc = FakeScorer(table, lambda p: [-0.1, -3, -0.001, -0.2, -3, -3])
        self.assertEqual(core(sc, 1)[0]["ids"], [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
                                                 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
                                                 2, 2, 2, 2, 2, 2])       # cut at 3 * 10
        trace = []
        hyps = core(sc, 3, banned_ids=[2], trace=trace)
        for h in hyps:
            self.assertNotIn(2, h["ids"])
        # step 0: 3 (-0.5), 4 (-2), </s> (-5) selected; rejected: 5 (-6) -> margin 1, not 2 (-0.01)
        self.assertEqual([t for _, t, _ in trace[0]["selected"]], [3, 4, EOS])
        self.assertAlmostEqual(trace[0]["margin"], 1.0, places=6)
        # step 1 (width 2): [3 </s>] -0.6, [3 3] -0.7 (2 would be -0.501); then [3 3 </s>]
        self.assertEqual([h["ids"] for h in hyps], [[3, EOS], [3, 3, EOS], [EOS]])
        self.assertEqual(hyps[1]["score"], f32sum([-0.5, -0.2, -0.1]))
        # banned ids combine with <unk> suppression and with allow_unk
        trace = []
        core(sc, 3, banned_ids=[2, 5], allow_unk=True, trace=trace)
        self.assertEqual([t for _, t, _ in trace[0]["selected"]], [3, 4, UNK])
        # the defaults ban nothing: same as before the parameter existed
        self.assertEqual(core(sc, 3), core(sc, 3, banned_ids=(), min_length=0))

    def test_min_length(self):
        # </s> is the best first token and afterwards the best token everywhere
        sc = FakeScorer({(): [-0.01, -9, -1.0, -1.5, -2.0, -9]}, lambda p: [-0.02, -9, -3, -3, -3, -3])
        h0 = core(sc, 2)
        self.assertEqual([h["ids"] for h in h0], [[EOS], [2, EOS]])
        trace = []
        h1 = core(sc, 2, min_length=1, trace=trace)
        self.assertEqual([h["ids"] for h in h1], [[2, EOS], [3, EOS]])
        self.assertEqual([t for _, t, _ in trace[0]["selected"]], [2, 3])
        self.assertAlmostEqual(trace[0]["margin"], 0.5, places=6)     # -1.5 vs -2.0, not vs </s>
        self.assertEqual([st["finished"] for st in trace], [0, 2])
        self.assertEqual(h1[0]["score"], F32(F32(-1.0) + F32(-0.02)))
        # min_length 3: </s> only from the 4th token on
        h3 = core(sc, 1, min_length=3)
        self.assertEqual(h3[0]["ids"], [2, 2, 2, EOS])
        # min_length longer than the length limit: every hypothesis is cut
        h9 = core(sc, 2, src_len=1, min_length=9)
        self.assertEqual([len(h["ids"]) for h in h9], [3, 3])
        self.assertNotIn(EOS, h9[0]["ids"] + h9[1]["ids"])
        # the ban depends on each hypothesis' own length (all live ones have the same length)
        self.assertEqual([h["ids"] for h in core(sc, 2, min_length=2)], [[2, 2, EOS], [2, 3, EOS]])


class TestPrefix(unittest.TestCase):
    """Target prefix (CTranslate2 target_prefix; marian_search.py TARGET PREFIX)."""

    def test_no_prefix_is_the_plain_search(self):
        sc = FakeScorer({(): [-5, -3, -0.01, -0.5, -2, -6]}, lambda p: [-0.1, -3, -0.001, -0.2, -3, -3])
        for beam in (1, 3):
            for kw in ({}, {"normalize": 1.0}, {"min_length": 2}):
                plain = core(sc, beam, **kw)
                self.assertEqual(core(sc, beam, prefix_ids=None, **kw), plain)
                self.assertEqual(core(sc, beam, prefix_ids=[], **kw), plain)
                for h in plain:
                    self.assertNotIn("prefix_length", h)

    def test_forced_tokens_and_score(self):
        table = {(): [-5, -0.7, -0.01, -2.5, -2, -6],          # the model wants 2; forced 3
                 (3,): [-4, -3.5, -0.3, -0.9, -1.1, -6],       # forced <unk> (suppressed otherwise)
                 (3, UNK): [-1.5, -6, -0.2, -0.8, -3, -9]}
        sc = FakeScorer(table, lambda p: [-0.05, -9, -3, -3.1, -3.2, -9])
        trace = []
        hyps = core(sc, 2, prefix_ids=[3, UNK], normalize=1.0, trace=trace)
        self.assertEqual([h["ids"] for h in hyps], [[3, UNK, 2, EOS], [3, UNK, 3, EOS]])
        for h in hyps:
            self.assertEqual(h["prefix_length"], 2)
            self.assertEqual(h["token_logprobs"][:2], [F32(0), F32(0)])
            self.assertEqual(h["prefix_logprobs"], [F32(-2.5), F32(-3.5)])
            # the prefix log-probs are not in the score; L counts prefix and </s>
            self.assertEqual(h["score"], f32sum(h["token_logprobs"][2:]))
            self.assertEqual(h["normalized"], ms.normalized_score(h["score"], 4, 1.0))
        self.assertEqual(hyps[0]["score"], F32(F32(-0.2) + F32(-0.05)))
        # forced steps: one hypothesis, no top-k; then the full beam width from one row
        self.assertEqual([st.get("forced", False) for st in trace], [True, True, False, False])
        self.assertEqual([st["width"] for st in trace], [1, 1, 2, 2])
        self.assertEqual([st["margin"] for st in trace[:2]], [None, None])
        self.assertEqual([h for h, _, _ in trace[2]["selected"]], [0, 0])
        self.assertEqual(trace[2]["selected"][0][2], F32(-0.2))
        # every scorer call extends the prefix
        self.assertTrue(all(c[:2] == (3, UNK) for c in sc.calls if len(c) >= 2))
        self.assertNotIn((2,), sc.calls)

    def test_forced_eos_and_banned_tokens_do_not_stop(self):
        sc = FakeScorer({}, lambda p: [-0.05, -9, -1, -1.1, -1.2, -9])
        hyps = core(sc, 1, prefix_ids=[EOS, 4, 5], banned_ids=[4, 5], min_length=2)
        self.assertEqual(hyps[0]["ids"], [EOS, 4, 5, EOS])
        self.assertEqual(hyps[0]["score"], F32(-0.05))

    def test_eos_only_as_best_after_prefix(self):
        table = {(2,): [-0.6, -9, -0.2, -0.7, -0.9, -9]}           # </s> 2nd best after [2]
        sc = FakeScorer(table, lambda p: [-0.01, -9, -3, -3, -3, -3])
        trace = []
        hyps = core(sc, 3, prefix_ids=[2], trace=trace)
        self.assertEqual([t for _, t, _ in trace[1]["selected"]], [2, 3, 4])
        self.assertEqual(trace[1]["finished"], 0)
        # margin: the last selected (-0.9) vs the first rejected: not </s> (-0.6, excluded), -9
        self.assertAlmostEqual(trace[1]["margin"], 8.1, places=5)
        self.assertEqual(sorted(len(h["ids"]) for h in hyps), [3, 3, 3])
        # without the rule [2 </s>] finishes at the first free step
        off = core(sc, 3, prefix_ids=[2], prefix_eos_rule=False)
        self.assertIn([2, EOS], [h["ids"] for h in off])
        # only at that step: later </s> picks are normal, and without a prefix nothing changes
        self.assertEqual(core(FakeScorer({(): table[(2,)]}, sc.default), 3),
                         core(FakeScorer({(): table[(2,)]}, sc.default), 3, prefix_eos_rule=False))
        # </s> as the best candidate is selected (and finishes) normally
        sc2 = FakeScorer({(2,): [-0.1, -9, -0.2, -0.7, -0.9, -9]}, sc.default)
        trace = []
        hyps = core(sc2, 3, prefix_ids=[2], trace=trace)
        self.assertEqual([t for _, t, _ in trace[1]["selected"]], [EOS, 2, 3])
        self.assertEqual(hyps[0]["ids"], [2, EOS])
        self.assertEqual(hyps[0]["score"], F32(-0.1))

    def test_min_length_counts_the_prefix(self):
        sc = FakeScorer({}, lambda p: [-0.01, -9, -1, -2, -3, -9])
        self.assertEqual(core(sc, 1, min_length=1)[0]["ids"], [2, EOS])
        self.assertEqual(core(sc, 1, min_length=1, prefix_ids=[3])[0]["ids"], [3, EOS])
        self.assertEqual(core(sc, 1, min_length=3, prefix_ids=[3])[0]["ids"], [3, 2, 2, EOS])

    def test_length_limit_counts_the_prefix(self):
        dflt = lambda p: [-10, -10, -0.1, -0.2, -0.3, -0.4]          # never </s>
        # src_len 1 -> at most 3 tokens
        hyps = core(FakeScorer({}, dflt), 2, src_len=1, prefix_ids=[4, 5])
        self.assertEqual([h["ids"] for h in hyps], [[4, 5, 2], [4, 5, 3]])
        for n in (3, 4):
            trace = []
            hyps = core(FakeScorer({}, dflt), 2, src_len=1, prefix_ids=[4, 5, 3, 2][:n], trace=trace)
            self.assertEqual([h["ids"] for h in hyps], [[4, 5, 3]])      # cut inside the prefix
            self.assertEqual(hyps[0]["score"], F32(0))
            self.assertEqual(hyps[0]["prefix_length"], 3)
            self.assertEqual(len(hyps[0]["prefix_logprobs"]), 3)
            self.assertTrue(trace[-1]["cut"] and trace[-1]["forced"])

    def test_empty_source_wins(self):
        sc = FakeScorer({}, lambda p: [-10, -10, 0, 0, 0, 0])
        hyps = core(sc, 2, src_len=1, empty_source=True, prefix_ids=[3])
        self.assertEqual([h["ids"] for h in hyps], [[EOS]] * 2)


# ----------------------------------------------------------------------------------------------
# Word alignment helpers (marian_search.py WORD ALIGNMENT)
# ----------------------------------------------------------------------------------------------
class TestAlignmentHelpers(unittest.TestCase):
    rows = [np.array(r, dtype=F32) for r in ([0.1, 0.6, 0.3], [0.4, 0.4, 0.2], [0.2, 0.2, 0.6],
                                             [0.05, 0.25, 0.7])]

    def test_hard(self):
        # argmax per target row, ties -> first source position; sorted by (s, t)
        self.assertEqual(ms.hard_alignment(self.rows), [(0, 1), (1, 0), (2, 2), (2, 3)])
        self.assertEqual(ms.hard_alignment_text(ms.hard_alignment(self.rows)), "0-1 1-0 2-2 2-3")
        # threshold: strictly greater (0.2 itself is out), in float32
        self.assertEqual(ms.hard_alignment(self.rows, 0.2),
                         [(0, 1), (1, 0), (1, 1), (1, 3), (2, 0), (2, 2), (2, 3)])
        self.assertEqual(ms.hard_alignment(self.rows, 0.5), [(1, 0), (2, 2), (2, 3)])

    def test_text(self):
        self.assertEqual(ms.alignment_text(self.rows, "hard"), "0-1 1-0 2-2 2-3")
        self.assertEqual(ms.alignment_text(self.rows, "1"), "0-1 1-0 2-2 2-3")
        self.assertEqual(ms.alignment_text(self.rows, "0.5"), "1-0 2-2 2-3")
        self.assertEqual(ms.alignment_text(self.rows[:2], "soft"), "0.1,0.6,0.3 0.4,0.4,0.2")
        self.assertEqual(ms.soft_alignment_text([np.array([1 / 3, 2e-7, 1.0], dtype=F32)]),
                         "0.333333,2e-07,1")
        with self.assertRaises(ValueError):
            ms.alignment_text(self.rows, "bogus")

    def test_margins(self):
        m = ms.argmax_margins(self.rows)
        self.assertEqual(m[1], 0.0)
        self.assertAlmostEqual(m[0], 0.3, places=6)
        self.assertAlmostEqual(ms.threshold_distance(self.rows, 0.2), 0.0, places=7)


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


# ----------------------------------------------------------------------------------------------
# Hugging Face MarianMT and CTranslate2 fixtures: the same search on hf_ref / onmt_ref
# ----------------------------------------------------------------------------------------------
def ct2_spm(name):
    if name == "ct2-marian":   # no .spm in the folder (size budget); the Marian fixture's
        d = os.path.join(MODELS, "marian-postnorm-swish-tiedall")
        return dict(source_spm=os.path.join(d, "source.spm"), target_spm=os.path.join(d, "target.spm"))
    return {}


def other_runs(allow_unk):
    return {(b, n, 0.0, allow_unk) for b in (1, 4, 6) for n in (0.0, 1.0)} | \
           {(4, 1.0, 0.5, allow_unk), (4, 0.0, 0.0, not allow_unk)}


class OtherFixtures(unittest.TestCase):
    cache = {}

    def setUp(self):
        for name in OTHER_FIXTURES:
            if not os.path.isdir(os.path.join(MODELS, name)):
                self.skipTest("fixtures not generated")

    def fixture(self, name):
        if name not in self.cache:
            fam = ms.FAMILIES[ms.detect_family(os.path.join(MODELS, name))]
            m = fam.load_model(os.path.join(MODELS, name), **ct2_spm(name))
            z = np.load(os.path.join(GOLDEN, name + ".npz"))
            srcs = [[int(x) for x in z["src_ids"][b, :z["src_lengths"][b]]] for b in range(len(z["src_lengths"]))]
            tgts = [[int(x) for x in z["tgt_ids"][b, :z["tgt_lengths"][b]]] for b in range(len(z["tgt_lengths"]))]
            scorers = [ms.ModelScorer(m, s) for s in srcs]
            self.cache[name] = (fam, m, srcs, tgts, scorers, z)
        return self.cache[name]

    def test_family_and_rules(self):
        for name in OTHER_FIXTURES:
            fam, m, _, _, scs, _ = self.fixture(name)
            family, allow_unk, min_length, banned = RULES[name]
            self.assertEqual(fam.name, family)
            self.assertIs(ms.family_of(m), fam)
            self.assertIs(scs[0].family, fam)
            self.assertEqual(ms.search_rules(m), {"allow_unk": allow_unk, "min_length": min_length,
                                                  "banned_ids": banned})
        self.assertEqual(ms.search_rules(ref.load_model(os.path.join(MODELS, FIXTURES[0]))),
                         {"allow_unk": False, "min_length": 0, "banned_ids": []})

    def test_beam1_equals_greedy(self):
        """Beam 1 with the model's rules = the reference's greedy = the npz greedy_ids; with the
        rule changed, = that reference's greedy with the same change."""
        for name in OTHER_FIXTURES:
            fam, m, srcs, _, scs, z = self.fixture(name)
            for b, (s, sc) in enumerate(zip(srcs, scs)):
                hyps = ms.beam_search(m, s, 1, scorer=sc)
                self.assertEqual(len(hyps), 1)
                g, steps = fam.ref.greedy(m, s)
                self.assertEqual(hyps[0]["ids"], g, (name, b))
                self.assertEqual(g, [int(x) for x in z["greedy_ids"][b] if x >= 0])
                lp = [fam.ref.log_softmax(steps[i])[t] for i, t in enumerate(g)]
                self.assertEqual(hyps[0]["token_logprobs"], lp)
                # <unk> suppressed (the Marian rule as a variant)
                hyps = ms.beam_search(m, s, 1, allow_unk=False, scorer=sc)
                g2, _ = fam.ref.greedy(m, s, suppress=(m.unk_id,))
                self.assertEqual(hyps[0]["ids"], g2, (name, b))
                if fam.name == "ct2":       # without min_length: the raw argmax may be </s> at once
                    hyps = ms.beam_search(m, s, 1, min_length=0, scorer=sc)
                    g3, _ = fam.ref.greedy(m, s, min_length=0)
                    self.assertEqual(hyps[0]["ids"], g3, (name, b))

    def test_min_length_matters(self):
        # ct2-onmt-abspos is tuned so that the raw step-0 argmax is </s> for every source
        fam, m, srcs, _, scs, _ = self.fixture("ct2-onmt-abspos")
        for s, sc in zip(srcs, scs):
            self.assertEqual(ms.beam_search(m, s, 1, min_length=0, scorer=sc)[0]["ids"], [m.eos_id])
            for beam in (1, 4):
                for h in ms.beam_search(m, s, beam, scorer=sc):
                    self.assertGreater(len(h["ids"]), 1)

    def test_banned_ids_on_a_model(self):
        # The HF pad ban never decides anything in these goldens (pad ranks >= 80th at every
        # visited prefix), so check the mechanism itself: banning the greedy first token gives
        # the runner-up instead, and nothing else changes at step 0.
        fam, m, srcs, _, scs, _ = self.fixture("hf-marian-tied")
        for s, sc in zip(srcs, scs):
            first = ms.beam_search(m, s, 1, scorer=sc)[0]["ids"][0]
            lp = sc(()).copy()
            lp[[m.pad_id, first]] = -np.inf
            h = ms.beam_search(m, s, 1, banned_ids=[m.pad_id, first], scorer=sc)[0]
            self.assertEqual(h["ids"][0], int(np.argmax(lp)))
            self.assertEqual(ms.beam_search(m, s, 4, banned_ids=[], scorer=sc),
                             ms.beam_search(m, s, 4, scorer=sc))

    def check_run(self, m, s, sc, beam, normalize=0.0, wp=0.0, allow_unk=None):
        rules = ms.search_rules(m)
        allow_unk = rules["allow_unk"] if allow_unk is None else allow_unk
        trace = []
        hyps = ms.beam_search(m, s, beam, normalize=normalize, word_penalty=wp, allow_unk=allow_unk,
                              trace=trace, scorer=sc)
        max_len = ms.max_target_length(len(s))
        self.assertEqual(max_len, 3 * len(s))
        self.assertEqual(len(hyps), beam)
        nr = [float(h["normalized"]) for h in hyps]
        self.assertEqual(nr, sorted(nr, reverse=True))
        self.assertEqual(len({tuple(h["ids"]) for h in hyps}), beam)
        for h in hyps:
            ids = h["ids"]
            self.assertLessEqual(len(ids), max_len)
            self.assertNotIn(m.eos_id, ids[:-1])
            self.assertNotIn(m.eos_id, ids[:rules["min_length"]])
            for b in rules["banned_ids"]:
                self.assertNotIn(b, ids)
            if ids[-1] != m.eos_id:
                self.assertEqual(len(ids), max_len)
            if not allow_unk:
                self.assertNotIn(m.unk_id, ids)
            self.assertEqual(h["score"], f32sum(h["token_logprobs"]))
            self.assertEqual(h["normalized"], ms.normalized_score(h["score"], len(ids), normalize, wp))
            self.assertEqual(h["token_logprobs"][0], sc(())[ids[0]])
        widths = [st["width"] for st in trace]
        self.assertEqual(widths[0], beam)
        for a, b in zip(trace, trace[1:]):
            self.assertEqual(b["width"], a["width"] - a["finished"])
        self.assertTrue(trace[-1]["cut"] or trace[-1]["width"] == trace[-1]["finished"])
        return hyps, trace

    def test_search_invariants(self):
        for name in OTHER_FIXTURES:
            _, m, srcs, _, scs, _ = self.fixture(name)
            for s, sc in zip(srcs, scs):
                for beam in (1, 2, 4, 6):
                    self.check_run(m, s, sc, beam)
                self.check_run(m, s, sc, 4, normalize=1.0, wp=0.5)
                self.check_run(m, s, sc, 4, allow_unk=False)

    def test_score_pairs(self):
        for name in OTHER_FIXTURES:
            fam, m, srcs, tgts, scs, z = self.fixture(name)
            for b, (s, t, sc) in enumerate(zip(srcs, tgts, scs)):
                r = ms.score_pairs(m, s, t)
                g = z["forward_all_logprobs"][b, np.arange(len(t)), t]
                np.testing.assert_allclose(r["token_logprobs"], g, atol=1e-5, rtol=0)
                self.assertEqual(r["score"], f32sum(r["token_logprobs"]))
                for h in ms.beam_search(m, s, 4, scorer=sc):
                    r2 = ms.score_pairs(m, s, h["ids"])
                    np.testing.assert_allclose(r2["token_logprobs"], h["token_logprobs"], atol=1e-4, rtol=0)
                    self.assertAlmostEqual(float(r2["score"]), float(h["score"]), delta=1e-3)

    def test_goldens_reproduce(self):
        for name in OTHER_FIXTURES:
            path = os.path.join(GOLDEN, name + ".search.json")
            if not os.path.exists(path):
                self.skipTest("no search goldens")
            _, m, srcs, tgts, scs, _ = self.fixture(name)
            _, allow_unk, min_length, banned = RULES[name]
            with open(path, encoding="ascii") as fh:
                g = json.load(fh)
            self.assertEqual((g["fixture"], g["vocab_size"], g["eos_id"], g["unk_id"]),
                             (name, m.V, m.eos_id, m.unk_id))
            self.assertEqual([x["src_ids"] for x in g["sentences"]], srcs)
            self.assertEqual([x["max_length"] for x in g["sentences"]], [3 * len(s) for s in srcs])
            runs = {(r["beam_size"], r["normalize"], r["word_penalty"], r["allow_unk"]) for r in g["runs"]}
            self.assertEqual(runs, other_runs(allow_unk))
            for r in g["runs"]:
                self.assertEqual((r["min_length"], r["banned_ids"]), (min_length, banned))
                self.assertEqual(len(r["results"]), len(srcs))
                margins = []
                for s, sc, res in zip(srcs, scs, r["results"]):
                    trace = []
                    hyps = ms.beam_search(m, s, r["beam_size"], normalize=r["normalize"],
                                          word_penalty=r["word_penalty"], allow_unk=r["allow_unk"],
                                          min_length=r["min_length"], banned_ids=r["banned_ids"],
                                          trace=trace, scorer=sc)
                    margins.append(min(st["margin"] for st in trace if st["margin"] is not None))
                    self.assertEqual([h["ids"] for h in res], [h["ids"] for h in hyps])
                    for a, b in zip(res, hyps):
                        self.assertEqual(a["token_logprobs"], [float(x) for x in b["token_logprobs"]])
                        self.assertEqual(a["score"], float(b["score"]))
                        self.assertEqual(a["normalized"], float(b["normalized"]))
                self.assertEqual(r["min_margin"], min(margins))
            self.assertEqual([x["tgt_ids"] for x in g["scores"]], tgts)
            for x, s, t in zip(g["scores"], srcs, tgts):
                r = ms.score_pairs(m, s, t)
                self.assertEqual(x["score"], float(r["score"]))
                self.assertEqual(x["token_logprobs"], [float(v) for v in r["token_logprobs"]])



# ----------------------------------------------------------------------------------------------
# Target prefix on real fixtures + tests/data/golden/<fixture>.prefix.json
# ----------------------------------------------------------------------------------------------
PREFIX_FIXTURES = ["marian-postnorm-swish-tiedall", "ct2-onmt-relpos"]


class PrefixFixtures(unittest.TestCase):
    cache = {}

    def setUp(self):
        for name in PREFIX_FIXTURES:
            if not os.path.isdir(os.path.join(MODELS, name)):
                self.skipTest("fixtures not generated")

    def fixture(self, name):
        if name not in self.cache:
            fam = ms.FAMILIES[ms.detect_family(os.path.join(MODELS, name))]
            m = fam.load_model(os.path.join(MODELS, name), **ct2_spm(name))
            z = np.load(os.path.join(GOLDEN, name + ".npz"))
            srcs = [[int(x) for x in z["src_ids"][b, :z["src_lengths"][b]]] for b in range(len(z["src_lengths"]))]
            self.cache[name] = (m, srcs, [ms.ModelScorer(m, s) for s in srcs])
        return self.cache[name]

    def test_model_choice_prefix_keeps_the_greedy_output(self):
        for name in PREFIX_FIXTURES:
            m, srcs, scs = self.fixture(name)
            for s, sc in zip(srcs, scs):
                g = ms.beam_search(m, s, 1, scorer=sc)[0]
                for k in (1, 2, 3):
                    if k >= len(g["ids"]):      # a forced </s> would not end the search
                        continue
                    h = ms.beam_search(m, s, 1, scorer=sc, prefix_ids=g["ids"][:k])[0]
                    self.assertEqual(h["ids"], g["ids"], (name, k))
                    self.assertEqual(h["prefix_logprobs"], g["token_logprobs"][:k])
                    self.assertEqual(h["token_logprobs"], [F32(0)] * k + g["token_logprobs"][k:])
                    self.assertEqual(h["score"], f32sum(g["token_logprobs"][k:]))

    def test_beam_with_prefix(self):
        for name in PREFIX_FIXTURES:
            m, srcs, scs = self.fixture(name)
            for s, sc in zip(srcs[:2], scs[:2]):
                first = ms.beam_search(m, s, 1, scorer=sc)[0]["ids"][0]
                other = next(t for t in (7, 8, 9) if t != first)
                for prefix in ([other], [first, other, m.unk_id]):
                    trace = []
                    hyps = ms.beam_search(m, s, 4, normalize=1.0, scorer=sc, prefix_ids=prefix, trace=trace)
                    P = len(prefix)
                    self.assertEqual(len(hyps), 4)
                    self.assertEqual([st["width"] for st in trace[:P + 1]], [1] * P + [4])
                    for h in hyps:
                        self.assertEqual(h["ids"][:P], prefix)
                        self.assertEqual(h["score"], f32sum(h["token_logprobs"][P:]))
                        self.assertEqual(h["normalized"], ms.normalized_score(h["score"], len(h["ids"]), 1.0))
                        if not ms.search_rules(m)["allow_unk"]:
                            self.assertNotIn(m.unk_id, h["ids"][P:])
                    # the first free step expands only the prefix: its log-probs + 0
                    lp = sc(tuple(prefix))
                    for _, tok, score in trace[P]["selected"]:
                        self.assertEqual(score, lp[tok])

    def test_prefix_goldens_reproduce(self):
        for name in PREFIX_FIXTURES:
            path = os.path.join(GOLDEN, name + ".prefix.json")
            if not os.path.exists(path):
                self.skipTest("prefix goldens not generated")
            m, srcs, scs = self.fixture(name)
            with open(path) as fh:
                g = json.load(fh)
            rules = ms.search_rules(m)
            self.assertEqual((g["allow_unk"], g["min_length"], g["banned_ids"]),
                             (rules["allow_unk"], rules["min_length"], rules["banned_ids"]))
            self.assertEqual([x["src_ids"] for x in g["sentences"]], srcs)
            self.assertGreaterEqual(len(g["runs"]), 12)
            self.assertTrue(any(r["eos_rule_changes_result"] for r in g["runs"]))
            self.assertTrue(any(not r["prefix_is_model_choice"] for r in g["runs"]))
            for r in g["runs"]:
                i = r["sentence"]
                trace = []
                hyps = ms.beam_search(m, srcs[i], r["beam_size"], normalize=r["normalize"],
                                      word_penalty=r["word_penalty"], prefix_ids=r["prefix_ids"],
                                      scorer=scs[i], trace=trace)
                self.assertGreaterEqual(r["min_margin"], 1e-5)
                self.assertEqual(r["min_margin"], min(st["margin"] for st in trace if st["margin"] is not None))
                self.assertEqual(len(r["nbest"]), len(hyps))
                for a, b in zip(r["nbest"], hyps):
                    self.assertEqual(a["ids"], b["ids"])
                    self.assertEqual(a["ids"][:len(r["prefix_ids"])], r["prefix_ids"])
                    self.assertEqual(a["prefix_length"], len(r["prefix_ids"]))
                    self.assertEqual(a["token_logprobs"], [float(x) for x in b["token_logprobs"]])
                    self.assertEqual(a["prefix_logprobs"], [float(x) for x in b["prefix_logprobs"]])
                    self.assertEqual(a["score"], float(b["score"]))
                    self.assertEqual(a["normalized"], float(b["normalized"]))


# ----------------------------------------------------------------------------------------------
# Word alignment on real fixtures + tests/data/golden/<fixture>.alignment.json
# ----------------------------------------------------------------------------------------------
ALIGN_FIXTURES = {"marian-postnorm-swish-tiedall": 1, "marian-align-layer1": 0}   # -> layer index


class AlignmentFixtures(unittest.TestCase):
    cache = {}

    def setUp(self):
        for name in ALIGN_FIXTURES:
            if not os.path.isdir(os.path.join(MODELS, name)):
                self.skipTest("fixtures not generated")

    def model(self, name):
        if name not in self.cache:
            self.cache[name] = ref.load_model(os.path.join(MODELS, name))
        return self.cache[name]

    def sources(self):
        z = np.load(os.path.join(GOLDEN, "marian-postnorm-swish-tiedall.npz"))
        return ([[int(x) for x in z["src_ids"][b, :z["src_lengths"][b]]] for b in range(len(z["src_lengths"]))],
                [[int(x) for x in z["tgt_ids"][b, :z["tgt_lengths"][b]]] for b in range(len(z["tgt_lengths"]))])

    def test_alignment_layer(self):
        for name, layer in ALIGN_FIXTURES.items():
            self.assertEqual(ref.alignment_layer(self.model(name)), layer)
        m = self.model("marian-postnorm-swish-tiedall")
        cfg = m.cfg
        try:
            for v, want in (("last", 1), ("2", 1), (1, 0), (None, 1), ("0", None), ("3", None), ("x", None)):
                m.cfg = dict(cfg, **{"transformer-guided-alignment-layer": v})
                if want is None:
                    with self.assertRaises(ValueError):
                        ref.alignment_layer(m)
                else:
                    self.assertEqual(ref.alignment_layer(m), want, v)
        finally:
            m.cfg = cfg

    def test_align_fixture_is_a_copy(self):
        a, b = (self.model(n) for n in ALIGN_FIXTURES)
        self.assertEqual(sorted(a.w), sorted(b.w))
        for k in a.w:
            self.assertTrue(np.array_equal(a.w[k], b.w[k]), k)
        self.assertEqual({k: v for k, v in a.cfg.items() if k != "transformer-guided-alignment-layer"},
                         {k: v for k, v in b.cfg.items() if k != "transformer-guided-alignment-layer"})
        self.assertEqual((a.cfg["transformer-guided-alignment-layer"],
                          str(b.cfg["transformer-guided-alignment-layer"])), ("last", "1"))

    def test_reference_unchanged_and_consistent(self):
        m = self.model("marian-postnorm-swish-tiedall")
        srcs, tgts = self.sources()
        src_ids, src_len = ref.pad_batch(srcs)
        tgt_ids, _ = ref.pad_batch(tgts)
        enc = ref.encoder(m, src_ids, src_len)
        plain = ref.decoder_forward_all(m, enc, src_len, tgt_ids)
        for layer in (0, 1):
            for head in (0, 3):
                logits, probs = ref.decoder_forward_all(m, enc, src_len, tgt_ids, alignment=(layer, head))
                self.assertTrue(np.array_equal(logits, plain))
                self.assertEqual(probs.shape, tgt_ids.shape + (src_ids.shape[1],))
                for b, n in enumerate(src_len):
                    self.assertLess(float(np.abs(probs[b, :, :n].sum(-1) - 1).max()), 1e-5)
                    self.assertLess(float(probs[b, :, n:].max(initial=0)), 1e-30)   # padding
        # step-wise rows: same logits as without, rows = teacher-forced rows of the same prefix
        s, t = srcs[1], tgts[1]
        sc_plain, sc = ms.ModelScorer(m, s), ms.ModelScorer(m, s, alignment=True)
        forced = ms.score_pairs(m, s, t, alignment=True)
        self.assertEqual(forced["score"], ms.score_pairs(m, s, t)["score"])
        self.assertEqual(len(forced["alignment"]), len(t))
        for i in range(len(t)):
            self.assertTrue(np.array_equal(sc(t[:i]), sc_plain(t[:i])))
            row = sc.alignment(t[:i])
            self.assertEqual(row.shape, (len(s),))
            self.assertLess(float(np.abs(row - forced["alignment"][i]).max()), 1e-6)
        # the layer matters
        other = ms.score_pairs(m, s, t, alignment=(0, 0))["alignment"]
        self.assertGreater(float(np.abs(np.stack(other) - np.stack(forced["alignment"])).max()), 1e-3)

    def test_rows_follow_back_pointers(self):
        m = self.model("marian-align-layer1")
        srcs, _ = self.sources()
        s = srcs[0]
        sc = ms.ModelScorer(m, s, alignment=True)
        for beam, prefix in ((1, None), (4, None), (4, [7, 9])):
            hyps = ms.beam_search(m, s, beam, normalize=1.0, scorer=sc, alignment=True, prefix_ids=prefix)
            plain = ms.beam_search(m, s, beam, normalize=1.0, prefix_ids=prefix)
            self.assertEqual([h["ids"] for h in hyps], [h["ids"] for h in plain])
            for h in hyps:
                self.assertEqual(len(h["alignment"]), len(h["ids"]))
                for i, row in enumerate(h["alignment"]):
                    self.assertTrue(np.array_equal(row, sc.alignment(h["ids"][:i])))
        with self.assertRaises(NotImplementedError):
            ms.ModelScorer(ms.FAMILIES["ct2"].load_model(os.path.join(MODELS, "ct2-onmt-relpos")),
                           [5, 6], alignment=True)

    def test_alignment_goldens_reproduce(self):
        import make_alignment_goldens as ag
        for name, layer in ALIGN_FIXTURES.items():
            path = os.path.join(GOLDEN, name + ".alignment.json")
            if not os.path.exists(path):
                self.skipTest("alignment goldens not generated")
            with open(path) as fh:
                g = json.load(fh)
            m = self.model(name)
            self.assertEqual((g["layer_index"], g["head"], g["threshold"]), (layer, 0, 0.2))
            self.assertEqual(g["alignment_layer"], str(m.cfg["transformer-guided-alignment-layer"]))
            for x in g["sentences"]:
                self.assertEqual(ref.encode_text(m, x["text"]), x["src_ids"])
            srcs = [x["src_ids"] for x in g["sentences"]]
            scs = [ms.ModelScorer(m, s, alignment=True) for s in srcs]
            self.assertEqual([(r["beam_size"], r["normalize"]) for r in g["runs"]], ag.RUNS)
            ends = 0
            for r in g["runs"]:
                self.assertGreaterEqual(r["min_argmax_margin"], 1e-4)
                self.assertGreaterEqual(r["min_threshold_distance"], 1e-4)
                for s, sc, res in zip(srcs, scs, r["results"]):
                    hyps = ms.beam_search(m, s, r["beam_size"], normalize=r["normalize"], scorer=sc,
                                          alignment=True)
                    self.assertEqual([h["ids"] for h in res], [h["ids"] for h in hyps])
                    for k, (a, h) in enumerate(zip(res, hyps)):
                        ends += h["ids"][-1] == m.eos_id
                        self.assertEqual(a["score"], float(h["score"]))
                        self.check_alignment(a, h["alignment"], soft_text=(k == 0))
            self.assertGreater(ends, 0)
            kinds = set()
            for x in g["scores"]:
                kinds.add(x["tgt_kind"])
                s = srcs[x["sentence"]]
                if x["tgt_kind"] == "corpus":
                    self.assertEqual(ref.encode_text(m, x["tgt_text"], "target"), x["tgt_ids"])
                else:
                    best = g["runs"][0]["results"][x["sentence"]][0]
                    self.assertEqual(x["tgt_ids"], best["ids"])
                    self.assertLess(x["max_abs_diff_to_search"], 1e-6)
                r = ms.score_pairs(m, s, x["tgt_ids"], alignment=True)
                self.assertEqual(x["score"], float(r["score"]))
                self.check_alignment(x, r["alignment"])
                self.assertGreaterEqual(min(x["argmax_margins"]), 1e-4)
            self.assertEqual(kinds, {"corpus", "beam1"})

    def check_alignment(self, a, rows, soft_text=True):
        self.assertEqual(a["soft"], [[float(v) for v in r] for r in rows])
        hard = ms.hard_alignment(rows)
        self.assertEqual([tuple(p) for p in a["hard"]], hard)
        self.assertEqual(len(hard), len(rows))
        self.assertEqual(a["hard_text"], ms.alignment_text(rows, "hard"))
        self.assertEqual(a["hard_text"], ms.alignment_text(rows, "1"))
        self.assertEqual([tuple(p) for p in a["thresholded"]], ms.hard_alignment(rows, 0.2))
        self.assertEqual(a["thresholded_text"], ms.alignment_text(rows, "0.2"))
        if soft_text:
            self.assertEqual(a["soft_text"], ms.alignment_text(rows, "soft"))
        else:
            self.assertNotIn("soft_text", a)
        self.assertEqual(a["argmax_margins"], ms.argmax_margins(rows))

if __name__ == "__main__":
    unittest.main(verbosity=2)
