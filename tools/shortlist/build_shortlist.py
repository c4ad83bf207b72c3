#!/usr/bin/python3
"""Builds a lexical shortlist for a model from a parallel corpus.

    /usr/bin/python3 tools/shortlist/build_shortlist.py \
        --source-spm MODEL/source.spm --target-spm MODEL/target.spm \
        --source CORPUS.src --target CORPUS.tgt --out lex.s2t \
        [--method ibm1|cooc] [--iterations 5] [--max-lines N] [--min-prob 0.001] \
        [--vmap vmap.txt --vmap-best 20 --vmap-common 100]

Both sides are cut into the model's SentencePiece pieces; p(target piece | source piece) is
estimated by IBM Model 1 (EM with a NULL source word; default) or by co-occurrence counts
(`cooc`), and written in the text format of Marian's `--shortlist lex.s2t first best
[threshold]`: one `TARGET SOURCE PROB` line per pair (what Marian's extract_lex writes), sorted
by source piece then probability descending. `--vmap` also writes CTranslate2's vocabulary map
(`SOURCE<TAB>t1 t2 ...`, plus the line of always-allowed targets under the empty key).
See tools/shortlist/README.md. Needs numpy and sentencepiece; one core.
"""

import argparse
import gzip
import itertools
import os
import sys
import tempfile
import time

import numpy as np

# Instances (a target token paired with one source token or NULL) per chunk of the E-step, and
# how many instances' pair indices are kept in memory between iterations (4 bytes each); beyond
# that the indices are looked up again each iteration (slower, same result).
CHUNK_INSTANCES = 8_000_000
CACHE_INSTANCES = 200_000_000
ENCODE_BATCH = 20_000


class Failure(Exception):
    """An error reported as one line on standard error, exit status 1."""


def log(message):
    print("build_shortlist: " + message, file=sys.stderr, flush=True)


def open_text(path):
    if not os.path.isfile(path):
        raise Failure("no such file: %s" % path)
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")
    return open(path, encoding="utf-8", newline="\n")


def read_pairs(source_path, target_path, max_lines):
    """The first max_lines line pairs (all when None); the two files must have as many lines."""
    sources, targets = [], []
    count = 0
    try:
        with open_text(source_path) as fs, open_text(target_path) as ft:
            for s, t in itertools.zip_longest(fs, ft):
                if s is None or t is None:
                    rest = sum(1 for _ in (ft if s is None else fs))
                    longer = target_path if s is None else source_path
                    shorter = source_path if s is None else target_path
                    raise Failure("mismatched line counts: %s has %d lines, %s has %d"
                                  % (shorter, count, longer, count + 1 + rest))
                count += 1
                if max_lines is None or count <= max_lines:
                    sources.append(s.rstrip("\r\n"))
                    targets.append(t.rstrip("\r\n"))
    except UnicodeDecodeError as error:
        raise Failure("not UTF-8 text (%s)" % error) from None
    except OSError as error:
        raise Failure("cannot read the corpus: %s" % error) from None
    if count == 0:
        raise Failure("empty corpus: %s and %s have no lines" % (source_path, target_path))
    return sources, targets, count


def load_spm(path):
    import sentencepiece as spm
    if not os.path.isfile(path):
        raise Failure("no such file: %s" % path)
    try:
        return spm.SentencePieceProcessor(model_file=path)
    except (OSError, RuntimeError) as error:
        raise Failure("not a SentencePiece model: %s (%s)" % (path, str(error).splitlines()[0]))


def encode(sp, lines):
    """Flat int32 piece ids and per-line lengths."""
    flat, lengths = [], np.empty(len(lines), dtype=np.int64)
    for start in range(0, len(lines), ENCODE_BATCH):
        batch = sp.encode(lines[start:start + ENCODE_BATCH])
        lengths[start:start + len(batch)] = [len(ids) for ids in batch]
        flat.append(np.fromiter(itertools.chain.from_iterable(batch), dtype=np.int32))
    return (np.concatenate(flat) if flat else np.zeros(0, np.int32)), lengths


class Corpus:
    """Piece ids of the usable pairs (both sides non-empty), as flat arrays with offsets."""

    def __init__(self, src_flat, src_len, tgt_flat, tgt_len, src_vocab, tgt_vocab):
        keep = (src_len > 0) & (tgt_len > 0)
        self.skipped = int((~keep).sum())
        self.src_flat = src_flat[np.repeat(keep, src_len)]
        self.tgt_flat = tgt_flat[np.repeat(keep, tgt_len)]
        self.src_len = src_len[keep]
        self.tgt_len = tgt_len[keep]
        self.src_off = np.concatenate(([0], np.cumsum(self.src_len)))
        self.tgt_off = np.concatenate(([0], np.cumsum(self.tgt_len)))
        self.size = len(self.src_len)
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        self.null = src_vocab  # the NULL source word's id

    def chunks(self):
        """Sentence ranges of about CHUNK_INSTANCES instances each."""
        work = np.cumsum((self.src_len + 1) * self.tgt_len)
        bounds, start = [], 0
        while start < self.size:
            base = work[start - 1] if start else 0
            end = int(np.searchsorted(work, base + CHUNK_INSTANCES, side="right"))
            end = max(end, start + 1)
            bounds.append((start, end))
            start = end
        return bounds

    def instances(self, a, b):
        """The instances of sentences a..b-1, target token by target token: each target token
        paired with every source token of its sentence and with NULL (first). Returns the pair
        key (source * target_vocab + target) of each instance and the first instance of each
        target token."""
        m = b - a
        src_len, tgt_len = self.src_len[a:b], self.tgt_len[a:b]
        ls = src_len + 1
        ext_off = np.cumsum(ls) - ls
        src_ext = np.full(int(ls.sum()), self.null, dtype=np.int64)
        tokens = self.src_flat[self.src_off[a]:self.src_off[b]]
        src_ext[np.arange(len(tokens)) + np.repeat(np.arange(m), src_len) + 1] = tokens
        tgt = self.tgt_flat[self.tgt_off[a]:self.tgt_off[b]].astype(np.int64)
        sent_t = np.repeat(np.arange(m), tgt_len)
        reps = ls[sent_t]
        inst_start = np.cumsum(reps) - reps
        token = token_of_instance(inst_start, int(reps.sum()))
        src = src_ext[(ext_off[sent_t] - inst_start)[token] + np.arange(len(token))]
        keys = src * self.tgt_vocab + tgt[token]
        return keys, inst_start


def token_of_instance(inst_start, total):
    """For each instance, the index of its target token (inst_start: first instance of each)."""
    marks = np.zeros(total, dtype=np.int32)
    marks[inst_start[1:]] = 1
    return np.cumsum(marks, dtype=np.int32)


class PairIndex:
    """The distinct (source, target) pairs seen, sorted by key, and the lookup of a key's
    position. With a small vocabulary (source * target entries up to DENSE_ENTRIES) a dense
    table does both; otherwise sorting and binary search (slower, same result)."""

    DENSE_ENTRIES = 1 << 27

    def __init__(self, size):
        self.dense = size <= self.DENSE_ENTRIES
        self.size = size
        self.seen = np.zeros(size, dtype=bool) if self.dense else np.zeros(0, dtype=np.int64)

    def add(self, keys):
        if self.dense:
            self.seen[keys] = True
        else:
            self.seen = np.union1d(self.seen, np.unique(keys))

    def finish(self):
        if self.dense:
            self.keys = np.flatnonzero(self.seen).astype(np.int64)
            self.seen = None
            self.table = np.zeros(self.size, dtype=np.int32)
            self.table[self.keys] = np.arange(len(self.keys), dtype=np.int32)
        else:
            self.keys, self.seen = self.seen, None
        return self.keys

    def lookup(self, keys):
        if self.dense:
            return self.table[keys]
        return np.searchsorted(self.keys, keys).astype(np.int32)


def estimate(corpus, method, iterations):
    """Sorted pair keys and p(target | source) of each (the NULL source's row included)."""
    chunks = corpus.chunks()
    t0 = time.time()
    index = PairIndex((corpus.src_vocab + 1) * corpus.tgt_vocab)
    null_min = corpus.null * corpus.tgt_vocab  # keys from here on have the NULL source
    for a, b in chunks:
        keys, _ = corpus.instances(a, b)
        index.add(keys[keys < null_min] if method == "cooc" else keys)
    pairs = index.finish()
    log("%d distinct (source, target) piece pairs in %d chunk(s) of up to %d instances, %.1f s"
        % (len(pairs), len(chunks), CHUNK_INSTANCES, time.time() - t0))
    src_of_pair = pairs // corpus.tgt_vocab
    if method == "cooc":
        counts = np.zeros(len(pairs))
        for a, b in chunks:
            keys, _ = corpus.instances(a, b)
            counts += np.bincount(index.lookup(keys[keys < null_min]), minlength=len(pairs))
        totals = np.bincount(src_of_pair, weights=counts, minlength=corpus.src_vocab + 1)
        return pairs, counts / totals[src_of_pair]

    prob = np.ones(len(pairs))  # uniform start: the first E-step splits each target token evenly
    cache, cached = {}, 0
    tokens = int(corpus.tgt_len.sum())
    for iteration in range(1, iterations + 1):
        t1 = time.time()
        counts = np.zeros(len(pairs))
        loglik = 0.0
        for a, b in chunks:
            if (a, b) in cache:
                pair, inst_start = cache[(a, b)]
            else:
                keys, inst_start = corpus.instances(a, b)
                pair = index.lookup(keys)
                del keys
                if cached + len(pair) <= CACHE_INSTANCES:
                    cache[(a, b)] = (pair, inst_start)
                    cached += len(pair)
            p = prob[pair]
            denom = np.add.reduceat(p, inst_start)
            if iteration > 1:  # the uniform start's likelihood says nothing
                reps = np.diff(np.append(inst_start, len(pair)))
                loglik += float(np.log(denom / reps).sum())
            p /= denom[token_of_instance(inst_start, len(pair))]
            counts += np.bincount(pair, weights=p, minlength=len(pairs))
        totals = np.bincount(src_of_pair, weights=counts, minlength=corpus.src_vocab + 1)
        prob = counts / totals[src_of_pair]
        note = ("" if iteration == 1
                else ", log-likelihood per target piece %.4f" % (loglik / tokens))
        log("IBM1 iteration %d/%d: %.1f s%s" % (iteration, iterations, time.time() - t1, note))
    return pairs, prob


def write_atomic(path, lines):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise Failure("no such folder for the output: %s" % folder)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".build_shortlist.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(lines)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def piece_rank(sp):
    """Rank of each id's piece string in code-point order (the output's sort key)."""
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    order = sorted(range(len(pieces)), key=lambda i: pieces[i])
    rank = np.empty(len(pieces), dtype=np.int64)
    rank[order] = np.arange(len(pieces))
    return pieces, rank


def build(args):
    started = time.time()
    for path in (args.out, args.vmap):
        folder = os.path.dirname(os.path.abspath(path)) if path else "."
        if not os.path.isdir(folder):
            raise Failure("no such folder for the output: %s" % folder)
    src_sp, tgt_sp = load_spm(args.source_spm), load_spm(args.target_spm)
    sources, targets, total_lines = read_pairs(args.source, args.target, args.max_lines)
    t0 = time.time()
    src_flat, src_len = encode(src_sp, sources)
    tgt_flat, tgt_len = encode(tgt_sp, targets)
    del sources, targets
    corpus = Corpus(src_flat, src_len, tgt_flat, tgt_len,
                    src_sp.get_piece_size(), tgt_sp.get_piece_size())
    if corpus.size == 0:
        raise Failure("empty corpus: no line pair has text on both sides")
    log("%d line pairs read%s, %d used (%d with an empty side skipped); %d source and %d target "
        "pieces; tokenized in %.1f s"
        % (total_lines if args.max_lines is None else min(total_lines, args.max_lines),
           "" if args.max_lines is None or total_lines <= args.max_lines
           else " (of %d)" % total_lines,
           corpus.size, corpus.skipped, len(corpus.src_flat), len(corpus.tgt_flat),
           time.time() - t0))

    pairs, prob = estimate(corpus, args.method, args.iterations)

    src = pairs // corpus.tgt_vocab
    tgt = pairs % corpus.tgt_vocab
    keep = (src != corpus.null) & (prob >= args.min_prob)
    if src_sp.unk_id() >= 0:
        keep &= src != src_sp.unk_id()
    if tgt_sp.unk_id() >= 0:
        keep &= tgt != tgt_sp.unk_id()
    src, tgt, prob = src[keep], tgt[keep], prob[keep]
    texts = ["%.6g" % p for p in prob.tolist()]
    shown = np.array([float(x) for x in texts])
    src_pieces, src_rank = piece_rank(src_sp)
    tgt_pieces, tgt_rank = piece_rank(tgt_sp)
    order = np.lexsort((tgt_rank[tgt], -shown, src_rank[src]))
    src_l, tgt_l = src[order].tolist(), tgt[order].tolist()
    write_atomic(args.out, ["%s %s %s\n" % (tgt_pieces[t], src_pieces[s], texts[i])
                            for s, t, i in zip(src_l, tgt_l, order.tolist())])
    n_sources = len(np.unique(src))
    log("wrote %s: %d entries for %d source pieces (%.1f per piece), %.1f MB"
        % (args.out, len(order), n_sources, len(order) / max(n_sources, 1),
           os.path.getsize(args.out) / 1e6))

    if args.vmap:
        freq = np.bincount(corpus.tgt_flat, minlength=corpus.tgt_vocab)
        if tgt_sp.unk_id() >= 0:
            freq[tgt_sp.unk_id()] = 0
        common = [i for i in np.lexsort((tgt_rank, -freq)).tolist() if freq[i] > 0]
        lines = ["\t" + " ".join(tgt_pieces[i] for i in common[:args.vmap_common]) + "\n"]
        current, best = None, []
        for s, t in zip(src_l + [None], tgt_l + [None]):
            if s != current:
                if current is not None:
                    lines.append("%s\t%s\n" % (src_pieces[current],
                                               " ".join(tgt_pieces[x] for x in best)))
                current, best = s, []
            if len(best) < args.vmap_best:
                best.append(t)
        write_atomic(args.vmap, lines)
        log("wrote %s: %d source pieces, up to %d targets each, %d common targets"
            % (args.vmap, len(lines) - 1, args.vmap_best, min(len(common), args.vmap_common)))
    log("done in %.1f s" % (time.time() - started))


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Build a lexical shortlist (Marian lex.s2t, optional CTranslate2 vmap) for a "
                    "model from a parallel corpus.")
    parser.add_argument("--source-spm", required=True,
                        help="the model's source SentencePiece model")
    parser.add_argument("--target-spm", required=True,
                        help="the model's target SentencePiece model")
    parser.add_argument("--source", required=True, help="source side, one segment a line (.gz ok)")
    parser.add_argument("--target", required=True, help="target side, same number of lines")
    parser.add_argument("--out", required=True, help="Marian lexical shortlist: TARGET SOURCE PROB")
    parser.add_argument("--method", choices=["ibm1", "cooc"], default="ibm1",
                        help="IBM Model 1 EM (default) or normalised co-occurrence counts")
    parser.add_argument("--iterations", type=int, default=5, help="EM iterations of ibm1 (5)")
    parser.add_argument("--max-lines", type=int, help="use the first N line pairs only")
    parser.add_argument("--min-prob", type=float, default=0.001,
                        help="leave out pairs with p(target|source) below this (0.001)")
    parser.add_argument("--vmap", help="also write a CTranslate2 vocabulary map here")
    parser.add_argument("--vmap-best", type=int, default=20,
                        help="targets per source piece in the vmap (20)")
    parser.add_argument("--vmap-common", type=int, default=100,
                        help="most frequent target pieces on the vmap's empty-key line (100)")
    args = parser.parse_args(argv)
    if args.iterations < 1:
        parser.error("--iterations must be at least 1")
    if args.max_lines is not None and args.max_lines < 1:
        parser.error("--max-lines must be at least 1")
    if not 0 <= args.min_prob < 1:
        parser.error("--min-prob must be in [0, 1)")
    if args.vmap_best < 1 or args.vmap_common < 0:
        parser.error("--vmap-best must be at least 1 and --vmap-common at least 0")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        build(args)
    except Failure as error:
        print("build_shortlist: error: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
