#!/usr/bin/python3
"""Fixed-length input for the CTranslate2 comparison (bench/peers.sh, bench/README.md).

Cuts the bench sentences into lines of exactly LENGTH (default 28) SentencePiece pieces, so that
on the bench model (whose </s> is unreachable) s2s with --max-length-factor 3 decodes exactly
ceil(3 x (LENGTH + 1)) = 87 tokens per line and CT2 with --max_decoding_length 87 does the same
work, token for token.

The sentences are encoded one by one and their pieces joined into one stream. A chunk is the
LENGTH pieces that start at a word start (a piece beginning with U+2581); it is kept only when its
text, detokenized and encoded again on its own, gives exactly the same LENGTH pieces (so s2s, which
reads the text, and CT2, which reads the pieces, see the same input), and when that text has no
leading or trailing white space. The next chunk starts at the first word start after a kept one;
after a dropped one, at the next word start.

Writes N lines (default 128) as raw text (for s2s) and as space-separated pieces (for CT2, as
spm_encode writes them), and prints how many it made on stderr. Fails when the sentences give
fewer than N chunks.

Needs only Debian's python3-sentencepiece:
  /usr/bin/python3 bench/fixed_length_input.py --spm MODEL/source.spm --sentences MODEL/sentences.txt \
      --text OUT.txt --pieces OUT.sp [--lines 128] [--length 28]
"""

import argparse
import sys

import sentencepiece

WORD_START = "\u2581"


def chunks(sp, sentences, length):
    """Yield (text, pieces) chunks of exactly `length` pieces, as the module docstring says."""
    stream = []
    for sentence in sentences:
        sentence = sentence.strip()
        if sentence:
            stream.extend(sp.encode(sentence, out_type=str))
    i = 0
    while i + length <= len(stream):
        if not stream[i].startswith(WORD_START):
            i += 1
            continue
        pieces = stream[i:i + length]
        text = sp.decode(pieces)
        if text == text.strip() and "\t" not in text and sp.encode(text, out_type=str) == pieces:
            yield text, pieces
            i += length
        else:
            i += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spm", default="/tmp/s2s-bench-model/source.spm",
                        help="source SentencePiece model (default: %(default)s)")
    parser.add_argument("--sentences", default="/tmp/s2s-bench-model/sentences.txt",
                        help="sentences, one per line (default: %(default)s)")
    parser.add_argument("--text", required=True, help="output: raw text lines (for s2s)")
    parser.add_argument("--pieces", required=True,
                        help="output: the same lines as space-separated pieces (for CT2)")
    parser.add_argument("--lines", type=int, default=128, help="lines to write (default: %(default)s)")
    parser.add_argument("--length", type=int, default=28,
                        help="pieces per line, </s> not counted (default: %(default)s)")
    args = parser.parse_args()

    sp = sentencepiece.SentencePieceProcessor(model_file=args.spm)
    with open(args.sentences, encoding="utf-8") as f:
        sentences = f.read().splitlines()

    made = []
    for chunk in chunks(sp, sentences, args.length):
        made.append(chunk)
        if len(made) == args.lines:
            break
    if len(made) < args.lines:
        sys.exit(f"fixed_length_input.py: {args.sentences} gives only {len(made)} lines of "
                 f"{args.length} pieces, {args.lines} asked")
    with open(args.text, "w", encoding="utf-8") as text, \
            open(args.pieces, "w", encoding="utf-8") as pieces:
        for t, p in made:
            text.write(t + "\n")
            pieces.write(" ".join(p) + "\n")
    print(f"fixed_length_input.py: {len(made)} lines of exactly {args.length} pieces "
          f"({args.length + 1} with </s>) from {args.sentences}", file=sys.stderr)


if __name__ == "__main__":
    main()
