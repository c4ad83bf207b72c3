#!/usr/bin/python3
"""BLEU and chrF2 of s2s on the held-out test sets, greedy and beam search.

    /usr/bin/python3 tools/train/evaluate.py --work WORK --model models/en-de --s2s build/s2s \
        [--beams 1,4] [--sets test,test-msg,test-doc] [--extra "--threads 2"]

Translates WORK/SET.en with `s2s translate -b B` for each test set and beam size, scores against
WORK/SET.de with tools/eval/metrics.py (sacreBLEU's default BLEU and chrF2) and prints one
markdown table row each, with the wall time of the translate run. Sets missing from WORK (the
first corpus has only `test`) are skipped. Hypotheses are kept in WORK/hyp.SET.bB.de
(WORK/hyp.bB.de for `test`).
"""
import argparse
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "eval"))
import metrics  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--s2s", required=True)
    ap.add_argument("--beams", default="1,4")
    ap.add_argument("--sets", default="test,test-msg,test-doc",
                    help="test sets: descriptions (test), catalog messages, documentation")
    ap.add_argument("--extra", default="", help="more s2s translate options, e.g. --threads 2")
    args = ap.parse_args()

    print("| test set | search | BLEU | chrF2 | sentences | seconds |")
    print("|---|---|---|---|---|---|")
    for test_set in args.sets.split(","):
        src = os.path.join(args.work, f"{test_set}.en")
        if not os.path.exists(src):
            print(f"# {src}: missing, skipped", file=sys.stderr)
            continue
        refs = metrics.read_lines(os.path.join(args.work, f"{test_set}.de"))
        for beam in (int(b) for b in args.beams.split(",")):
            prefix = "hyp" if test_set == "test" else f"hyp.{test_set}"
            hyp_path = os.path.join(args.work, f"{prefix}.b{beam}.de")
            cmd = [args.s2s, "translate", "-m", args.model, "-b", str(beam), "-i", src,
                   "-o", hyp_path, "--quiet"] + shlex.split(args.extra)
            t0 = time.time()
            subprocess.run(cmd, check=True)
            seconds = time.time() - t0
            hyps = metrics.read_lines(hyp_path)
            bleu = metrics.corpus_bleu(hyps, [refs])
            chrf = metrics.corpus_chrf(hyps, [refs])
            name = "greedy" if beam == 1 else f"beam {beam}"
            print(f"| {test_set} | {name} | {bleu['score']:.2f} | {chrf:.2f} | "
                  f"{len(hyps)} | {seconds:.1f} |", flush=True)

if __name__ == "__main__":
    main()
