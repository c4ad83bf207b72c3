#!/usr/bin/python3
"""Self-test of build_shortlist.py on a tiny synthetic corpus with word-level SentencePiece
models trained in a temporary folder, and on real English-German pairs with models/en-de.

    /usr/bin/python3 -m unittest -q test_build_shortlist      # from tools/shortlist
    /usr/bin/python3 -m pytest -q tools/shortlist
"""

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOOL = os.path.join(HERE, "build_shortlist.py")
EN_DE = os.path.join(ROOT, "models", "en-de")
STRINGS = os.path.join(ROOT, "tests", "data", "text", "software-strings.tsv")

# A toy language pair: every source word has one translation; "zorg" is always translated
# "blip" and nothing else is, so p(blip | zorg) must be zorg's highest.
DICTIONARY = {"red": "rot", "blue": "blau", "green": "gruen", "cat": "katze", "dog": "hund",
              "bird": "vogel", "big": "gross", "small": "klein", "runs": "rennt",
              "sleeps": "schlaeft", "zorg": "blip"}
LEX_LINE = re.compile(r"^(\S+) (\S+) (\S+)\n$")


def run(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)


def read_lex(path):
    entries = []
    with open(path, encoding="utf-8", newline="") as fh:
        for line in fh:
            match = LEX_LINE.match(line)
            assert match, "not TARGET SOURCE PROB: %r" % line
            entries.append((match.group(1), match.group(2), match.group(3)))
    return entries


def by_source(entries):
    table = {}
    for target, source, prob in entries:
        table.setdefault(source, []).append((target, float(prob)))
    return table


def read_bytes(path):
    with open(path, "rb") as fh:
        return fh.read()


class BuildShortlistTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="shortlist-test-")
        rng = random.Random(7)
        words = sorted(DICTIONARY)
        others = [w for w in words if w != "zorg"]
        sources, targets = [], []
        for i in range(300):
            sentence = rng.sample(others, rng.randint(2, 5))
            if i % 3 == 0:
                sentence.insert(rng.randint(0, len(sentence)), "zorg")
            translation = [DICTIONARY[w] for w in sentence]
            rng.shuffle(translation)
            sources.append(" ".join(sentence))
            targets.append(" ".join(translation))
        sources[5], targets[5] = "", "rot"  # a pair with an empty side is skipped
        cls.src = cls.write("corpus.src", sources)
        cls.tgt = cls.write("corpus.tgt", targets)
        for side, lines in (("src", sources), ("tgt", targets)):
            # word-level models, a separate one per side: the ids of the two sides differ
            spm.SentencePieceTrainer.train(
                input=os.path.join(cls.dir, "corpus." + side), model_type="word",
                model_prefix=os.path.join(cls.dir, side), vocab_size=40,
                hard_vocab_limit=False, minloglevel=2)
        cls.src_spm = os.path.join(cls.dir, "src.model")
        cls.tgt_spm = os.path.join(cls.dir, "tgt.model")
        cls.tgt_pieces = set(cls.pieces(cls.tgt_spm))
        cls.outputs = {}
        for name, extra in (("ibm1", []), ("ibm1-again", []), ("cooc", ["--method", "cooc"])):
            out = os.path.join(cls.dir, name + ".lex")
            vmap = os.path.join(cls.dir, name + ".vmap")
            result = cls.build(out, "--vmap", vmap, "--vmap-best", "3", "--vmap-common", "4",
                               *extra)
            assert result.returncode == 0, result.stderr
            cls.outputs[name] = (out, vmap)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def write(cls, name, lines):
        path = os.path.join(cls.dir, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in lines))
        return path

    @staticmethod
    def pieces(model):
        sp = spm.SentencePieceProcessor(model_file=model)
        return [sp.id_to_piece(i) for i in range(sp.get_piece_size())]

    @classmethod
    def build(cls, out, *extra, source=None, target=None):
        return run("--source-spm", cls.src_spm, "--target-spm", cls.tgt_spm,
                   "--source", source or cls.src, "--target", target or cls.tgt,
                   "--out", out, *extra)

    def test_always_together_is_most_likely(self):
        for method in ("ibm1", "cooc"):
            table = by_source(read_lex(self.outputs[method][0]))
            best = max(table["▁zorg"], key=lambda entry: entry[1])
            self.assertEqual(best[0], "▁blip", method)
            others = [p for t, p in table["▁zorg"] if t != "▁blip"]
            self.assertTrue(all(p < best[1] for p in others), method)
        # IBM Model 1 also finds every other word's translation, with most of the mass.
        table = by_source(read_lex(self.outputs["ibm1"][0]))
        for source, target in DICTIONARY.items():
            best = max(table["▁" + source], key=lambda entry: entry[1])
            self.assertEqual(best[0], "▁" + target)
            self.assertGreater(best[1], 0.5)

    def test_probabilities_of_a_source_sum_to_at_most_one(self):
        for method in ("ibm1", "cooc"):
            for source, entries in by_source(read_lex(self.outputs[method][0])).items():
                # 6 significant digits round each entry by at most 5e-6 of itself
                self.assertLessEqual(sum(p for _, p in entries), 1 + 1e-5, (method, source))

    def test_lex_format(self):
        for method in ("ibm1", "cooc"):
            entries = read_lex(self.outputs[method][0])
            self.assertTrue(entries)
            order = []
            for target, source, prob in entries:
                self.assertIn(target, self.tgt_pieces)
                self.assertNotIn(source, ("NULL", "<unk>"))
                self.assertNotEqual(target, "<unk>")
                self.assertEqual("%.6g" % float(prob), prob)  # 6 significant digits
                self.assertGreaterEqual(float(prob), 0.001)  # --min-prob's default
                order.append((source, -float(prob), target))
            self.assertEqual(order, sorted(order), "sorted by source, then prob descending")
            sources = [source for _, source, _ in entries]
            self.assertEqual(len(set(sources)), sum(
                1 for i, s in enumerate(sources) if i == 0 or sources[i - 1] != s))

    def test_min_prob(self):
        out = os.path.join(self.dir, "min-prob.lex")
        self.assertEqual(self.build(out, "--min-prob", "0.2").returncode, 0)
        entries = read_lex(out)
        self.assertTrue(entries)
        self.assertTrue(all(float(p) >= 0.2 for _, _, p in entries))
        full = set(read_lex(self.outputs["ibm1"][0]))
        self.assertTrue(set(entries) <= full)

    def test_vmap_format(self):
        lex, vmap = self.outputs["ibm1"]
        table = by_source(read_lex(lex))
        with open(vmap, encoding="utf-8", newline="") as fh:
            lines = fh.readlines()
        self.assertTrue(all(line.endswith("\n") and line.count("\t") == 1 for line in lines))
        key, common = lines[0].rstrip("\n").split("\t")
        self.assertEqual(key, "")  # CTranslate2's always-allowed targets
        common = common.split(" ")
        self.assertEqual(len(common), 4)
        self.assertTrue(set(common) <= self.tgt_pieces)
        keys = []
        for line in lines[1:]:
            key, targets = line.rstrip("\n").split("\t")
            self.assertNotIn(" ", key)  # a space would make CTranslate2 read an n-gram
            targets = targets.split(" ")
            self.assertEqual(targets, [t for t, _ in table[key]][:3])
            keys.append(key)
        self.assertEqual(keys, sorted(table))

    def test_deterministic(self):
        for a, b in zip(self.outputs["ibm1"], self.outputs["ibm1-again"]):
            self.assertEqual(read_bytes(a), read_bytes(b))

    def test_max_lines(self):
        out = os.path.join(self.dir, "max-lines.lex")
        result = self.build(out, "--max-lines", "30")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("30 line pairs read (of 300), 29 used", result.stderr)

    def check_error(self, result, text):
        self.assertEqual(result.returncode, 1)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith("build_shortlist: error: "), lines[0])
        self.assertIn(text, lines[0])

    def test_errors(self):
        out = os.path.join(self.dir, "error.lex")
        missing = os.path.join(self.dir, "missing.src")
        self.check_error(self.build(out, source=missing), "no such file: " + missing)
        self.check_error(run("--source-spm", missing, "--target-spm", self.tgt_spm,
                             "--source", self.src, "--target", self.tgt, "--out", out),
                         "no such file")
        short = self.write("short.tgt", ["rot", "blau"])
        self.check_error(self.build(out, target=short), "mismatched line counts")
        empty = self.write("empty.txt", [])
        self.check_error(self.build(out, source=empty, target=empty), "empty corpus")
        blank = self.write("blank.txt", ["", " "])
        self.check_error(self.build(out, source=blank, target=blank), "empty corpus")
        self.check_error(self.build(os.path.join(self.dir, "no", "such", "dir.lex")),
                         "no such folder")
        self.assertFalse(os.path.exists(out))

    @unittest.skipUnless(os.path.isfile(STRINGS)
                         and os.path.isfile(os.path.join(EN_DE, "source.spm")),
                         "models/en-de or tests/data/text/software-strings.tsv missing")
    def test_en_de_pieces_are_the_models(self):
        """Real English-German pairs cut by models/en-de's SentencePiece models: every piece
        written is one of the model's vocabulary."""
        with open(STRINGS, encoding="utf-8") as fh:
            rows = [line.rstrip("\n").split("\t") for line in fh]
        src = self.write("strings.en", [row[1] for row in rows])
        tgt = self.write("strings.de", [row[2] for row in rows])
        out = os.path.join(self.dir, "en-de.lex")
        result = run("--source-spm", os.path.join(EN_DE, "source.spm"),
                     "--target-spm", os.path.join(EN_DE, "target.spm"),
                     "--source", src, "--target", tgt, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        vocabulary = set(self.pieces(os.path.join(EN_DE, "target.spm")))
        vocabulary |= set(self.pieces(os.path.join(EN_DE, "source.spm")))
        entries = read_lex(out)
        self.assertGreater(len(entries), 1000)
        for target, source, _ in entries:
            self.assertIn(target, vocabulary)
            self.assertIn(source, vocabulary)
        table = by_source(entries)
        self.assertEqual(max(table["▁file"], key=lambda e: e[1])[0], "▁Datei")


if __name__ == "__main__":
    unittest.main()
