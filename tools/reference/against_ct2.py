#!/usr/bin/python3
"""s2s against a real CTranslate2 on the CTranslate2 fixtures of NLLB-200 and M2M-100.

    CT2_PREFIX=/work/ct2/prefix /usr/bin/python3 tools/reference/against_ct2.py build/s2s

The fixtures' model.bin files are written by our own emulation of CTranslate2's converter
(tools/fixtures/make_m2m100_ct2_fixtures.py), and CTest checks s2s on them against the numpy
reference. This script closes the loop where CTranslate2 is built (bench/README.md, "CTranslate2
for the comparison"; CI has none): ct2-translator loads the same folders and translates the same
sentences, given the tokens NLLB's and M2M-100's tokenizers give CTranslate2's users (source
language first and </s> last, or `text </s> src_lang` for a legacy_behaviour tokenizer; the
target language as target prefix). For greedy and beam 4 it compares each line's tokens and
score with `s2s translate --format jsonl` and prints one row per fixture and search; exit 1 when,
on a float32 fixture, a token differs or a score differs by more than 1e-3 (CTranslate2 prints
scores with 4 decimals). The int8 fixture is reported only: both engines quantize the activations
of each product at run time, each its own way (scales, rounding, VNNI's unsigned input), so the
two int8 results are two approximations of the same float model, not one computation.
"""

import json
import os
import subprocess
import sys
import tempfile

import sentencepiece

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "tests", "data", "models")
SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Hello world.",
    "This is a test of the translation system.",
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software.",
]
# (fixture, source language, target language, whether both engines compute the same thing)
FIXTURES = [
    ("ct2-nllb-tied", "eng_Latn", "deu_Latn", True),
    ("ct2-nllb-untied-legacy", "eng_Latn", "fra_Latn", True),
    ("ct2-m2m100-tied", "en", "de", True),
    ("ct2-nllb-int8", "eng_Latn", "deu_Latn", False),
]
MAX_LENGTH = 80  # decoder steps, the forced target language included
TOLERANCE = 1e-3


def language_token(code):
    return code if "_" in code else "__%s__" % code


def legacy(folder):
    path = os.path.join(folder, "tokenizer_config.json")
    return os.path.exists(path) and json.load(open(path)).get("legacy_behaviour", False)


def ct2_source(folder, lang):
    """Each sentence as the family's tokenizer gives it to CTranslate2's users."""
    sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, "sentencepiece.bpe.model"))
    lines = []
    for sentence in SENTENCES:
        pieces = sp.encode(sentence, out_type=str)
        tokens = pieces + ["</s>", language_token(lang)] if legacy(folder) else \
            [language_token(lang)] + pieces + ["</s>"]
        lines.append(" ".join(tokens))
    return lines


def run_ct2(ct2, folder, src, tgt, beam, work):
    src_file, prefix_file = os.path.join(work, "src.sp"), os.path.join(work, "prefix.sp")
    with open(src_file, "w") as fh:
        fh.write("\n".join(ct2_source(folder, src)) + "\n")
    with open(prefix_file, "w") as fh:
        fh.write((language_token(tgt) + "\n") * len(SENTENCES))
    out = subprocess.run([ct2, "--model", folder, "--src", src_file, "--tgt", prefix_file,
                          "--beam_size", str(beam), "--length_penalty", "0", "--with_score",
                          "--max_decoding_length", str(MAX_LENGTH), "--intra_threads", "1"],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        score, tokens = line.split(" ||| ", 1) if " ||| " in line else ("nan", line)
        tokens = tokens.split()
        if tokens and tokens[0] == language_token(tgt):
            tokens = tokens[1:]  # the prefix, which s2s leaves out of its tokens
        rows.append((tokens, float(score)))
    return rows


def run_s2s(s2s, folder, src, tgt, beam, work):
    text = os.path.join(work, "src.txt")
    with open(text, "w") as fh:
        fh.write("\n".join(SENTENCES) + "\n")
    out = subprocess.run([s2s, "translate", "-m", folder, "--source-lang", src, "--target-lang", tgt,
                          "-b", str(beam), "--normalize", "0", "--format", "jsonl", "--quiet",
                          "--sentence-split", "off", "--protect", "off", "--short-translations", "off",
                          "--max-length-factor", "100", "--max-length", str(MAX_LENGTH),
                          "--threads", "1", "-i", text],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        d = json.loads(line)
        tokens = d["tokens"]
        rows.append((tokens[:-1] if tokens and tokens[-1] == "</s>" else tokens, d["score"]))
    return rows


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    s2s = sys.argv[1]
    prefix = os.environ.get("CT2_PREFIX", "/work/ct2/prefix")
    ct2 = os.path.join(prefix, "bin", "ct2-translator")
    if not os.access(ct2, os.X_OK):
        raise SystemExit("no ct2-translator in %s/bin: build CTranslate2 as bench/README.md says" % prefix)
    os.environ["LD_LIBRARY_PATH"] = os.path.join(prefix, "lib")
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        for name, src, tgt, exact in FIXTURES:
            folder = os.path.join(MODELS, name)
            for beam in (1, 4):
                theirs = run_ct2(ct2, folder, src, tgt, beam, work)
                ours = run_s2s(s2s, folder, src, tgt, beam, work)
                same = sum(a[0] == b[0] for a, b in zip(ours, theirs))
                diff = max(abs(a[1] - b[1]) for a, b in zip(ours, theirs))
                ok = same == len(SENTENCES) and diff <= TOLERANCE
                bad += exact and not ok
                verdict = ("ok" if ok else "DIFFERENT") if exact else "reported only"
                print("%-24s beam %d  tokens equal %d/%d  largest score difference %.2e  %s" % (
                    name, beam, same, len(SENTENCES), diff, verdict))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
