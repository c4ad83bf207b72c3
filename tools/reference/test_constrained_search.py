#!/usr/bin/python3
"""Self-checks of the constrained beam search reference (constrained_search.py, issue 19 part 5)
and of the goldens tests/data/golden/<fixture>.glossary.json and glossary-matching.json.

    /usr/bin/python3 -m unittest discover -s tools/reference -p 'test_*.py'
    /usr/bin/python3 tools/reference/test_constrained_search.py
"""

import json
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(ROOT, "tools", "fixtures"))
import marian_search as ms  # noqa: E402
import constrained_search as cs  # noqa: E402

GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
F32 = np.float32
EOS, UNK, V = 0, 1, 8
LOWEST = ms.LOWEST


class FakeScorer:
    """table: {prefix tuple: [V log-probs]}; default(prefix) -> [V] for the other prefixes."""

    def __init__(self, table, default):
        self.table = {k: np.asarray(v, dtype=F32) for k, v in table.items()}
        self.default = default

    def __call__(self, prefix):
        p = tuple(prefix)
        if p in self.table:
            return self.table[p]
        return np.asarray(self.default(p), dtype=F32)


def run(scorer, beam, constraints=None, src_len=10, trace=None, **kw):
    return cs.constrained_beam_search(scorer, src_len, V, EOS, UNK, beam, constraints=constraints,
                                      trace=trace, **kw)


def contains(ids, phrase):
    n = len(phrase)
    return any(list(ids[i:i + n]) == list(phrase) for i in range(len(ids) - n + 1))


def pseudo_random_scorer(seed, eos_bias=0.0):
    """Deterministic log-prob rows per prefix (hash of the prefix), normalised in float64."""
    def row(prefix):
        rng = np.random.default_rng([seed] + [t + 1 for t in prefix])
        x = rng.normal(size=V) * 2.0
        x[EOS] += eos_bias + 0.3 * len(prefix)
        x = x - np.log(np.sum(np.exp(x - x.max()))) - x.max()
        return x.astype(F32)
    return FakeScorer({}, row)


class TestBankSizes(unittest.TestCase):
    def test_even_split_remainder_to_top_bank(self):
        self.assertEqual(cs.bank_sizes(4, 1, [9, 9]), [2, 2])
        self.assertEqual(cs.bank_sizes(4, 2, [9, 9, 9]), [1, 1, 2])
        self.assertEqual(cs.bank_sizes(5, 2, [9, 9, 9]), [1, 1, 3])
        self.assertEqual(cs.bank_sizes(6, 3, [9, 9, 9, 9]), [1, 1, 1, 3])
        self.assertEqual(cs.bank_sizes(4, 0, [9]), [4])

    def test_short_banks_pass_slots_down(self):
        # C 5 > beam: base 0, all 4 slots start in bank 5 and cascade down to where candidates are
        self.assertEqual(cs.bank_sizes(4, 5, [10, 3, 0, 0, 0, 0]), [1, 3, 0, 0, 0, 0])
        self.assertEqual(cs.bank_sizes(4, 2, [1, 3, 0]), [1, 3, 0])
        self.assertEqual(cs.bank_sizes(4, 1, [5, 1]), [3, 1])

    def test_bank0_excess_goes_up_not_lost(self):
        # Sockeye would move bank 0's excess to bank C ((i-1) % num_banks) and lose it there
        self.assertEqual(cs.bank_sizes(4, 2, [0, 2, 2]), [0, 2, 2])
        self.assertEqual(cs.bank_sizes(4, 1, [1, 5]), [1, 3])
        self.assertEqual(cs.bank_sizes(6, 3, [1, 1, 1, 3]), [1, 1, 1, 3])
        for k in range(1, 9):
            for C in range(0, 5):
                rng = np.random.default_rng(k * 10 + C)
                for _ in range(20):
                    counts = [int(x) for x in rng.integers(0, 4, size=C + 1)]
                    counts[int(rng.integers(0, C + 1))] += k     # total >= k, as in the search
                    sz = cs.bank_sizes(k, C, counts)
                    self.assertEqual(sum(sz), k)
                    self.assertTrue(all(0 <= s <= c for s, c in zip(sz, counts)), (k, C, counts, sz))


class TestConstraintState(unittest.TestCase):
    def test_progress_and_reset(self):
        c = cs.Constraints([[3, 4], [5]])
        self.assertEqual(c.C, 3)
        s = c.start()
        self.assertEqual(c.allowed(s), [3, 5])
        s1 = c.advance(s, 3)
        self.assertEqual((c.bank(s1), c.allowed(s1)), (1, [4]))
        s2 = c.advance(s1, 6)                      # left midway: progress reset
        self.assertEqual((c.bank(s2), c.allowed(s2)), (0, [3, 5]))
        s3 = c.advance(s1, 5)                      # leaves [3 4] but meets [5] [not Sockeye]
        self.assertEqual((c.bank(s3), c.allowed(s3)), (1, [3]))
        s4 = c.advance(s1, 3)                      # restarts [3 4]
        self.assertEqual((c.bank(s4), c.allowed(s4)), (1, [4]))
        s5 = c.advance(c.advance(s4, 4), 5)
        self.assertEqual((c.bank(s5), c.allowed(s5)), (3, []))
        self.assertTrue(c.ended(s5))              # its last token completed a phrase
        self.assertEqual(c.advance(s5, 3), s5[:3] + (False,))  # met phrases stay met
        self.assertEqual(c.advance(s, EOS), s)

    def test_shared_first_token_list_order(self):
        c = cs.Constraints([[3, 4], [3, 5]])
        s = c.advance(c.start(), 3)
        self.assertEqual(c.allowed(s), [4])        # phrase 0 is the one in progress
        self.assertEqual(c.bank(c.advance(s, 5)), 0)   # [3 5] is not found after [3 ...] (limitation)
        s = c.advance(c.advance(s, 4), 3)
        self.assertEqual((c.bank(s), c.allowed(s)), (3, [5]))
        self.assertEqual(c.bank(c.advance(s, 5)), 4)

    def test_eos_in_constraint_refused(self):
        with self.assertRaises(AssertionError):
            cs.Constraints([[3, EOS]], EOS)


class TestSearch(unittest.TestCase):
    def test_no_constraints_equals_marian(self):
        tables = [
            ({(): [-9, -0.01, -1.0, -1.5, -2.0, -6, -7, -8],
              (2,): [-0.1, -9, -3, -3.2, -3.4, -3.6, -4, -4],
              (3,): [-4, -9, -0.3, -0.4, -5, -5, -5, -5]},
             lambda p: [-0.05, -9, -0.2, -0.2, -0.2, -0.2, -0.2, -0.2]),      # shrinking beam, ties
        ]
        scorers = [FakeScorer(t, d) for t, d in tables] + \
            [pseudo_random_scorer(s, b) for s in range(6) for b in (-3.0, 0.0)]
        for sc in scorers:
            for beam in (1, 2, 3, 4, 6):
                for norm, wp in ((0.0, 0.0), (1.0, 0.0), (0.6, 0.5)):
                    for constraints in (None, []):
                        for kw in ({}, {"allow_unk": True}, {"min_length": 2, "banned_ids": [5]}):
                            a = ms.beam_search_core(sc, 3, V, EOS, UNK, beam, normalize=norm,
                                                    word_penalty=wp, **kw)
                            b = run(sc, beam, constraints, src_len=3, normalize=norm, word_penalty=wp, **kw)
                            self.assertFalse(b["fallback"])
                            self.assertEqual(b["unmet"], [])
                            self.assertEqual(len(a), len(b["nbest"]))
                            for x, y in zip(a, b["nbest"]):
                                self.assertEqual(x["ids"], y["ids"])
                                self.assertEqual(x["score"], y["score"])
                                self.assertEqual(x["normalized"], y["normalized"])
                                self.assertEqual(x["token_logprobs"], y["token_logprobs"])

    def test_allocation_with_remainder(self):
        # step 0, one row: best tokens 2 > 3 > 6 > 7 > 4 > 5; constraints [4] and [5] (C 2).
        # beam 4: sizes [1, 1, 2]; bank 2 has no candidate -> its 2 slots go to bank 1 (3 > 2
        # candidates: 4 and 5) -> [1+1, 2, 0]: the two best unconstrained tokens + both constraints
        row = [-5, -9, -0.5, -0.7, -3.0, -3.5, -1.0, -1.2]
        sc = FakeScorer({(): row}, lambda p: [-0.1, -9, -4, -4, -4, -4, -4, -4])
        trace = []
        r = run(sc, 4, [[4], [5]], trace=trace)
        self.assertEqual(trace[0]["counts"], [4, 2, 0])       # (a) 2 3 6 7, (c) 4 5
        self.assertEqual(trace[0]["sizes"], [2, 2, 0])
        self.assertEqual([s[1] for s in trace[0]["selected"]], [2, 3, 4, 5])   # in score order
        self.assertEqual([s[3] for s in trace[0]["selected"]], [0, 0, 1, 1])
        # beam 3: sizes [1, 1, 1] -> bank 2 empty -> [1, 2, 0]
        trace = []
        run(sc, 3, [[4], [5]], trace=trace)
        self.assertEqual(trace[0]["sizes"], [1, 2, 0])
        self.assertEqual([s[1] for s in trace[0]["selected"]], [2, 4, 5])
        # beam 5, C 1 ([4]): sizes [2, 3] -> bank 1 has 1 candidate -> [4, 1]
        trace = []
        run(sc, 5, [[4]], trace=trace)
        self.assertEqual(trace[0]["sizes"], [4, 1])
        self.assertEqual([s[1] for s in trace[0]["selected"]], [2, 3, 6, 7, 4])

    def test_phrase_progress_reset_in_search(self):
        # the model likes 3 then 5 (not 4); constraint [3 4]: hypothesis [3 5] is back in bank 0
        table = {(): [-9, -9, -2, -0.1, -5, -5, -5, -5],
                 (3,): [-3, -9, -5, -5, -2.0, -0.1, -5, -5]}
        sc = FakeScorer(table, lambda p: [-0.5, -9, -3, -3, -3, -3, -3, -3] if 4 in p
                        else [-0.05, -9, -3, -1, -1.5, -3, -3, -3])
        trace = []
        r = run(sc, 2, [[3, 4]], trace=trace)
        banks = {(c[0], c[1]): c[3] for c in trace[1]["candidates"]}
        self.assertEqual(banks[(0, 5)], 0)               # [3 5]: left the phrase -> bank 0
        self.assertEqual(banks[(0, 4)], 2)               # [3 4]: phrase met
        self.assertEqual(banks[(1, 3)], 1)               # [2 3]: phrase started
        self.assertEqual(trace[1]["sizes"], [0, 1, 1])   # 2 slots to bank 2, one passed down
        self.assertEqual([c[:2] for c in trace[1]["selected"]], [(0, 4), (1, 3)])
        self.assertFalse(r["fallback"])
        for h in r["nbest"]:
            self.assertTrue(contains(h["ids"], [3, 4]), h["ids"])
            self.assertEqual(h["bank"], 2)
        # without the constraint the best is [3 5 </s>]
        plain = run(sc, 2)
        self.assertEqual(plain["nbest"][0]["ids"], [3, 5, EOS])

    def test_eos_blocked_until_all_met(self):
        # </s> is the model's best at every step; constraint [6] (the model's worst token)
        sc = FakeScorer({}, lambda p: [-0.01, -9, -5, -5, -5, -5, -8, -5])
        trace = []
        r = run(sc, 2, [[6]], trace=trace)
        self.assertFalse(r["fallback"])
        for st in trace:
            for (row, tok, score, bank) in st["selected"]:
                if tok == EOS:
                    self.assertEqual(bank, 1)
        best = r["nbest"][0]
        self.assertEqual(best["ids"], [6, EOS])
        self.assertEqual(best["score"], F32(F32(-8) + F32(-0.01)))
        plain = run(sc, 2)
        self.assertEqual(plain["nbest"][0]["ids"], [EOS])

    def test_whole_words(self):
        # pieces: </s> <unk> "\u2581T" "b" "." "\u2581x" "c" "\u2581y"; after the term [2] the model
        # prefers "b" (glued: "Tb"), then "c"; whole words take "." or a "\u2581" piece instead
        pieces = ["</s>", "<unk>", "\u2581T", "b", ".", "\u2581x", "c", "\u2581y"]
        cont = cs.word_continuations(pieces)
        self.assertEqual(cont, [3, 6])
        self.assertEqual([cs.continues_word(p) for p in ["\u00bb", "\u2026x", "\u00e9t", "", "<0x41>",
                                                         "-Datei", "\u2010x", ",", "\u2019s"]],
                         [False, False, True, False, False, True, True, False, False])

        def lp(p):
            if p and p[-1] == 2:
                return [-6, -9, -7, -0.1, -4, -3, -0.5, -5]
            return [-1, -9, -0.5, -3, -3, -3, -3, -3]
        sc = FakeScorer({}, lp)
        glued = run(sc, 2, [[2]])
        self.assertEqual(glued["nbest"][0]["ids"][:2], [2, 3])
        whole = run(sc, 2, [[2]], continuations=cont)
        for h in whole["nbest"]:
            i = h["ids"].index(2)
            self.assertNotIn(h["ids"][i + 1], cont, h["ids"])
        self.assertEqual(whole["nbest"][0]["ids"][:2], [2, 5])

    def test_fallback_at_length_limit(self):
        sc = FakeScorer({}, lambda p: [-0.5, -9, -1, -1.1, -1.2, -1.3, -1.4, -1.5])
        # src_len 1 -> at most 3 tokens; 4 constraint tokens cannot be met
        r = run(sc, 3, [[2, 3], [4, 5]], src_len=1)
        self.assertTrue(r["fallback"])
        self.assertEqual(r["nbest"], [])
        self.assertEqual(len(r["unmet"]), 3)
        for h in r["unmet"]:
            self.assertEqual(len(h["ids"]), 3)
            self.assertNotEqual(h["ids"][-1], EOS)
            self.assertFalse(h["constraints_met"])
        # 3 tokens fit: met exactly at the limit (length-cut hypotheses that meet all count)
        r = run(sc, 3, [[2, 3], [4]], src_len=1)
        self.assertFalse(r["fallback"])
        self.assertTrue(all(len(h["ids"]) == 3 and h["bank"] == 3 for h in r["nbest"]))
        # a suppressed <unk> in a phrase: never met -> fallback; allowed -> met
        self.assertTrue(run(sc, 2, [[UNK]], src_len=2)["fallback"])
        self.assertFalse(run(sc, 2, [[UNK]], src_len=2, allow_unk=True)["fallback"])
        self.assertTrue(run(sc, 2, [[5]], src_len=2, banned_ids=[5])["fallback"])
        # empty source (Marian: [</s>] forced) with constraints is a fallback
        r = run(sc, 2, [[5]], empty_source=True)
        self.assertTrue(r["fallback"])
        self.assertEqual([h["ids"] for h in r["unmet"]], [[EOS], [EOS]])

    def test_beam_size_hypotheses_and_constraints_hold(self):
        for seed in range(8):
            sc = pseudo_random_scorer(seed, 1.0)
            for beam in (1, 2, 4, 6):
                for cons in ([[2]], [[3, 4]], [[7], [5, 6]], [[2, 3, 4], [6], [5, 7]]):
                    trace = []
                    r = run(sc, beam, cons, src_len=4, trace=trace)
                    self.assertEqual(len(r["nbest"]) + len(r["unmet"]), beam)
                    for st in trace:
                        self.assertEqual(len(st["selected"]), st["width"])
                        self.assertEqual(sum(st["sizes"]), st["width"])
                    for h in r["nbest"]:
                        for p in cons:
                            self.assertTrue(contains(h["ids"], p), (seed, beam, cons, h["ids"]))
                        self.assertEqual(h["bank"], sum(len(p) for p in cons))
                    for h in r["unmet"]:
                        self.assertNotEqual(h["ids"][-1], EOS)


class TestGlossaryMatching(unittest.TestCase):
    TSV = "New York\tNueva York\nYork\tYork-town\n\n  \nnew\tnuevo\nyou\tusted\r\nyou\tusted\n"

    def test_parse(self):
        e = cs.parse_glossary(self.TSV)
        self.assertEqual(e[0], (("New", "York"), "Nueva York"))
        self.assertEqual(e[3], (("you",), "usted"))
        self.assertEqual(len(e), 5)
        for bad, line in (("a\tb\nc\n", 2), ("a\tb\tc", 1), ("\tx", 1), ("x\t ", 1)):
            with self.assertRaisesRegex(ValueError, "glossary line %d:" % line):
                cs.parse_glossary(bad)

    def test_match(self):
        e = cs.parse_glossary(self.TSV)
        self.assertEqual(cs.match_glossary(e, "in New York , new York"), ["Nueva York", "York-town", "nuevo"])
        self.assertEqual(cs.match_glossary(e, "in New York , new York", ignore_case=True),
                         ["Nueva York", "nuevo", "York-town"])
        self.assertEqual(cs.match_glossary(e, "NewYork Yorkshire New\u00a0York"), [])
        # ASCII punctuation ends a word: "York." holds the word "York".
        self.assertEqual(cs.match_glossary(e, "Yorkshire York."), ["York-town"])
        self.assertEqual(cs.match_glossary(e, "you and you"), ["usted", "usted"])
        enc = {"usted": [5, 6], "Nueva York": [7], "nuevo": [7], "York-town": []}.get
        self.assertEqual(cs.line_constraints(e, "you and you , new New York York", enc),
                         [[5, 6], [7]])

    def test_golden_matching(self):
        path = os.path.join(GOLDEN, "glossary-matching.json")
        with open(path, encoding="ascii") as fh:
            g = json.load(fh)
        e = cs.parse_glossary(g["tsv"])
        for c in g["cases"]:
            self.assertEqual(cs.match_glossary(e, c["line"], c["ignore_case"]), c["terms"], c["line"])
        for err in g["errors"]:
            with self.assertRaisesRegex(ValueError, "glossary line %d:" % err["line"]):
                cs.parse_glossary(err["tsv"])


class GlossaryFixtures(unittest.TestCase):
    """The goldens reproduce, every constraint is in every constrained hypothesis, and the
    no-constraint search is marian_search.beam_search on the real fixtures."""
    FIXTURES = ["marian-postnorm-swish-tiedall", "ct2-onmt-relpos"]

    def setUp(self):
        import make_search_goldens as sg
        self.sg = sg

    def test_no_constraints_equals_beam_search(self):
        for name in self.FIXTURES:
            fam, m = self.sg.load(name)
            z = np.load(os.path.join(GOLDEN, name + ".npz"))
            for b in range(z["src_ids"].shape[0]):
                s = [int(x) for x in z["src_ids"][b, :z["src_lengths"][b]]]
                sc = ms.ModelScorer(m, s, fam)
                for beam, norm in ((1, 0.0), (4, 0.0), (4, 1.0), (6, 0.0)):
                    a = ms.beam_search(m, s, beam, normalize=norm, scorer=sc)
                    r = cs.constrained_search(m, s, beam, [], normalize=norm, scorer=sc)
                    self.assertEqual([(h["ids"], h["score"], h["normalized"]) for h in a],
                                     [(h["ids"], h["score"], h["normalized"]) for h in r["nbest"]])

    def test_goldens_reproduce(self):
        import make_glossary_goldens as gg
        for name in self.FIXTURES:
            with open(os.path.join(GOLDEN, name + ".glossary.json"), encoding="ascii") as fh:
                g = json.load(fh)
            fam, m = self.sg.load(name)
            rules = ms.search_rules(m)
            enc = cs.target_encoder(m)
            entries = cs.parse_glossary(g["glossary"]["tsv"])
            for line in g["glossary"]["lines"]:
                text = g["sentences"][line["sentence"]]["source"]
                self.assertEqual(cs.match_glossary(entries, text), line["terms"])
                self.assertEqual(cs.line_constraints(entries, text, enc), line["constraints"])
            self.assertEqual(cs.word_continuations(gg.target_pieces(m)), g["word_continuations"])
            scorers = {}
            fallbacks = 0
            for run_ in g["runs"]:
                whole = g["word_continuations"] if run_["whole_words"] else None
                s = g["sentences"][run_["sentence"]]["src_ids"]
                sc = scorers.setdefault(run_["sentence"], ms.ModelScorer(m, s, fam))
                r = cs.constrained_search(m, s, run_["beam_size"], run_["constraints"],
                                          normalize=run_["normalize"], word_penalty=run_["word_penalty"],
                                          max_length_factor=g["max_length_factor"], scorer=sc,
                                          continuations=whole, **rules)
                core = r["constrained"]
                self.assertEqual(r["fallback"], run_["fallback"])
                self.assertEqual([gg.hyp_json(h) for h in core["nbest"]], run_["nbest"])
                self.assertEqual([gg.hyp_json(h) for h in core["unmet"]], run_["unmet"])
                self.assertEqual(len(run_["nbest"]) + len(run_["unmet"]), run_["beam_size"])
                if run_["fallback"]:
                    fallbacks += 1
                    self.assertEqual([gg.hyp_json(h) for h in r["nbest"]], run_["fallback_nbest"])
                else:
                    self.assertNotIn("fallback_nbest", run_)
                for h in run_["nbest"]:
                    for p in run_["constraints"]:
                        self.assertTrue(contains(h["ids"], p), (name, p, h["ids"]))
                self.assertGreaterEqual(run_["min_margin"], 1e-5)
            self.assertGreater(fallbacks, 0)


if __name__ == "__main__":
    unittest.main()
