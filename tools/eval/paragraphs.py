#!/usr/bin/python3
"""Paragraphs against sentences: what s2s loses when a line holds several sentences.

    /usr/bin/python3 tools/eval/paragraphs.py --work WORK --s2s build/s2s [--model models/en-de] \
        [--sets test,test-msg,test-doc] [--sizes 2,30] [--seed 1] [--extra "-b 4"]

For each held-out set (WORK/SET.en, WORK/SET.de, one sentence a line, as tools/data builds them),
consecutive sentences are joined with one space into paragraphs of SIZES[0]..SIZES[1] sentences
(sizes drawn with SEED), and s2s translates three ways: the sentences one per line, the paragraphs
as they are (sentences by default), and the paragraphs with --sentence-split off (one unit a
line, as marian-decoder and CTranslate2 read them). Scored against the references joined the same
way (tools/eval/metrics.py, chrF2), with the sentence-level translations joined into the same
paragraphs as the baseline. "ends" counts sentence-final punctuation (. ! ? :) in the output
against the source's: a paragraph that comes back with fewer has lost sentences.

Prints one markdown row per set and mode, plus the short-translation check's flags
(`--format jsonl` "short") of the sentence-level run, and keeps the outputs in WORK/para.*.
"""
import argparse
import json
import os
import random
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import metrics  # noqa: E402

ENDS = ".!?:"


def sentence_ends(text):
    """Sentence-final punctuation marks followed by a space or the end."""
    return sum(1 for i, c in enumerate(text) if c in ENDS and (i + 1 == len(text) or text[i + 1] == " "))


def paragraphs(n, low, high, seed):
    """[(start, end)] covering range(n) with sizes in [low, high]."""
    rng = random.Random(seed)
    out, start = [], 0
    while start < n:
        end = min(n, start + rng.randint(low, high))
        out.append((start, end))
        start = end
    return out


def translate(s2s, model, lines, extra, jsonl=False):
    cmd = [s2s, "translate", "-m", model, "--quiet"] + shlex.split(extra)
    if jsonl:
        cmd += ["--format", "jsonl"]
    out = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    return out.stdout.rstrip("\n").split("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--s2s", required=True)
    ap.add_argument("--model", default=os.path.join(HERE, "..", "..", "models", "en-de"))
    ap.add_argument("--sets", default="test,test-msg,test-doc")
    ap.add_argument("--sizes", default="2,30")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extra", default="")
    args = ap.parse_args()
    low, high = (int(x) for x in args.sizes.split(","))

    print("| set | mode | paragraphs | chrF2 | vs sentences | ends out / in | paragraphs with fewer ends |")
    print("|---|---|---|---|---|---|---|")
    for test_set in args.sets.split(","):
        src_path = os.path.join(args.work, f"{test_set}.en")
        if not os.path.exists(src_path):
            continue
        src = metrics.read_lines(src_path)
        ref = metrics.read_lines(os.path.join(args.work, f"{test_set}.de"))
        spans = paragraphs(len(src), low, high, args.seed)
        para_src = [" ".join(src[a:b]) for a, b in spans]
        para_ref = [" ".join(ref[a:b]) for a, b in spans]
        records = [json.loads(r) for r in translate(args.s2s, args.model, src, args.extra, jsonl=True)]
        sent_hyp = [r["translation"] for r in records]
        flagged = sum(1 for r in records if "short" in r)
        joined = [" ".join(sent_hyp[a:b]) for a, b in spans]
        runs = {
            "sentences, joined": joined,
            "paragraphs (default)": translate(args.s2s, args.model, para_src, args.extra),
            "paragraphs, --sentence-split off": translate(
                args.s2s, args.model, para_src, args.extra + " --sentence-split off"),
        }
        base = metrics.corpus_chrf(joined, [para_ref])
        source_ends = sum(sentence_ends(p) for p in para_src)
        for mode, hyp in runs.items():
            chrf = metrics.corpus_chrf(hyp, [para_ref])
            fewer = sum(1 for h, p in zip(hyp, para_src) if sentence_ends(h) < sentence_ends(p))
            out_ends = sum(sentence_ends(h) for h in hyp)
            with open(os.path.join(args.work, f"para.{test_set}.{mode.split()[0].strip(',')}.de"), "w") as f:
                f.write("\n".join(hyp) + "\n")
            print(f"| {test_set} | {mode} | {len(spans)} | {chrf:.2f} | {chrf - base:+.2f} | "
                  f"{out_ends} / {source_ends} | {fewer} |")
        print(f"| {test_set} | short-translation check, sentence level | {len(src)} sentences | "
              f"{flagged} flagged | | | |")


if __name__ == "__main__":
    main()
