#!/usr/bin/python3
"""Self-checks of the lexical-shortlist reference (shortlist_ref.py), of beam_search(...,
candidates=...) (marian_search.py) and of the fixtures tests/data/shortlists/<model>/ with their
goldens tests/data/golden/shortlist.<model>.json (tools/fixtures/make_shortlist_fixtures.py).

    /usr/bin/python3 -m pytest -q tools/reference/test_shortlist_ref.py
    cd tools/reference && /usr/bin/python3 -m unittest -q test_shortlist_ref
"""

import json
import os
import struct
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import marian_ref as ref  # noqa: E402
import marian_search as ms  # noqa: E402
import shortlist_ref as sl  # noqa: E402

MODELS = os.path.join(ROOT, "tests", "data", "models")
GOLDEN = os.path.join(ROOT, "tests", "data", "golden")
SHORTLISTS = os.path.join(ROOT, "tests", "data", "shortlists")
FIXTURES = ["marian-prenorm-relu-untied", "marian-ymlids-gelu-tied"]
F32 = np.float32

# toy vocabularies: source a..h (+ </s> 0, <unk> 1), target A..P (+ </s> 0, <unk> 1)
SRC = sl.MarianVocab({p: i for i, p in enumerate(["</s>", "<unk>"] + list("abcdefgh"))}, 1, 10)
TGT = sl.MarianVocab({p: i for i, p in enumerate(["</s>", "<unk>"] + list("ABCDEFGHIJKLMNOP"))}, 1, 18)


def tmp_file(data, suffix=""):
    fd, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


class TestMarianText(unittest.TestCase):
    LEX = ("C a 0.5\nD a 0.25\nNULL a 0.9\nE NULL 0.9\n"
           "C b 0.1\nD b 0.3 E b 0.3\n"        # line breaks are only whitespace
           "F zzz 0.7\nZZZ c 0.6\n"           # unknown source -> <unk> (1), unknown target -> <unk>
           "D a 0.75\n"                       # later line for (a, D): overwrites (last wins)
           "G a 0.1\nG c 0.0\n"
           "H h 0.2\n"
           "I h x 0.5\n")                     # not a number: the loop stops here

    def entries(self):
        return sl.read_marian_text(self.LEX.encode("utf-8"), SRC, TGT)

    def test_load(self):
        e = self.entries()
        a, b, c, h = (SRC[x] for x in "abch")
        C, D, E, F, G, H = (TGT[x] for x in "CDEFGH")
        self.assertEqual(e, [(a, C, F32(0.5)), (a, D, F32(0.25)), (b, C, F32(0.1)), (b, D, F32(0.3)),
                             (b, E, F32(0.3)), (1, F, F32(0.7)), (c, 1, F32(0.6)), (a, D, F32(0.75)),
                             (a, G, F32(0.1)), (c, G, F32(0.0)), (h, H, F32(0.2))])
        t = sl.text_table(e)
        self.assertEqual(t[a], {C: F32(0.5), D: F32(0.75), G: F32(0.1)})

    def test_prune_ties_threshold_best(self):
        t = sl.text_table(self.entries())
        a, b, c = (SRC[x] for x in "abc")
        C, D, E, G = (TGT[x] for x in "CDEG")
        # ties: the higher target id first (std::greater on (prob, id))
        self.assertEqual(sl.prune_order(t[b]), [E, D, C])
        self.assertEqual(sl.prune(t, best=1)[b], [E])
        self.assertEqual(sl.prune(t, best=2)[b], [E, D])
        # strict prob > threshold: 0.1 is dropped at threshold 0.1, 0.0 at the default 0
        self.assertEqual(sl.prune(t, best=5, threshold=0.1)[a], [D, C])
        self.assertEqual(sl.prune(t, best=5, threshold=0.0)[a], [D, C, G])
        self.assertEqual(sl.prune(t, best=5)[c], [1])
        self.assertEqual(sl.prune(t, best=5, threshold=0.6)[c], [])
        self.assertEqual(sl.prune(t, best=5, threshold=0.3)[b], [])

    def test_generate_padding_and_shared(self):
        t = sl.text_table(self.entries())
        a, b, h = (SRC[x] for x in "abh")
        # first 3 -> {0,1,2}; a -> D(5) C(4) G(8); </s> (0) has no list; pad with 3, 6, 7, ...
        got = sl.marian_candidates(t, [[a, 0]], 18, first=3, best=5, threshold=0.0)
        self.assertEqual(got, [0, 1, 2, 3, 4, 5, 6, 8])
        got = sl.marian_candidates(t, [[a, 0], [b, 0]], 18, first=3, best=5, threshold=0.0)
        self.assertEqual(got, [0, 1, 2, 3, 4, 5, 6, 8])       # b adds C D E(6): 7 ids -> + 3
        got = sl.marian_candidates(t, [[b, h, 0]], 18, first=3, best=1, threshold=0.0)
        self.assertEqual(got, [0, 1, 2, 3, 4, 5, 6, 9])      # E(6), H(9); padding 3 4 5
        # shared: the source ids themselves are candidates too
        g = SRC["g"]                                          # 8, no targets
        got = sl.marian_candidates(t, [[g, 0]], 18, first=2, best=5, threshold=0.0, shared=True)
        self.assertEqual(got, [0, 1, 2, 3, 4, 5, 6, g])
        got = sl.marian_candidates(t, [[g, 0]], 18, first=2, best=5, threshold=0.0, shared=False)
        self.assertEqual(got, list(range(8)))
        # first larger than the vocabulary: capped; the text generator would pad past the end
        self.assertEqual(sl.marian_candidates(t, [[0]], 8, first=100), list(range(8)))
        with self.assertRaises(ValueError):
            sl.marian_candidates(t, [[a]], 6, first=4, best=5)
        # source ids above the file's largest: no targets (Marian: data_ out of bounds)
        t2 = {s: v for s, v in t.items() if s != h}
        self.assertEqual(sl.marian_candidates(t2, [[h]], 18, first=8), list(range(8)))


class TestMarianBinary(unittest.TestCase):
    def make(self, best=2, threshold=0.0, lex=TestMarianText.LEX):
        e = sl.read_marian_text(lex.encode("utf-8"), SRC, TGT)
        return e, sl.marian_import(e, SRC.size, first=3, best=best, threshold=threshold)

    def test_import_semantics(self):
        lex = "C a 0.5\nD a 0.25\nD a 0.75\nD a 0.5\nE a -1\nB a 0.2\nC h 0.3\n"
        e, bs = self.make(best=5, lex=lex)
        a, h = SRC["a"], SRC["h"]
        B, C, D, E = (TGT[x] for x in "BCDE")
        # duplicates: the maximum (0.75 for D although the last line says 0.5); E (-1) kept as 0
        self.assertEqual(bs.lists_of(a), sorted([B, C, D, E]))
        self.assertEqual(sl.text_table(e)[a][D], F32(0.5))        # the text loader: last wins
        _, bs2 = self.make(best=2, lex=lex)
        self.assertEqual(bs2.lists_of(a), sorted([D, C]))
        # the threshold compares TARGET IDS (entry.first >= threshold), not probabilities
        _, bs3 = self.make(best=5, threshold=3.5, lex=lex)
        self.assertEqual(bs3.lists_of(a), sorted([C, D, E]))       # B = 3 < 3.5 dropped
        _, bs4 = self.make(best=5, threshold=0.5, lex=lex)
        self.assertEqual(bs4.lists_of(a), sorted([B, C, D, E]))
        self.assertEqual(bs.lists_of(h), [C])
        self.assertEqual(len(bs.offsets), SRC.size + 1)            # wordToOffsetSize = |src| + 1

    def test_round_trip(self):
        e, bs = self.make(best=2, lex=TestMarianText.LEX.replace("G c 0.0\n", ""))
        blob = sl.marian_binary_bytes(bs)
        magic, chk, first, best, n_off, n_lists = struct.unpack_from("<6Q", blob)
        self.assertEqual(magic, 0xF11A48D5013417F5)
        self.assertEqual((first, best, n_off), (3, 2, SRC.size + 1))
        self.assertEqual(len(blob), 48 + 8 * n_off + 4 * n_lists)
        self.assertEqual(chk, sl.checksum(blob))
        path = tmp_file(blob, ".bin")
        try:
            back = sl.read_marian_binary(path, target_vocab_size=TGT.size)
        finally:
            os.unlink(path)
        self.assertEqual(back.as_dict(), bs.as_dict())
        self.assertEqual((back.first, back.best), (3, 2))
        # text (threshold 0, all probs > 0, no shrinking duplicates) -> the same lists
        self.assertTrue(all(x[2] > 0 for x in e))
        t = sl.text_table(e)
        pr = sl.prune(t, best=2)
        self.assertEqual({s: sorted(pr.get(s, [])) for s in range(SRC.size)}, back.as_dict())
        for batch in ([[SRC["a"], 0]], [[SRC["b"], SRC["c"], 0], [SRC["a"], 0]]):
            for shared in (False, True):
                self.assertEqual(sl.binary_candidates(back, batch, TGT.size, shared),
                                 sl.marian_candidates(t, batch, TGT.size, 3, 2, 0.0, shared))

    def test_checksum_and_checks(self):
        _, bs = self.make(best=2, lex="C a 0.5\nD a 0.4\nE h 0.3\n")
        blob = bytearray(sl.marian_binary_bytes(bs))
        self.assertEqual(len(bs.lists) % 2, 1)        # odd: the last uint32 is outside the checksum
        bad = bytearray(blob)
        bad[48 + 8] ^= 1                               # an offset
        with self.assertRaisesRegex(sl.ShortlistError, "checksum"):
            sl.read_marian_binary(bytes(bad))
        bad = bytearray(blob)
        bad[-8] ^= 1                                   # a covered target id
        with self.assertRaisesRegex(sl.ShortlistError, "checksum"):
            sl.read_marian_binary(bytes(bad))
        sl.read_marian_binary(bytes(bad), check=False)
        bad = bytearray(blob)
        bad[-1] ^= 0x40                                # the uncovered last id: only the bound check
        with self.assertRaisesRegex(sl.ShortlistError, "out of bounds"):
            sl.read_marian_binary(bytes(bad), target_vocab_size=TGT.size)
        bad = bytearray(blob)
        bad[0] ^= 1
        with self.assertRaisesRegex(sl.ShortlistError, "magic"):
            sl.read_marian_binary(bytes(bad))
        with self.assertRaisesRegex(sl.ShortlistError, "size"):
            sl.read_marian_binary(bytes(blob) + b"\0\0\0\0")
        # hash_combine by hand: seed ^= v + 0x9e3779b9 + (seed << 6) + (seed >> 2)
        s1 = 0 ^ (7 + 0x9e3779b9)
        s2 = s1 ^ ((5 + 0x9e3779b9 + (s1 << 6) + (s1 >> 2)) & (2 ** 64 - 1))
        self.assertEqual(sl.hash_mem_u64([7, 5]), s2)

    def test_content_check_last_source_empty(self):
        # contentCheck: offsets of all but the last entry must be < shortListsSize, so a file
        # whose last source id has no targets is rejected (with check on)
        _, bs = self.make(best=2, lex="C a 0.5\n")
        blob = sl.marian_binary_bytes(bs)
        with self.assertRaisesRegex(sl.ShortlistError, "out of bounds"):
            sl.read_marian_binary(blob)
        self.assertEqual(sl.read_marian_binary(blob, check=False).lists_of(SRC["a"]), [TGT["C"]])

    def test_binary_padding_bounded(self):
        _, bs = self.make(best=2)
        self.assertEqual(sl.binary_candidates(bs, [[SRC["a"], 0]], 6), [0, 1, 2, 3, 4, 5])


class TestVocabularyMap(unittest.TestCase):
    VOCAB = sl.CT2Vocab(["<unk>", "<s>", "</s>"] + list("ABCDEFGHIJ"))
    TEXT = ("a\tA\n"
            "a b\tB C\n"
            "a b c\tD\n"
            "\tE\n"                # the always-candidates
            "b\tF  G\n"           # two spaces: an empty token -> <unk>
            "c\tH\r\n"            # CRLF
            "d\tZZ\n"             # unknown target -> <unk>
            "b\tG\n"              # replaces the earlier "b" line
            "x y\tI\n")

    def test_parse(self):
        vm = sl.VocabularyMap(self.TEXT, self.VOCAB)
        to = self.VOCAB.to_id
        self.assertEqual(len(vm.rules), 3)
        self.assertEqual(vm.rules[0]["b"], [to("G")])
        self.assertEqual(vm.rules[0]["c"], [to("H")])
        self.assertEqual(vm.rules[0]["d"], [0])
        self.assertEqual(vm.rules[1]["a b"], [to("B"), to("C")])
        self.assertEqual(vm.fixed, {0, 1, 2, to("E")})
        vm2 = sl.VocabularyMap("b\tF  G\n", self.VOCAB)
        self.assertEqual(vm2.rules[0]["b"], [to("F"), 0, to("G")])

    def test_candidates(self):
        to = self.VOCAB.to_id
        vm = sl.VocabularyMap(self.TEXT, self.VOCAB)
        self.assertEqual(sl.ct2_candidates(vm, [["q"]], [[1]]), sorted([0, 1, 2, to("E")]))
        got = sl.ct2_candidates(vm, [["a", "b", "c"]], [[1]])
        self.assertEqual(got, sorted({0, 1, 2, to("E"), to("A"), to("B"), to("C"), to("D"), to("G"),
                                      to("H")}))
        # n-grams do not cross sentences; the 2-gram "x y" needs both tokens adjacent
        self.assertEqual(sl.ct2_candidates(vm, [["x"], ["y"]], [[1]]), sorted([0, 1, 2, to("E")]))
        self.assertIn(to("I"), sl.ct2_candidates(vm, [["q", "x", "y"]], [[1]]))
        # the target prefix ids (decoder start + prefix) are candidates; the result is sorted
        got = sl.ct2_candidates(self.TEXT, [["c", "a"]], [[1, to("J")], [1]], self.VOCAB)
        self.assertEqual(got, sorted(set(got)))
        self.assertIn(to("J"), got)
        # bos missing from the vocabulary -> <unk>
        v = sl.CT2Vocab(["</s>", "A"])
        self.assertEqual((v.unk_id, v.bos_id, v.eos_id, len(v)), (2, 2, 0, 3))
        self.assertEqual(sl.ct2_candidates("\tA\n", [[]], [], v), [0, 1, 2])


class TestSearchCandidates(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = ref.load_model(os.path.join(MODELS, FIXTURES[0]))
        cls.src = ref.encode_text(cls.m, "You can apply it to your programs, too.")

    def test_all_ids_is_unrestricted(self):
        m, src = self.m, self.src
        sc = ms.ModelScorer(m, src)
        for beam, norm in ((1, 0.0), (4, 1.0)):
            a = ms.beam_search(m, src, beam, normalize=norm, scorer=sc)
            b = ms.beam_search(m, src, beam, normalize=norm, scorer=sc, candidates=range(m.V))
            self.assertEqual(a, b)

    def test_restricted(self):
        m, src = self.m, self.src
        sc = ms.ModelScorer(m, src)
        cands = [m.eos_id, m.unk_id] + list(range(20, 60))
        trace = []
        hyps = ms.beam_search(m, src, 4, scorer=sc, candidates=cands, trace=trace)
        self.assertTrue(all(t in cands for h in hyps for t in h["ids"]))
        self.assertTrue(all(t != m.unk_id for h in hyps for t in h["ids"]))
        # the log-probs are log_softmax over the candidates' logits
        h = hyps[0]
        for k, tok in enumerate(h["ids"]):
            logits = sc.logits(tuple(h["ids"][:k]))
            lp = ref.log_softmax(logits[np.array(sorted(cands))])
            self.assertEqual(h["token_logprobs"][k], lp[sorted(cands).index(tok)])
        # unk outside the candidates stays excluded; too few candidates for the beam -> error
        hyps2 = ms.beam_search(m, src, 2, scorer=sc, candidates=list(range(20, 30)) + [m.eos_id])
        self.assertTrue(all(t >= 20 or t == m.eos_id for h in hyps2 for t in h["ids"]))
        with self.assertRaises(ValueError):
            ms.beam_search(m, src, 4, scorer=sc, candidates=[m.eos_id, m.unk_id, 30])


class TestFixtures(unittest.TestCase):
    """The files reproduce from each other and the goldens from the files."""

    def check(self, name):
        m = ref.load_model(os.path.join(MODELS, name))
        d = os.path.join(SHORTLISTS, name)
        with open(os.path.join(GOLDEN, "shortlist.%s.json" % name), encoding="utf-8") as fh:
            g = json.load(fh)
        vs, vt = sl.MarianVocab.from_ref(m.src_vocab), sl.MarianVocab.from_ref(m.tgt_vocab)
        entries = sl.read_marian_text(os.path.join(d, "lex.s2t"), vs, vt)
        table = sl.text_table(entries)
        with open(os.path.join(d, "lex.s2t.bin"), "rb") as fh:
            blob = fh.read()
        conf = {c["name"]: c for c in g["shortlists"]}
        # the .bin is byte for byte what marian-conv --shortlist lex.s2t 10 5 would write
        self.assertEqual(sl.marian_binary_bytes(sl.marian_import(entries, m.src_vocab.size, 10, 5)), blob)
        binary = sl.read_marian_binary(blob, target_vocab_size=m.V)
        ct2v = sl.CT2Vocab.from_ref(m.tgt_vocab)
        vmap = sl.read_vmap(os.path.join(d, "vmap.txt"), ct2v)
        srcs = [s["src_ids"] for s in g["sentences"]]
        toks = [s["source_tokens"] for s in g["sentences"]]
        self.assertEqual([[vs[t] for t in ts] + [m.src_vocab.eos] for ts in toks], srcs)
        t = conf["text"]
        for b in t["batches"]:
            batch = [srcs[i] for i in b["sentences"]]
            self.assertEqual(sl.marian_candidates(table, batch, m.V, t["first"], t["best"],
                                                  t["threshold"], t["shared"]), b["candidates"])
            self.assertEqual(len(b["candidates"]) % 8, 0)
        for b, b0 in zip(conf["binary"]["batches"], t["batches"]):
            batch = [srcs[i] for i in b["sentences"]]
            self.assertEqual(sl.binary_candidates(binary, batch, m.V, conf["binary"]["shared"]),
                             b["candidates"])
            self.assertEqual(sl.marian_candidates(table, batch, m.V, 10, 5, 0.0, t["shared"]),
                             b["candidates"])
        v = conf["vmap"]
        for b in v["batches"]:
            self.assertEqual(sl.ct2_candidates(vmap, [toks[i] for i in b["sentences"]],
                                               [v["target_prefix_ids"][i] for i in b["sentences"]]),
                             b["candidates"])
        # translations reproduce; the shortlist changes at least one of them
        scorers = [ms.ModelScorer(m, s) for s in srcs]
        n_changed = 0
        for c in g["shortlists"]:
            cands = {"single": {b["sentences"][0]: b["candidates"] for b in c["batches"]
                                if len(b["sentences"]) == 1},
                     "joint": {i: c["batches"][-1]["candidates"] for i in range(len(srcs))}}
            for r in c["runs"]:
                for i, (s, sc) in enumerate(zip(srcs, scorers)):
                    hyps = ms.beam_search(m, s, r["beam_size"], normalize=r["normalize"], scorer=sc,
                                          candidates=cands[r["batching"]][i])
                    got = [{"ids": h["ids"], "token_logprobs": [float(x) for x in h["token_logprobs"]],
                            "score": float(h["score"]), "normalized": float(h["normalized"])}
                           for h in hyps]
                    self.assertEqual(got, r["results"][i], (name, c["name"], r["batching"], i))
                n_changed += sum(r["changed"])
        self.assertGreater(n_changed, 0)

    def test_prenorm(self):
        self.check(FIXTURES[0])

    def test_ymlids(self):
        self.check(FIXTURES[1])


if __name__ == "__main__":
    unittest.main()
