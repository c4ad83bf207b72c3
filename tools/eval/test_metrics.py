#!/usr/bin/env python3
"""Tests for tools/eval/metrics.py.

Run from the repository root with either
    /usr/bin/python3 -m unittest tools/eval/test_metrics.py
    /usr/bin/python3 tools/eval/test_metrics.py

Three kinds of checks:
  * hand-computed cases (expected values derived in the comments),
  * known outputs of sacreBLEU 2.x taken from its README and its own test
    suite (test/test_bleu.py, test/test_chrf.py, test/test_sentence_bleu.py),
  * the CLI contract (output format, JSON keys, error exit codes).
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import metrics as m  # noqa: E402

TOL = 0.01  # tolerance for published sacreBLEU scores (0-100 scale)

# sacreBLEU README example: 3 segments, 2 reference streams.
README_REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
README_HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]


def bleu(hyps, refs, **kw):
    return m.corpus_bleu(hyps, refs, **kw)["score"]


class Tokenizer13aTest(unittest.TestCase):
    def check(self, raw, expected):
        self.assertEqual(m.tokenize_13a(raw), expected)

    def test_punctuation_split(self):
        self.check("Hello, world!", "Hello , world !")
        self.check("a/b (c) [d] {e} x;y", "a / b ( c ) [ d ] { e } x ; y")
        self.check("End.", "End .")

    def test_apostrophe_and_plain_hyphen_kept(self):
        self.check("It wasn't well-known.", "It wasn't well-known .")

    def test_numbers_with_comma_and_dot(self):
        self.check("It costs $1,000.50 today.", "It costs $ 1,000.50 today .")
        self.check("pi is 3.14, e is 2.71.", "pi is 3.14 , e is 2.71 .")
        self.check("e.g. 3.14", "e . g . 3.14")
        # A separator with a non-digit on one side is split.
        self.check(".5 ,x", ". 5 , x")

    def test_hyphen_after_digit(self):
        self.check("pages 10-20", "pages 10 - 20")
        self.check("x-1 -5", "x-1 -5")  # only a digit *before* the dash splits

    def test_entities(self):
        self.check("Tom &amp; Jerry", "Tom & Jerry")
        self.check("&lt;b&gt; &quot;q&quot;", '< b > " q "')
        self.check("&amp;lt;", "<")  # sacreBLEU's replacement order
        self.check("&apos;", "& apos ;")  # not unescaped

    def test_skipped_and_newlines(self):
        self.check("a <skipped> b", "a b")
        self.check("multi-\nline\nnext", "multiline next")

    def test_whitespace_collapsed(self):
        self.check("  a \t b\u00a0 c  ", "a b c")
        self.check("", "")


class BleuHandComputedTest(unittest.TestCase):
    def test_perfect_match_is_100(self):
        s = "The quick brown fox jumps over the lazy dog."
        self.assertAlmostEqual(bleu([s], [[s]]), 100.0, places=9)

    def test_no_overlap_is_0(self):
        r = m.corpus_bleu(["a b c d"], [["e f g h"]])
        self.assertEqual(r["score"], 0.0)
        # Early exit: precisions are reported as 0, not smoothed.
        self.assertEqual(r["precisions"], [0.0] * 4)

    def test_brevity_penalty(self):
        # All n-grams match, hyp 5 tokens vs ref 6: BP = exp(1 - 6/5).
        r = m.corpus_bleu(["the cat sat on the"], [["the cat sat on the mat"]])
        self.assertAlmostEqual(r["bp"], math.exp(-0.2), places=12)
        self.assertAlmostEqual(r["score"], 100 * math.exp(-0.2), places=9)
        self.assertEqual((r["sys_len"], r["ref_len"]), (5, 6))

    def test_longer_hypothesis_has_no_bp(self):
        r = m.corpus_bleu(["the cat sat on the mat today"], [["the cat sat on the mat"]])
        self.assertEqual(r["bp"], 1.0)

    def test_exp_smoothing_one_zero_order(self):
        # "this is a fest" vs "this is a test": 3/4, 2/3, 1/2 and 0/1 matches;
        # the first zero order gets 100 / (2 * 1).
        r = m.corpus_bleu(["this is a fest"], [["this is a test"]])
        self.assertEqual(r["counts"], [3, 2, 1, 0])
        self.assertAlmostEqual(r["precisions"][3], 50.0)
        expected = (75.0 * (200.0 / 3) * 50.0 * 50.0) ** 0.25
        self.assertAlmostEqual(r["score"], expected, places=9)

    def test_exp_smoothing_factor_doubles_per_zero_order(self):
        # "a b x c d" vs "a b y c d": 1-grams 4/5, 2-grams 2/4 (ab, cd),
        # 3-grams 0/3 -> 100/(2*3), 4-grams 0/2 -> 100/(4*2).
        r = m.corpus_bleu(["a b x c d"], [["a b y c d"]])
        self.assertEqual(r["counts"], [4, 2, 0, 0])
        self.assertEqual(r["totals"], [5, 4, 3, 2])
        self.assertAlmostEqual(r["precisions"][2], 100.0 / 6)
        self.assertAlmostEqual(r["precisions"][3], 100.0 / 8)
        expected = (80.0 * 50.0 * (100.0 / 6) * 12.5) ** 0.25
        self.assertAlmostEqual(r["score"], expected, places=9)

    def test_too_short_for_4grams_is_0_without_effective_order(self):
        # Corpus BLEU (eff:no): no 3-/4-grams exist, so their precision is 0
        # and the score collapses to 0 even for an exact match.
        self.assertEqual(bleu(["a b"], [["a b"]]), 0.0)
        self.assertAlmostEqual(bleu(["a b"], [["a b"]], effective_order=True), 100.0)

    def test_closest_reference_length_tie_prefers_shorter(self):
        # hyp has 5 tokens; refs have 4 and 6 -> tie, the shorter (4) wins.
        r = m.corpus_bleu(["a b c d e"], [["a b c d"], ["a b c d e f"]])
        self.assertEqual(r["ref_len"], 4)
        self.assertEqual(r["bp"], 1.0)
        # Not a tie: 6 is closer to 5 than 2 is.
        r = m.corpus_bleu(["a b c d e"], [["a b"], ["a b c d e f"]])
        self.assertEqual(r["ref_len"], 6)

    def test_multi_reference_clipping_uses_max_count(self):
        # "the" appears at most twice in a single reference -> 2 of 3 match.
        for refs in ([["the cat"], ["the the dog"]], [["the the dog"], ["the cat"]]):
            r = m.corpus_bleu(["the the the"], refs)
            self.assertEqual(r["counts"][0], 2)
            self.assertEqual(r["totals"][0], 3)

    def test_hypothesis_is_right_stripped_before_tokenizing(self):
        # Without rstrip, the trailing "-\n" would be deleted by 13a and
        # "ab-" would become "ab".
        stats = m.bleu_segment_stats("ab-\n", ["ab-"])
        self.assertEqual(stats[2], 1)

    def test_corpus_statistics_are_summed(self):
        # Corpus BLEU is not the mean of sentence BLEUs.
        hyps = ["a b c d", "e f g h"]
        refs = [["a b c d", "x y z w"]]
        r = m.corpus_bleu(hyps, refs)
        self.assertEqual(r["counts"], [4, 3, 2, 1])
        self.assertEqual(r["totals"], [8, 6, 4, 2])
        self.assertAlmostEqual(r["score"], 50.0, places=9)

    def test_case_sensitive(self):
        self.assertLess(bleu(["The cat sat on the mat"], [["the cat sat on the mat"]]), 100.0)

    def test_empty_reference_is_an_error(self):
        with self.assertRaises(ValueError):
            m.corpus_bleu(["a"], [[""]])
        with self.assertRaises(ValueError):
            m.corpus_chrf(["a"], [[""]])

    def test_length_mismatch_is_an_error(self):
        with self.assertRaises(ValueError):
            m.corpus_bleu(["a", "b"], [["a"]])


class BleuSacreBleuVectorsTest(unittest.TestCase):
    """Expected values published by sacreBLEU 2.x (README and test suite)."""

    def test_readme_two_references(self):
        # BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944
        # hyp_len = 17 ref_len = 18); test_bleu.py: 48.530827
        r = m.corpus_bleu(README_HYPS, README_REFS)
        self.assertAlmostEqual(r["score"], 48.530827, delta=TOL)
        self.assertEqual(["%.1f" % p for p in r["precisions"]], ["82.4", "50.0", "45.5", "37.5"])
        self.assertEqual("%.3f" % r["bp"], "0.943")
        self.assertEqual((r["sys_len"], r["ref_len"]), (17, 18))

    def test_readme_variable_number_of_references(self):
        # First segment has only the second reference: BLEU = 29.44
        # 82.4/42.9/27.3/12.5 (BP = 0.889 ratio = 0.895 hyp_len = 17 ref_len = 19)
        refs = [[""] + README_REFS[0][1:], README_REFS[1]]
        r = m.corpus_bleu(README_HYPS, refs)
        self.assertAlmostEqual(r["score"], 29.44, delta=TOL)
        self.assertEqual(["%.1f" % p for p in r["precisions"]], ["82.4", "42.9", "27.3", "12.5"])
        self.assertEqual((r["sys_len"], r["ref_len"]), (17, 19))

    def test_empty_hypotheses_score_0(self):
        self.assertEqual(bleu(["", "", ""], README_REFS), 0.0)

    def test_max_ngram_order(self):
        expected = {1: "77.65", 2: "60.50", 3: "53.93", 4: "48.53", 5: "46.14", 6: "43.28"}
        for order, score in expected.items():
            with self.subTest(order=order):
                self.assertEqual("%.2f" % bleu(README_HYPS, README_REFS, max_order=order), score)

    def test_statistics(self):
        stats = m.bleu_segment_stats("am I am a character sequence",
                                     ["I am a symbol string sequence a a"])
        self.assertEqual(stats[2:6], [4, 2, 1, 0])
        self.assertEqual(stats[6:10], [6, 5, 4, 3])

    def test_scoring_from_statistics(self):
        r = m.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11)
        self.assertAlmostEqual(r["score"] / 100, 0.8375922397, places=9)

    def test_sentence_bleu_effective_order(self):
        # test_sentence_bleu.py (issue #98): exp smoothing, 13a, eff:yes -> 8.493
        ref = "producţia de zahăr brut se exprimă în zahăr alb;"
        hyp = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"
        self.assertAlmostEqual(bleu([hyp], [[ref]], effective_order=True), 8.493, delta=TOL)
        # issue #141: no match at all -> 0
        self.assertEqual(bleu(["this is a cat"], [["okay thanks"]], effective_order=True), 0.0)


class ChrfHandComputedTest(unittest.TestCase):
    def test_identical_is_100(self):
        s = "Niemand hat die Absicht, eine Mauer zu errichten"
        self.assertAlmostEqual(m.corpus_chrf([s], [[s]]), 100.0, places=9)

    def test_no_overlap_is_0(self):
        self.assertEqual(m.corpus_chrf(["abc"], [["xyz"]]), 0.0)
        self.assertEqual(m.corpus_chrf([""], [["xyz"]]), 0.0)

    def test_whitespace_is_ignored(self):
        self.assertAlmostEqual(m.corpus_chrf(["a b c"], [["abc"]]), 100.0)

    def test_aa_vs_ab(self):
        # order 1: P = R = 1/2; order 2: aa vs ab, P = R = 0; orders 3-6 have
        # no n-grams and are skipped -> avg P = avg R = 1/4 -> F = 25.
        self.assertAlmostEqual(m.corpus_chrf(["aa"], [["ab"]]), 25.0)

    def test_beta_weights_recall(self):
        # hyp "ab", ref "abcd": order 1 P=1 R=2/4; order 2 P=1 R=1/3; orders
        # 3+ have no hyp n-grams.  avg P = 1, avg R = 5/12;
        # F2 = 5PR / (4P + R).
        p, r = 1.0, 5.0 / 12
        self.assertAlmostEqual(m.corpus_chrf(["ab"], [["abcd"]]),
                               100 * 5 * p * r / (4 * p + r), places=9)
        # beta=1 is the plain harmonic mean.
        self.assertAlmostEqual(m.corpus_chrf(["ab"], [["abcd"]], beta=1),
                               100 * 2 * p * r / (p + r), places=9)

    def test_reference_without_ngrams_zeroes_hyp_count(self):
        # hyp "abcdef" vs ref "ab": orders 3-6 exist only in the hypothesis;
        # sacreBLEU records them as [0, 0, 0] instead of charging precision.
        stats = m.chrf_segment_stats("abcdef", ["ab"])
        self.assertEqual(stats[0:3], [6, 2, 2])
        self.assertEqual(stats[3:6], [5, 1, 1])
        self.assertEqual(stats[6:], [0, 0, 0] * 4)
        p, r = (2 / 6 + 1 / 5) / 2, 1.0
        self.assertAlmostEqual(m.corpus_chrf(["abcdef"], [["ab"]]),
                               100 * 5 * p * r / (4 * p + r), places=9)

    def test_corpus_statistics_are_summed(self):
        # Sentence scores would be 100 and 25 (mean 62.5).  Summed stats:
        # order 1: 3 hyp, 3 ref, 2 match; order 2: 1, 1, 0 -> P = R = 1/3.
        self.assertAlmostEqual(m.corpus_chrf(["a", "bb"], [["a", "bc"]]), 100 / 3, places=9)

    def test_multi_reference_picks_best_sentence_f(self):
        stats = m.chrf_segment_stats("abc", ["xyz", "abc", "ab"])
        self.assertEqual(stats[0:3], [3, 3, 3])
        self.assertAlmostEqual(m.corpus_chrf(["abc"], [["xyz"], ["abc"]]), 100.0)

    def test_multi_reference_tie_keeps_first(self):
        # Both references give F = 0 but different reference counts; the
        # first one is kept, which changes corpus-level recall.
        self.assertEqual(m.chrf_segment_stats("abc", ["xyz", "xy"])[1], 3)
        self.assertEqual(m.chrf_segment_stats("abc", ["xy", "xyz"])[1], 2)

    def test_f_score_from_stats(self):
        # One order, P = 1/2, R = 1/4: F2 = 5 * 1/8 / (2 + 1/4) = 5/18.
        stats = [2, 4, 1] + [0, 0, 0] * 5
        self.assertAlmostEqual(m.chrf_f_score(stats), 100 * 5 / 18, places=9)


class ChrfSacreBleuVectorsTest(unittest.TestCase):
    def test_readme_two_references(self):
        # README: CHRF().corpus_score(sys, refs) -> chrF2 = 59.73
        self.assertAlmostEqual(m.corpus_chrf(README_HYPS, README_REFS), 59.73, delta=TOL)

    def test_default_sentence(self):
        # Hugging Face's chrF metric card (sacreBLEU defaults): 61.576379378113785
        hyp = "The relationship between Obama and Netanyahu is not exactly friendly."
        ref = "The ties between Obama and Netanyahu are not particularly friendly."
        self.assertAlmostEqual(m.corpus_chrf([hyp], [[ref]]), 61.576379378113785, delta=TOL)

    def test_effective_order_beta3(self):
        # test_chrf.py, test_cases_effective_order (beta=3, eps_smoothing=False)
        cases = [
            (["a"], ["a"], 100.0),
            ([""], ["reference"], 0.0),
            (["a b c"], ["a b c"], 100.0),
            (["a b c"], ["abc"], 100.0),
            ([""], ["c"], 0.0),
            (["a", "b"], ["a", "c"], 50.0),
            (["aa"], ["ab"], 25.0),
        ]
        for hyps, refs, expected in cases:
            with self.subTest(hyps=hyps, refs=refs):
                self.assertAlmostEqual(m.corpus_chrf(hyps, [refs], beta=3), expected, delta=TOL)

    def test_eps_smoothing_beta3(self):
        # test_chrf.py, test_cases (beta=3, eps_smoothing=True).  Not the
        # default mode, but it checks the per-order statistics one by one.
        cases = [
            (["abcdefg"], ["hijklmnop"], 0.0),
            (["a"], ["b"], 0.0),
            ([""], ["b"], 0.0),
            ([""], ["ref"], 0.0),
            ([""], ["reference"], 0.0),
            (["aa"], ["ab"], 8.3333),
            (["a", "b"], ["a", "c"], 8.3333),
            (["a"], ["a"], 16.6667),
            (["a b c"], ["a b c"], 50.0),
            (["a b c"], ["abc"], 50.0),
            ([" risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."],
             ["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."],
             63.361730),
            ([" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
             ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."],
             64.1302698),
            (["Niemand hat die Absicht, eine Mauer zu errichten"],
             ["Niemand hat die Absicht, eine Mauer zu errichten"], 100.0),
        ]
        for hyps, refs, expected in cases:
            with self.subTest(hyps=hyps):
                score = m.corpus_chrf(hyps, [refs], beta=3, eps_smoothing=True)
                self.assertAlmostEqual(score, expected, delta=TOL)

    def test_keep_whitespace_beta3(self):
        # test_chrf.py, test_cases_keep_whitespace (beta=3, whitespace kept)
        cases = [
            ("Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich.",
             "Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.",
             67.3481606),
            ("risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists .",
             "risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists .",
             65.2414427),
        ]
        for hyp, ref, expected in cases:
            with self.subTest(hyp=hyp):
                score = m.corpus_chrf([hyp], [[ref]], beta=3, whitespace=True)
                self.assertAlmostEqual(score, expected, delta=TOL)

    def test_sentence_level_eps_smoothing(self):
        # test_chrf.py, test_sentence_level_chrf (beta=2, eps_smoothing=True)
        cases = [
            ("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
             "Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře.",
             39.14078509),
            ("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
             "A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři.",
             31.22557079),
            ("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
             "Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli.",
             57.15704367),
        ]
        for hyp, ref, expected in cases:
            with self.subTest(hyp=hyp):
                score = m.corpus_chrf([hyp], [[ref]], eps_smoothing=True)
                self.assertAlmostEqual(score, expected, delta=TOL)


class CliTest(unittest.TestCase):
    SCRIPT = os.path.join(HERE, "metrics.py")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, lines, trailing_newline=True):
        path = os.path.join(self.tmp.name, name)
        text = "\n".join(lines) + ("\n" if trailing_newline else "")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def run_cli(self, *args):
        return subprocess.run([sys.executable, self.SCRIPT] + list(args),
                              capture_output=True, text=True)

    def test_text_output_two_references(self):
        hyp = self.write("hyp.txt", README_HYPS)
        ref1 = self.write("ref1.txt", README_REFS[0], trailing_newline=False)
        ref2 = self.write("ref2.txt", README_REFS[1])
        p = self.run_cli("--hyp", hyp, "--ref", ref1, "--ref", ref2)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "BLEU = 48.53  chrF2 = 59.73\n")

    def test_json_output(self):
        hyp = self.write("hyp.txt", README_HYPS)
        ref1 = self.write("ref1.txt", README_REFS[0])
        ref2 = self.write("ref2.txt", README_REFS[1])
        p = self.run_cli("--hyp", hyp, "--ref", ref1, "--ref", ref2, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        d = json.loads(p.stdout)
        self.assertEqual(set(d), {"bleu", "chrf", "bp", "precisions", "sys_len", "ref_len", "n"})
        self.assertAlmostEqual(d["bleu"], 48.530827, delta=TOL)
        self.assertAlmostEqual(d["chrf"], 59.73, delta=TOL)
        self.assertEqual((d["sys_len"], d["ref_len"], d["n"]), (17, 18, 3))
        self.assertEqual(len(d["precisions"]), 4)

    def test_line_count_mismatch(self):
        hyp = self.write("hyp.txt", ["a", "b"])
        ref = self.write("ref.txt", ["a"])
        p = self.run_cli("--hyp", hyp, "--ref", ref)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)

    def test_whitespace_only_reference_line_is_an_error(self):
        # Lines are right-stripped like the sacrebleu CLI does, so a line of
        # blanks is an empty reference, which sacreBLEU rejects.
        hyp = self.write("hyp.txt", ["a b", "c d"])
        ref = self.write("ref.txt", ["a b", "   "])
        p = self.run_cli("--hyp", hyp, "--ref", ref)
        self.assertEqual(p.returncode, 1)
        self.assertIn("segment 2", p.stderr)

    def test_crlf_and_trailing_spaces_ignored(self):
        hyp = self.write("hyp.txt", ["the cat sat on the mat  \r"])
        ref = self.write("ref.txt", ["the cat sat on the mat"])
        p = self.run_cli("--hyp", hyp, "--ref", ref)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "BLEU = 100.00  chrF2 = 100.00\n")

    def test_missing_file(self):
        ref = self.write("ref.txt", ["a"])
        p = self.run_cli("--hyp", os.path.join(self.tmp.name, "nope.txt"), "--ref", ref)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
