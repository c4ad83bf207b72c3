#!/usr/bin/env python3
"""Corpus-level BLEU and chrF, matching sacreBLEU 2.x defaults, stdlib only.

Why this exists: the project's evaluation must run on machines where
sacreBLEU (and pip access) is not available, yet the numbers have to be
comparable with published sacreBLEU scores.  Every rule below follows
sacreBLEU's own code (metrics/bleu.py, metrics/chrf.py, metrics/base.py,
tokenizers/tokenizer_13a.py, tokenizers/tokenizer_re.py); where sacreBLEU
does something surprising, a comment says so, because "fixing" it would
break comparability.

Signatures reproduced by the defaults:
    BLEU:  nrefs:N|case:mixed|eff:no|tok:13a|smooth:exp|version:2.x
    chrF2: nrefs:N|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.x

References are passed the sacreBLEU way: a list of reference *streams*,
each stream a list of strings aligned with the hypotheses.  Empty (or
None) reference segments are ignored, which lets segments have a variable
number of references; a segment with no usable reference is an error, as
in sacreBLEU.

CLI:
    python3 tools/eval/metrics.py --hyp HYP.txt --ref REF.txt [--ref REF2.txt] [--json]
"""

import argparse
import json
import math
import re
import sys
from collections import Counter

# --------------------------------------------------------------------------
# Tokenizer '13a' (mteval-v13a.pl as reimplemented by sacreBLEU)
# --------------------------------------------------------------------------

# The four substitutions of mteval-v13a, applied in this order.  Order and
# exact character ranges matter: e.g. the apostrophe (0x27), '-', ',' and '.'
# are deliberately *not* in the first class, so "wasn't" and "well-known"
# stay single tokens, while "1,000.50" keeps its separators.
_13A_RULES = (
    # Split off most ASCII punctuation/symbols: { | } ~  [ \ ] ^ _ `
    # space ! " # $ % &  ( ) * +  : ; < = > ? @  and '/'.
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    # Period/comma split unless preceded by a digit ...
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    # ... or unless followed by a digit (so "3.14" and "1,000" survive).
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    # A dash is split only right after a digit ("10-20" -> "10 - 20").
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def tokenize_13a(line):
    """Tokenize one segment exactly like sacreBLEU's Tokenizer13a."""
    line = line.replace("<skipped>", "")
    # mteval joins words hyphenated across a line break before flattening.
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    # Only these four entities are unescaped (note: &apos; is not).  The
    # order is sacreBLEU's: &amp; goes before &lt;/&gt;, so a double-escaped
    # "&amp;lt;" ends up as "<" (but "&amp;quot;" stays "&quot;").
    if "&" in line:
        line = line.replace("&quot;", '"')
        line = line.replace("&amp;", "&")
        line = line.replace("&lt;", "<")
        line = line.replace("&gt;", ">")
    # Padding gives the regexes a non-digit neighbour at both ends, so a
    # leading "." or trailing "," is split like any other.
    line = " " + line + " "
    for pattern, repl in _13A_RULES:
        line = pattern.sub(repl, line)
    # str.split() (not split(' ')) so that any Unicode whitespace collapses.
    return " ".join(line.split())


# --------------------------------------------------------------------------
# BLEU
# --------------------------------------------------------------------------

MAX_NGRAM_ORDER = 4


def _word_ngrams(tokens, max_order):
    counts = Counter()
    for n in range(1, max_order + 1):
        for i in range(len(tokens) - n + 1):
            counts[tuple(tokens[i:i + n])] += 1
    return counts


def _closest_ref_len(hyp_len, ref_lens):
    # Closest reference length; on a tie the *shorter* reference wins
    # (this is what sacreBLEU and mteval do, and it affects the BP).
    best = None
    for ref_len in ref_lens:
        key = (abs(hyp_len - ref_len), ref_len)
        if best is None or key < best:
            best = key
    return best[1]


def bleu_segment_stats(hyp, refs, max_order=MAX_NGRAM_ORDER, lowercase=False):
    """Sufficient statistics of one segment.

    Returns [hyp_len, ref_len, correct_1..correct_N, total_1..total_N].
    `refs` is a non-empty list of reference strings for this segment.
    """
    def prep(s):
        # sacreBLEU right-strips before tokenizing, so a trailing "-\n"
        # never glues the last word to nothing.
        if lowercase:
            s = s.lower()
        return tokenize_13a(s.rstrip()).split()

    # Reference n-gram counts are merged with max() across references:
    # a hypothesis n-gram is clipped by the most generous single reference.
    ref_counts = Counter()
    ref_lens = []
    for ref in refs:
        tokens = prep(ref)
        ref_lens.append(len(tokens))
        for ngram, count in _word_ngrams(tokens, max_order).items():
            if count > ref_counts[ngram]:
                ref_counts[ngram] = count

    hyp_tokens = prep(hyp)
    correct = [0] * max_order
    total = [0] * max_order
    for ngram, count in _word_ngrams(hyp_tokens, max_order).items():
        n = len(ngram) - 1
        total[n] += count
        correct[n] += min(count, ref_counts.get(ngram, 0))

    hyp_len = len(hyp_tokens)
    return [hyp_len, _closest_ref_len(hyp_len, ref_lens)] + correct + total


def _floored_log(x):
    # sacreBLEU's my_log: log(0) becomes a huge negative number instead of
    # an error, which drives the geometric mean (and BLEU) to 0.
    return -9999999999 if x == 0.0 else math.log(x)


def compute_bleu(correct, total, sys_len, ref_len,
                 max_order=MAX_NGRAM_ORDER, effective_order=False):
    """BLEU (0-100) from corpus statistics with 'exp' smoothing.

    Returns a dict with score, bp, precisions (0-100, smoothed as reported
    by sacreBLEU), counts, totals, sys_len, ref_len.
    """
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    else:
        bp = 1.0

    precisions = [0.0] * max_order
    result = {"bp": bp, "precisions": precisions, "counts": list(correct),
              "totals": list(total), "sys_len": sys_len, "ref_len": ref_len}

    # No matching n-gram at all: score is 0 and precisions stay 0 (the
    # smoothing below would otherwise give a small positive score).
    if not any(correct):
        result["score"] = 0.0
        return result

    # 'exp' smoothing (mteval's NIST smoothing): the k-th order with zero
    # matches gets precision 1 / (2^k * total).  k counts only zero-match
    # orders, not the order index.
    smooth = 1.0
    eff_order = max_order
    for n in range(1, max_order + 1):
        if total[n - 1] == 0:
            # The hypotheses contain no n-grams of this order (segments too
            # short).  This and all higher orders keep precision 0, so with
            # effective_order=False (the corpus default) the score is 0.
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            smooth *= 2
            precisions[n - 1] = 100.0 / (smooth * total[n - 1])
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]

    log_sum = sum(_floored_log(p) for p in precisions[:eff_order])
    result["score"] = bp * math.exp(log_sum / eff_order)
    return result


def _segment_refs(ref_streams, i):
    # Empty/None references are dropped so a segment may have fewer refs;
    # sacreBLEU refuses a segment left with none (it would have ref_len 0
    # and no n-grams, silently inflating the score).
    refs = [s[i] for s in ref_streams if s[i] is not None and s[i] != ""]
    if not refs:
        raise ValueError("segment %d: empty or missing reference" % (i + 1))
    return refs


def _check_lengths(hyps, ref_streams):
    if not ref_streams:
        raise ValueError("no reference stream given")
    for k, stream in enumerate(ref_streams):
        if len(stream) != len(hyps):
            raise ValueError(
                "hypotheses have %d segments but reference %d has %d"
                % (len(hyps), k + 1, len(stream)))


def corpus_bleu(hyps, ref_streams, max_order=MAX_NGRAM_ORDER,
                effective_order=False, lowercase=False):
    """Corpus BLEU: per-segment statistics are summed, then scored once."""
    _check_lengths(hyps, ref_streams)
    sums = [0] * (2 + 2 * max_order)
    for i, hyp in enumerate(hyps):
        stats = bleu_segment_stats(hyp, _segment_refs(ref_streams, i),
                                   max_order, lowercase)
        sums = [a + b for a, b in zip(sums, stats)]
    return compute_bleu(sums[2:2 + max_order], sums[2 + max_order:],
                        sums[0], sums[1], max_order, effective_order)


# --------------------------------------------------------------------------
# chrF
# --------------------------------------------------------------------------

CHAR_ORDER = 6
BETA = 2


def _char_ngrams(text, max_order, whitespace):
    if not whitespace:
        # All (Unicode) whitespace is removed, so n-grams span word
        # boundaries: "a b c" and "abc" are identical to chrF.
        text = "".join(text.split())
    return [Counter(text[i:i + n] for i in range(len(text) - n + 1))
            for n in range(1, max_order + 1)]


def _match_stats(hyp_ngrams, ref_ngrams):
    """[hyp_count, ref_count, match_count] for one order."""
    hyp_count = sum(hyp_ngrams.values())
    match = sum(min(c, ref_ngrams[g]) for g, c in hyp_ngrams.items()
                if g in ref_ngrams)
    # sacreBLEU quirk: when the reference has no n-grams of this order, the
    # hypothesis count is recorded as 0 too, so a long hypothesis against a
    # short reference is not charged precision for orders the reference
    # cannot have.  This survives corpus summation (the zero is summed).
    return [hyp_count if ref_ngrams else 0, sum(ref_ngrams.values()), match]


def chrf_f_score(stats, char_order=CHAR_ORDER, beta=BETA, eps_smoothing=False):
    """chrF (0-100) from flattened [hyp, ref, match] * char_order stats."""
    factor = beta ** 2
    if eps_smoothing:
        # chrF++.py/NLTK/Moses style: average of per-order F-scores, with
        # tiny epsilons for undefined precision/recall.  Not the default.
        eps = 1e-16
        total = 0.0
        for i in range(char_order):
            n_hyp, n_ref, n_match = stats[3 * i:3 * i + 3]
            prec = n_match / n_hyp if n_hyp > 0 else eps
            rec = n_match / n_ref if n_ref > 0 else eps
            denom = factor * prec + rec
            total += (1 + factor) * prec * rec / denom if denom > 0 else eps
        return 100 * total / char_order

    # Default ("effective order"): average precision and recall over only
    # the orders where both sides have n-grams, then one F-beta from the
    # averages (not an average of per-order F-scores).
    avg_prec = avg_rec = 0.0
    eff_order = 0
    for i in range(char_order):
        n_hyp, n_ref, n_match = stats[3 * i:3 * i + 3]
        if n_hyp > 0 and n_ref > 0:
            avg_prec += n_match / n_hyp
            avg_rec += n_match / n_ref
            eff_order += 1
    if eff_order == 0:
        return 0.0
    avg_prec /= eff_order
    avg_rec /= eff_order
    if avg_prec + avg_rec == 0:
        return 0.0
    return 100 * (1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec)


def chrf_segment_stats(hyp, refs, char_order=CHAR_ORDER, beta=BETA,
                       whitespace=False, eps_smoothing=False, lowercase=False):
    """Statistics of one segment against its best reference.

    With several references sacreBLEU keeps the statistics of the reference
    giving the highest *sentence-level* chrF (first one on ties); they are
    not merged as in BLEU.
    """
    if lowercase:
        hyp = hyp.lower()
    hyp_ngrams = _char_ngrams(hyp, char_order, whitespace)
    best_stats, best_f = None, -1.0
    for ref in refs:
        if lowercase:
            ref = ref.lower()
        ref_ngrams = _char_ngrams(ref, char_order, whitespace)
        stats = []
        for h, r in zip(hyp_ngrams, ref_ngrams):
            stats.extend(_match_stats(h, r))
        f = chrf_f_score(stats, char_order, beta, eps_smoothing)
        if f > best_f:
            best_stats, best_f = stats, f
    return best_stats


def corpus_chrf(hyps, ref_streams, char_order=CHAR_ORDER, beta=BETA,
                whitespace=False, eps_smoothing=False, lowercase=False):
    """Corpus chrF: statistics summed over segments, F computed once."""
    _check_lengths(hyps, ref_streams)
    sums = [0] * (3 * char_order)
    for i, hyp in enumerate(hyps):
        stats = chrf_segment_stats(hyp, _segment_refs(ref_streams, i),
                                   char_order, beta, whitespace,
                                   eps_smoothing, lowercase)
        sums = [a + b for a, b in zip(sums, stats)]
    return chrf_f_score(sums, char_order, beta, eps_smoothing)


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

def read_lines(path):
    # Same reading rules as the sacrebleu CLI: UTF-8, split on '\n' only
    # (a stray '\r' inside a line is kept), trailing whitespace stripped.
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def evaluate(hyps, ref_streams):
    """Both default metrics; the dict printed by --json."""
    bleu = corpus_bleu(hyps, ref_streams)
    chrf = corpus_chrf(hyps, ref_streams)
    return {
        "bleu": bleu["score"],
        "chrf": chrf,
        "bp": bleu["bp"],
        "precisions": bleu["precisions"],
        "sys_len": bleu["sys_len"],
        "ref_len": bleu["ref_len"],
        "n": len(hyps),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Corpus BLEU and chrF2 with sacreBLEU 2.x default settings.")
    parser.add_argument("--hyp", required=True, help="hypothesis file, one segment per line")
    parser.add_argument("--ref", required=True, action="append",
                        help="reference file (repeat for multiple references)")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    args = parser.parse_args(argv)

    try:
        hyps = read_lines(args.hyp)
        ref_streams = [read_lines(p) for p in args.ref]
        for path, stream in zip(args.ref, ref_streams):
            if len(stream) != len(hyps):
                raise ValueError("line count mismatch: %s has %d lines, %s has %d"
                                 % (args.hyp, len(hyps), path, len(stream)))
        if not hyps:
            raise ValueError("%s contains no segment" % args.hyp)
        result = evaluate(hyps, ref_streams)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print("metrics.py: error: %s" % exc, file=sys.stderr)
        return 1

    if args.json:
        print(json.dumps(result))
    else:
        print("BLEU = %.2f  chrF2 = %.2f" % (result["bleu"], result["chrf"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
