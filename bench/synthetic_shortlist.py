#!/usr/bin/python3
"""A shortlist of realistic size for a random model, in both engines' formats (bench/peers.sh).

    /usr/bin/python3 bench/synthetic_shortlist.py --vocab MODEL/vocab.yml|shared_vocabulary.json --out DIR [--first 50] [--best 50]

The bench models are random, so no corpus says which target pieces translate which source piece;
only the size of the candidate set matters for speed. Every source piece gets `best` distinct
random target ids (seeded), the same lists in both files:
  DIR/lex.s2t   Marian's text shortlist, `TARGET SOURCE PROB` (read with --shortlist DIR/lex.s2t
                FIRST BEST: ids 0..FIRST-1 plus each source piece's list)
  DIR/vmap.txt  CTranslate2's vocabulary map: the same lists as 1-gram keys, and an empty key
                listing ids 0..FIRST-1 (always candidates, as Marian's `first` ids are)
so that a batch's candidates are the same set in both engines but for Marian's padding to a
multiple of 8 and CTranslate2's fixed <unk>, <s>, </s>. Bergamot ships its models with first 50,
best 50. Needs Debian's python3-yaml.
"""

import argparse
import json
import os
import random

import yaml


def read_vocab(path):
    """The pieces of a Marian vocab.yml (`piece: id`), by id, every scalar read as a string
    (yaml.BaseLoader: pieces such as `yes` or `1` stay pieces); or of a CTranslate2
    shared_vocabulary.json (a list)."""
    with open(path, encoding="utf-8") as fh:
        if path.endswith(".json"):
            return json.load(fh)
        entries = yaml.load(fh, Loader=yaml.BaseLoader)
    by_id = {int(ident): piece for piece, ident in entries.items()}
    return [by_id[i] for i in sorted(by_id)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", required=True, help="the model's shared vocabulary: vocab.yml or shared_vocabulary.json")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--first", type=int, default=50)
    parser.add_argument("--best", type=int, default=50)
    args = parser.parse_args()
    pieces = read_vocab(args.vocab)
    rng = random.Random(50)
    os.makedirs(args.out, exist_ok=True)
    usable = [p for p in pieces if p and " " not in p and "\t" not in p]
    with open(os.path.join(args.out, "lex.s2t"), "w", encoding="utf-8") as lex, \
            open(os.path.join(args.out, "vmap.txt"), "w", encoding="utf-8") as vmap:
        vmap.write("\t" + " ".join(pieces[i] for i in range(args.first)) + "\n")
        for source in usable:
            targets = rng.sample(usable, args.best)
            for rank, target in enumerate(targets):
                lex.write("%s %s %.6f\n" % (target, source, 1.0 / (rank + 2)))
            vmap.write(source + "\t" + " ".join(targets) + "\n")
    print("bench/synthetic_shortlist.py: %d source pieces x %d targets, first %d, in %s" % (
        len(usable), args.best, args.first, args.out))


if __name__ == "__main__":
    main()
