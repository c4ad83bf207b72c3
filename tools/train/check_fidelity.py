#!/usr/bin/python3
"""Export fidelity: the PyTorch model's greedy translations equal s2s's, token for token.

    /usr/bin/python3 tools/train/check_fidelity.py --work WORK --model models/en-de \
        --s2s build/s2s [--n 1500] [--write-fixture tests/data/en-de/fidelity.tsv --fixture-n 40]

Decodes WORK/test.en with the averaged PyTorch model that export_marian.py saved (WORK/export.pt,
float32, greedy, <unk> never chosen, at most ceil(3 x source length) tokens as in s2s and Marian)
and with `s2s translate --format jsonl -m MODEL` running the model alone (S2S_MODEL_ONLY), and
compares the target pieces. With --write-fixture, the first --fixture-n sources and PyTorch's
pieces are written as "source<TAB>piece piece ..." lines for the CI test
(tests/app/test_default_model.cc, which runs s2s with the same options), which needs no PyTorch.
"""
import argparse
import json
import os
import subprocess
import sys

import sentencepiece as spm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from model import MarianTransformer  # noqa: E402
from train import EOS, read_lines  # noqa: E402


def torch_greedy(work, lines, batch=32):
    state = torch.load(os.path.join(work, "export.pt"))
    c = state["config"]
    model = MarianTransformer(c["vocab"], c["dim"], c["heads"], c["dim_ffn"], c["enc_depth"],
                              c["dec_depth"], dropout=0.0)
    model.load_state_dict(state["model"])
    model.eval()
    sp = spm.SentencePieceProcessor(model_file=os.path.join(work, "spm.model"))
    enc = [sp.encode(l) + [EOS] for l in lines]
    out = [None] * len(lines)
    order = sorted(range(len(lines)), key=lambda i: len(enc[i]))
    for k in range(0, len(order), batch):
        idx = order[k:k + batch]
        S = max(len(enc[i]) for i in idx)
        src = torch.zeros(len(idx), S, dtype=torch.long)
        mask = torch.zeros(len(idx), S, dtype=torch.bool)
        for b, i in enumerate(idx):
            src[b, :len(enc[i])] = torch.tensor(enc[i])
            mask[b, :len(enc[i])] = True
        max_len = torch.tensor([3 * len(enc[i]) for i in idx])
        for i, ids in zip(idx, model.greedy(src, mask, max_len)):
            out[i] = [sp.id_to_piece(t) for t in ids]
    return out


# The model alone, as marian-decoder runs it: each line one unit (PyTorch reads lines whole; s2s
# would cut one of several sentences into units), as it is (no placeholder masking), one search
# (no retry of a short translation with a wider beam). --max-length 1000 (Marian's default):
# s2s's own 256 would cut a translation that loops on (6 of 1,500 test sentences with the second
# edition) before PyTorch's 3 x source cap does.
S2S_MODEL_ONLY = ["-b", "1", "--sentence-split", "off", "--protect", "off",
                  "--short-translations", "off", "--max-length", "1000"]


def s2s_greedy(binary, model, lines):
    res = subprocess.run([binary, "translate", "-m", model, "--format", "jsonl", "--quiet"]
                         + S2S_MODEL_ONLY, input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    return [[t for t in json.loads(l)["tokens"] if t != "</s>"] for l in res.stdout.splitlines()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--s2s", required=True)
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--write-fixture")
    ap.add_argument("--fixture-n", type=int, default=40)
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))

    lines = read_lines(os.path.join(args.work, "test.en"))[:args.n]
    ours = torch_greedy(args.work, lines)
    theirs = s2s_greedy(args.s2s, args.model, lines)
    same = sum(a == b for a, b in zip(ours, theirs))
    print(f"greedy token sequences identical: {same} of {len(lines)}")
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            k = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]), min(len(a), len(b)))
            print(f"  line {i + 1} differs at token {k}: torch {a[k:k + 3]} s2s {b[k:k + 3]}")
    if args.write_fixture:
        os.makedirs(os.path.dirname(args.write_fixture), exist_ok=True)
        with open(args.write_fixture, "w", encoding="utf-8", newline="\n") as f:
            for src, pieces in list(zip(lines, ours))[:args.fixture_n]:
                f.write(src + "\t" + " ".join(pieces) + "\n")
    sys.exit(0 if same == len(lines) else 1)


if __name__ == "__main__":
    main()
