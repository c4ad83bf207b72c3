#!/usr/bin/python3
"""The joint SentencePiece vocabulary of the default model, with byte_fallback.

byte_fallback gives each of the 256 UTF-8 bytes a piece (<0x00>..<0xFF>): a character the
vocabulary has no piece for is spelled as its bytes instead of <unk>, so the model can read and
copy any text ('€', '\\', emoji, CJK), and s2s decodes the bytes back to the character.  The rest
is the recipe train.py uses for its own vocabulary (unigram, Marian's ids: </s> 0, <unk> 1, no
<s>, no <pad>; nmt_nfkc normalization; a sample of 1M lines of train.en + train.de), so
train.py takes the written WORK/spm.model as it is (it trains its own only when none exists).

    /usr/bin/python3 tools/train/train_spm.py --work /work/s2s-data4 [--vocab 8000]
    /usr/bin/python3 tools/train/train_spm.py --report tests/data/text/software-strings.tsv \\
        models/en-de/source.spm /work/s2s-data4/spm.model

--report prints, for each model, the share of the file's lines (tab-separated: kind, English,
German, ...) whose English or German side encodes to any <unk>.
"""
import argparse
import io
import os
import random

import sentencepiece as spm

EOS, UNK = 0, 1
SAMPLE_LINES = 1_000_000
SEED = 20261128


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def train(work, vocab_size, threads):
    lines = read_lines(os.path.join(work, "train.en")) + read_lines(os.path.join(work, "train.de"))
    # The sample is drawn here with a fixed seed (SentencePiece's own shuffle is not seeded), so
    # that the same corpus gives the same vocabulary.
    if len(lines) > SAMPLE_LINES:
        lines = random.Random(SEED).sample(lines, SAMPLE_LINES)
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, model_type="unigram",
        vocab_size=vocab_size, character_coverage=0.9995, byte_fallback=True,
        bos_id=-1, eos_id=EOS, unk_id=UNK, pad_id=-1, input_sentence_size=SAMPLE_LINES,
        shuffle_input_sentence=False, num_threads=threads, minloglevel=1)
    path = os.path.join(work, "spm.model")
    with open(path + ".tmp", "wb") as f:
        f.write(buf.getvalue())
    os.replace(path + ".tmp", path)
    sp = spm.SentencePieceProcessor(model_file=path)
    n_bytes = sum(sp.is_byte(i) for i in range(sp.get_piece_size()))
    print(f"{path}: {sp.get_piece_size()} pieces, {n_bytes} byte pieces")


def unk_share(model, tsv):
    """(lines with any <unk> on either side, lines) of a tab-separated file."""
    sp = spm.SentencePieceProcessor(model_file=model)
    bad = total = 0
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3:
                continue
            total += 1
            bad += any(sp.unk_id() in sp.encode(side) for side in cols[1:3])
    return bad, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", help="corpus folder (train.en, train.de); spm.model is written there")
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--report", metavar="TSV", help="measure models on TSV instead of training")
    ap.add_argument("models", nargs="*", help="SentencePiece models for --report")
    args = ap.parse_args()
    if args.report:
        for model in args.models:
            bad, total = unk_share(model, args.report)
            print(f"{model}: {bad} of {total} lines with <unk> ({100 * bad / max(1, total):.1f} %)")
    elif args.work:
        train(args.work, args.vocab, args.threads)
    else:
        ap.error("give --work DIR (train) or --report TSV MODEL... (measure)")


if __name__ == "__main__":
    main()
