#!/usr/bin/python3
"""Terminology (glossary) constraints: lexically constrained beam search with dynamic beam
allocation, numpy reference (issue 19 part 5).  Run with Debian's /usr/bin/python3 (numpy).

    import constrained_search as cs, marian_search as ms
    r = cs.constrained_search(model, src_ids, 4, constraints=[[17], [40, 41]])
    r["nbest"]      # what the caller outputs: the constrained n-best, or (r["fallback"]) the
                    # unconstrained marian_search.beam_search result
    core = cs.constrained_beam_search(scorer, len(src_ids), V, eos, unk, 4, constraints=[[17]])
    entries = cs.parse_glossary(open("glossary.tsv", encoding="utf-8").read())
    texts = cs.match_glossary(entries, "source line", ignore_case=False)
    ids = cs.line_constraints(entries, "source line", lambda text: [...ids...])

The search is the Marian beam search of marian_search.py (beam_search_core: float32 path scores,
<unk> suppressed unless allowed, banned ids, min_length, max length ceil(factor*srcLen), step 0 on
the single start state with width beam_size, finished hypotheses leave the beam and the beam
shrinks, normalisation only in the final ranking, n-best tie-breaks) with the top-k selection
replaced by Post & Vilar 2018 ("Fast Lexically Constrained Decoding with Dynamic Beam
Allocation for Neural Machine Translation", NAACL 2018, section 3) as Sockeye implements it in
sockeye/lexical_constraints.py (awslabs/sockeye @038ee765, 2018: ConstrainedHypothesis.allowed
:105-128, is_valid :138-145, advance :147-191 (back-out of a phrase :168-174), get_bank_sizes
:217-250 (bank 0's excess to bank C via (i - 1) % num_banks :248), topk :285-379; unchanged in
the last version before the file was removed, c44f1262~1: allowed :323, is_valid :356, advance
:365, get_bank_sizes :435, topk/_sequential_topk :503).  Differences from Sockeye are marked
[not Sockeye]; Sockeye also keeps finished hypotheses in the beam (inactive rows) where Marian,
and this module, remove them and shrink the beam.

CONSTRAINTS.  A list of phrases, each a non-empty list of target token ids (no </s>: the caller
never builds one; asserted).  C = total number of tokens of all phrases.  No constraints (None or
[]) = C = 0.  Duplicate phrases are the caller's business (line_constraints removes them).

HYPOTHESIS CONSTRAINT STATE (Sockeye ConstrainedHypothesis, kept per phrase instead of per token):
  met[j] (phrase j completed), cur (index of the phrase in progress or -1), prog (number of its
  tokens matched so far, 0 < prog < len(phrase[cur]) while cur >= 0).  The start state has nothing
  met, cur = -1.  bank(state) = sum of len(phrase[j]) over met j + prog (Sockeye num_met: every
  matched token of a completed phrase or of the phrase in progress counts), 0 <= bank <= C.
  "All met" = bank == C (then cur == -1).
  advance(state, tok) -> new state:
    1. if cur >= 0: if tok == phrase[cur][prog]: prog += 1, and if prog == len(phrase[cur]):
       met[cur] = True, cur = -1, prog = 0; return.  Otherwise the phrase is left midway: cur = -1,
       prog = 0 (its matched tokens no longer count) and go on with 2 [not Sockeye: Sockeye's
       advance backs out and stops, so the token that breaks a phrase can never start one].
    2. (cur == -1) the FIRST phrase j in list order with not met[j] and phrase[j][0] == tok (if
       any) is started: if len(phrase[j]) == 1: met[j] = True, else cur = j, prog = 1.
    Any other token leaves the state unchanged (also </s>).  Limitations (as Sockeye): one phrase
    in progress at a time; phrases sharing a first token are tried in list order only; a phrase
    that overlaps itself ([a a b] after "a a a b") is not found by restarting inside it.
  WHOLE WORDS [not Sockeye] (whole_words=True, what s2s's --glossary uses; the goldens of
    earlier runs have it off): the state also records whether its last token completed a phrase
    (ended = advance completed a phrase with that token).  After such a token, the tokens that
    continue a word (continues_word: a piece that does not start with "\u2581" and whose first
    character is not punctuation, see PUNCTUATION below; a hyphen continues it) are excluded like banned ids (step 1),
    so that a term ends where an output word ends: the next token starts a word, is punctuation
    or </s>.  Its start is a word start already: a term tokenized as a text of its own begins with
    a "\u2581" piece.
  allowed(state) (Sockeye allowed): if cur >= 0: [phrase[cur][prog]] (only the next token of the
    phrase in progress); else the first tokens of the unmet phrases, in list order, duplicates
    removed.  Empty when all are met.

ONE STEP (t = 0, 1, ...; live hypotheses in beam order r = 0..n-1, width k = beam_size at t = 0,
else the number of live hypotheses):
  1. Expanded scores S[r, v] = float32(score_r + logprob_r[v]) as Marian; then, in this order,
     <unk> column lowest (unless allow_unk), min_length (</s> lowest for rows with fewer than
     min_length tokens), banned columns lowest, with whole_words the word-continuing columns of
     every row whose last token completed a phrase lowest, and the </s> column of every row
     whose bank < C set to float32 lowest (Sockeye is_valid: </s> only when all constraints are met).
     lowest = numpy finfo(float32).min = numeric_limits<float>::lowest().  Flat index
     f = r * V + v; ORDER = descending score, ties -> lower flat index.
  2. Candidate set (Sockeye topk (1)-(3)), a set of flat indices:
     (a) the k best entries of the flattened S in ORDER (exactly Marian's top-k);
     (b) for each row its best token (first maximum: the lowest token id among equal scores);
     (c) for each row every token of allowed(state_r) whose S[r, tok] > lowest (a constraint
         token that is <unk>-suppressed / banned is never added by (c)).
     Duplicates are one candidate.  [Sockeye filters (a) and (b) by is_valid; here the </s>
     column is lowest instead, so (a) and (b) are Marian's unchanged.]
  3. Each candidate (r, v) gets new state advance(state_r, v) and bank b = bank(new state).
     counts[b] = number of candidates in bank b, b = 0..C.
  4. Allocation of the k slots (Sockeye get_bank_sizes, with the remainder rule made explicit):
       size[b] = k // (C+1) for all b; size[C] += k % (C+1)          (remainder to the top bank)
       for b = C, C-1, ..., 1: if size[b] > counts[b]: size[b-1] += size[b] - counts[b];
                                                        size[b] = counts[b]
       e = max(0, size[0] - counts[0]); size[0] -= e
       for b = 1, ..., C while e > 0: x = min(e, counts[b] - size[b]); size[b] += x; e -= x
     [not Sockeye: Sockeye passes bank 0's excess to bank C ((i-1) % num_banks) where it is lost
     if bank C is short, and the beam then has fewer than k live rows.]  Since (a) alone has k
     candidates, sum(size) == k always: exactly k entries are selected at every step, as in
     Marian.  With C = 0: one bank of size k, and the selection below is exactly (a).
  5. Selection: walk the candidates in ORDER (score descending, flat index ascending); take a
     candidate if its bank still has a slot (size[b] -= 1).  The taken ones, in ORDER, are the
     step's selection = the new beam order (like Marian's top-k list).
  6. Then Marian: a selected </s> finishes its hypothesis (it leaves the beam, which shrinks);
     if t+1 >= float32(factor) * float32(srcLen) every selected hypothesis is finalised (length
     cut) and the search stops; else the others are the live hypotheses of step t+1.  (A </s>
     can be selected with bank < C only with score lowest, i.e. never in practice.)

RESULT.  Every finalised hypothesis gets normalized = (score - wp*L) / L^normalize (float32, L =
len(ids) incl. </s>), "bank" and "constraints_met" (bank == C).  Sorted as Marian's n-best
(normalized descending, then earlier finishing step, then position in that step's selection):
"nbest" = the ones with constraints_met (finished with </s> or length-cut), "unmet" = the others
(only length-cut ones in practice).  "fallback" = C > 0 and nbest is empty: the constraints could
not be met within the length limit; the caller then uses the unconstrained search's result
(marian_search.beam_search with the same settings) and warns naming the line.  The empty-source
rule (Marian: a source that is only </s> gives beam_size x [</s>], score 0) wins: with C > 0 that
is a fallback.  Target prefixes are not combined with constraints here.

GLOSSARY MATCHING (parse_glossary, match_glossary, line_constraints):
  * File: UTF-8 text, lines split at "\\n" (a trailing "\\r" is removed).  A line that is empty or
    only whitespace is skipped.  Every other line must have exactly one TAB: "source term<TAB>
    target term"; otherwise (no TAB, two TABs) it is an error naming the 1-based line number.
    Whitespace = the ASCII characters space, \\t, \\n, \\v, \\f, \\r (nothing else, not NBSP).
    Words (split_words): every ASCII punctuation character (!"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~) is
    a word of its own; the words between are the maximal runs of other non-whitespace characters.
    So "license." and "(license" contain the word "license" (raw text, as SentencePiece models
    take it, puts punctuation next to words), "non-free" is "non" "-" "free", and "C++" is
    "C" "+" "+" on both sides.  Punctuation beyond ASCII (typographic quotes, the NBSP) is not
    split off.
    Source words = the source term split into words; target term
    = the target text with leading/trailing whitespace removed.  No source word or an empty
    target term is an error naming the line.  Entries keep the file order (entry index e).
  * Matching a source line: its words = the line split the same way.  Entry e with n words
    matches at position i when words[i:i+n] == its words (whole words, contiguous, exact
    code-point comparison; ignore_case: both sides compared after Python str.lower, i.e. full
    Unicode lowercase mapping incl. SpecialCasing, U+0130 -> "i" + U+0307).  Its match position
    is the smallest such i.  Every matching entry counts (overlapping or nested terms included,
    no longest-match preference).
  * Constraint order: matches sorted by (match position, entry index).  Each one's target term is
    tokenized with the target SentencePiece as a text of its own (encode(term) with the model's
    usual target encoding, WITHOUT </s>; so a word-initial term starts with a "\u2581" piece) and
    becomes one constraint; a term that tokenizes to nothing is skipped; a constraint whose id
    sequence equals an earlier one is removed (duplicates by ids, the first one stays).
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marian_search as ms  # noqa: E402

F32 = np.float32
LOWEST = ms.LOWEST


# ----------------------------------------------------------------------------------------------
# constraint state
# ----------------------------------------------------------------------------------------------
# PUNCTUATION for whole words: ASCII punctuation, the Latin-1 marks U+00A1 U+00AB U+00BB U+00BF,
# General Punctuation U+2010-U+205E, CJK Symbols and Punctuation U+3000-U+303F, and the fullwidth
# ASCII punctuation, but not the hyphens - U+2010 U+2011: they join a compound ("Dokument-Datei"
# keeps the word the term replaces), so they continue the word (as lib/s2s/search/constraints.cc).
_HYPHENS = (0x2D, 0x2010, 0x2011)
_PUNCT_RANGES = [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E), (0xA1, 0xA1), (0xAB, 0xAB),
                 (0xBB, 0xBB), (0xBF, 0xBF), (0x2010, 0x205E), (0x3000, 0x303F), (0xFF01, 0xFF0F),
                 (0xFF1A, 0xFF20), (0xFF3B, 0xFF40), (0xFF5B, 0xFF65)]


def continues_word(piece):
    """Whether a SentencePiece piece continues the word before it: not empty, no leading
    "\u2581", first character not punctuation (so </s> and other <...> pieces never do)."""
    if not piece or piece.startswith("\u2581"):
        return False
    c = ord(piece[0])
    return c in _HYPHENS or not any(a <= c <= b for a, b in _PUNCT_RANGES)


def word_continuations(pieces):
    """The ids (sorted) of the pieces that continue a word, pieces[id] for every id."""
    return [i for i, p in enumerate(pieces) if continues_word(p)]


class Constraints:
    """The phrases of one sentence and the state operations of the module docstring.  A state is
    a tuple (met: tuple of bool, cur: int, prog: int, ended: bool)."""

    def __init__(self, phrases, eos_id=None):
        self.phrases = [tuple(int(t) for t in p) for p in (phrases or [])]
        assert all(len(p) > 0 for p in self.phrases), "empty constraint phrase"
        if eos_id is not None:
            assert all(eos_id not in p for p in self.phrases), "</s> in a constraint"
        self.C = sum(len(p) for p in self.phrases)

    def start(self):
        return (tuple(False for _ in self.phrases), -1, 0, False)

    def bank(self, state):
        met, cur, prog, _ = state
        return sum(len(p) for p, m in zip(self.phrases, met) if m) + prog

    def advance(self, state, tok):
        met, cur, prog, _ = state
        tok = int(tok)
        if cur >= 0:
            ph = self.phrases[cur]
            if tok == ph[prog]:
                prog += 1
                if prog == len(ph):
                    met = met[:cur] + (True,) + met[cur + 1:]
                    return (met, -1, 0, True)
                return (met, cur, prog, False)
            cur, prog = -1, 0          # left the phrase midway: its progress is reset
        for j, ph in enumerate(self.phrases):
            if not met[j] and ph[0] == tok:
                if len(ph) == 1:
                    return (met[:j] + (True,) + met[j + 1:], -1, 0, True)
                return (met, j, 1, False)
        return (met, cur, prog, False)

    def ended(self, state):
        return state[3]

    def allowed(self, state):
        met, cur, prog, _ = state
        if cur >= 0:
            return [self.phrases[cur][prog]]
        out = []
        for j, ph in enumerate(self.phrases):
            if not met[j] and ph[0] not in out:
                out.append(ph[0])
        return out


def bank_sizes(k, C, counts):
    """Slots per bank 0..C for k selections given the candidate counts per bank (step 4 of the
    module docstring)."""
    nb = C + 1
    size = [k // nb] * nb
    size[C] += k % nb
    for b in range(C, 0, -1):
        if size[b] > counts[b]:
            size[b - 1] += size[b] - counts[b]
            size[b] = counts[b]
    e = max(0, size[0] - counts[0])
    size[0] -= e
    for b in range(1, nb):
        if e <= 0:
            break
        x = min(e, counts[b] - size[b])
        size[b] += x
        e -= x
    return size


# ----------------------------------------------------------------------------------------------
# search
# ----------------------------------------------------------------------------------------------
def constrained_beam_search(next_logprobs, src_len, vocab_size, eos_id, unk_id, beam_size,
                            constraints=None, normalize=0.0, word_penalty=0.0, max_length_factor=3.0,
                            allow_unk=False, trace=None, empty_source=False, banned_ids=(),
                            min_length=0, continuations=None):
    """Constrained beam search of one sentence over an abstract scorer (next_logprobs(prefix
    tuple) -> float32 [V], as marian_search.beam_search_core).  constraints: [[ids], ...].
    continuations: None, or the word-continuing ids (word_continuations of the target pieces):
    whole words (module docstring, WHOLE WORDS).
    Returns {"nbest": [hyp], "unmet": [hyp], "fallback": bool, "C": int}; hyp = {"ids",
    "token_logprobs", "score", "normalized", "bank", "constraints_met"}.
    trace: optional list, one dict per step {"t", "width", "selected" [(row, token, score, bank)],
      "candidates" (all, in ORDER, same tuples), "counts", "sizes", "finished", "cut", "margin"}: margin = the smallest of (float64 of the
      float32 values) the global top-k boundary (k-th minus (k+1)-th entry), per bank the last
      taken minus the first candidate not taken, and per row best1 - best2 where best2 is not
      already a candidate (a swap there would change the candidate set); None if none applies."""
    assert beam_size >= 1
    V = int(vocab_size)
    banned_ids = [int(b) for b in banned_ids]
    cons = Constraints(constraints, eos_id)
    C = cons.C
    finished = []          # (normalized, step, order, hyp)

    def finish(ids, lps, score, step, order, state):
        nrm = ms.normalized_score(score, len(ids), normalize, word_penalty)
        b = cons.bank(state)
        h = {"ids": [int(i) for i in ids], "token_logprobs": [F32(x) for x in lps],
             "score": F32(score), "normalized": nrm, "bank": int(b), "constraints_met": b == C}
        finished.append((nrm, step, order, h))

    def result():
        finished.sort(key=lambda e: (-float(e[0]), e[1], e[2]))
        hs = [h for _, _, _, h in finished]
        nbest = [h for h in hs if h["constraints_met"]]
        return {"nbest": nbest, "unmet": [h for h in hs if not h["constraints_met"]],
                "fallback": bool(C > 0 and not nbest), "C": C}

    if empty_source:
        for j in range(beam_size):
            finish([eos_id], [F32(0)], F32(0), 0, j, cons.start())
        return result()

    max_len_f = F32(max_length_factor) * F32(src_len)
    live = [([], [], F32(0), cons.start())]       # (ids, token logprobs, score, constraint state)
    width = beam_size
    t = 0
    while width > 0:
        n = len(live)
        S = np.empty((n, V), dtype=F32)
        lp_rows = []
        for r, (ids, lps, sc, st) in enumerate(live):
            lp = np.asarray(next_logprobs(tuple(ids)), dtype=F32)
            assert lp.shape == (V,)
            lp_rows.append(lp)
            S[r] = (sc + lp).astype(F32)
        if not allow_unk and unk_id is not None and 0 <= unk_id < V:
            S[:, unk_id] = LOWEST
        for r, (ids, _, _, _) in enumerate(live):
            if len(ids) < min_length:
                S[r, eos_id] = LOWEST
        for b in banned_ids:
            S[:, b] = LOWEST
        if continuations:
            for r, (_, _, _, st) in enumerate(live):
                if cons.ended(st):
                    S[r, continuations] = LOWEST
        for r, (_, _, _, st) in enumerate(live):
            if cons.bank(st) < C:
                S[r, eos_id] = LOWEST
        flat = S.reshape(-1)
        order = np.argsort(-flat, kind="stable")      # ORDER: score desc, flat index asc
        k = width
        cand = set(int(x) for x in order[:k])          # (a)
        topk_margin = float(flat[order[k - 1]]) - float(flat[order[k]]) if len(order) > k else None
        row_best = []
        for r in range(n):
            best = int(np.argmax(S[r]))                # (b) first maximum
            row_best.append(best)
            cand.add(r * V + best)
            for tok in cons.allowed(live[r][3]):       # (c)
                if S[r, tok] > LOWEST:
                    cand.add(r * V + int(tok))
        cands = sorted(cand, key=lambda f_: (-float(flat[f_]), f_))
        states = {}
        counts = [0] * (C + 1)
        for f_ in cands:
            r, v = divmod(f_, V)
            st = cons.advance(live[r][3], v)
            states[f_] = st
            counts[cons.bank(st)] += 1
        sizes = bank_sizes(k, C, counts)
        left = list(sizes)
        sel = []
        last_taken, first_rejected = {}, {}
        for f_ in cands:
            b = cons.bank(states[f_])
            if left[b] > 0:
                left[b] -= 1
                sel.append(f_)
                last_taken[b] = f_
            elif b not in first_rejected:
                first_rejected[b] = f_
        assert len(sel) == k, (len(sel), k)
        margins = [] if topk_margin is None else [topk_margin]
        for b, f_ in first_rejected.items():
            if b in last_taken:
                margins.append(float(flat[last_taken[b]]) - float(flat[f_]))
        for r in range(n):
            row = S[r].astype(np.float64)
            o = np.argsort(-S[r], kind="stable")
            if len(o) > 1 and (r * V + int(o[1])) not in cand:
                margins.append(float(row[o[0]]) - float(row[o[1]]))
        step_len = t + 1
        cut = bool(F32(step_len) >= max_len_f)
        new_live = []
        n_eos = 0
        selected = []
        for pos, f_ in enumerate(sel):
            r, tok = divmod(f_, V)
            ids, lps, _, _ = live[r]
            sc = flat[f_]
            st = states[f_]
            selected.append((r, tok, F32(sc), cons.bank(st)))
            nids, nlps = ids + [tok], lps + [F32(lp_rows[r][tok])]
            if tok == eos_id:
                n_eos += 1
                finish(nids, nlps, sc, t, pos, st)
            elif cut:
                finish(nids, nlps, sc, t, pos, st)
            else:
                new_live.append((nids, nlps, F32(sc), st))
        if trace is not None:
            trace.append({"t": t, "width": k, "selected": selected, "counts": counts, "sizes": sizes,
                          "candidates": [(f_ // V, f_ % V, F32(flat[f_]), cons.bank(states[f_]))
                                         for f_ in cands],
                          "finished": n_eos, "cut": cut, "margin": min(margins) if margins else None})
        if cut:
            break
        live = new_live
        width = len(live)
        t += 1
    return result()


def constrained_search(model, src_ids, beam_size, constraints=None, normalize=0.0, word_penalty=0.0,
                       max_length_factor=3.0, allow_unk=None, banned_ids=None, min_length=None,
                       scorer=None, trace=None, continuations=None):
    """constrained_beam_search on a marian_ref / hf_ref / onmt_ref model with its own rules (None =
    marian_search.search_rules(model)), plus the fallback: returns {"nbest": what the caller
    outputs (the constrained n-best, or with fallback the unconstrained beam_search n-best),
    "fallback": bool, "constrained": the constrained_beam_search result}."""
    fam = ms.family_of(model) if scorer is None else scorer.family
    src_ids = [int(i) for i in np.asarray(src_ids).reshape(-1)]
    if scorer is None:
        scorer = ms.ModelScorer(model, src_ids, fam)
    allow_unk = fam.allow_unk(model) if allow_unk is None else allow_unk
    banned_ids = fam.banned_ids(model) if banned_ids is None else banned_ids
    min_length = fam.min_length(model) if min_length is None else min_length
    core = constrained_beam_search(scorer, len(src_ids), model.V, model.eos_id, model.unk_id,
                                   beam_size, constraints=constraints, normalize=normalize,
                                   word_penalty=word_penalty, max_length_factor=max_length_factor,
                                   allow_unk=allow_unk, trace=trace,
                                   empty_source=fam.empty_source(model, src_ids),
                                   banned_ids=banned_ids, min_length=min_length,
                                   continuations=continuations)
    if core["fallback"]:
        nbest = ms.beam_search(model, src_ids, beam_size, normalize=normalize,
                               word_penalty=word_penalty, max_length_factor=max_length_factor,
                               allow_unk=allow_unk, banned_ids=banned_ids, min_length=min_length,
                               scorer=scorer)
    else:
        nbest = core["nbest"]
    return {"nbest": nbest, "fallback": core["fallback"], "constrained": core}


# ----------------------------------------------------------------------------------------------
# glossary matching
# ----------------------------------------------------------------------------------------------
_PUNCT = "!-/:-@\\[-`{-~"   # the ASCII punctuation ranges 0x21-0x2F, 0x3A-0x40, 0x5B-0x60, 0x7B-0x7E
_WORD = re.compile("[^ \t\n\v\f\r%s]+|[%s]" % (_PUNCT, _PUNCT))


def split_words(text):
    """The words of `text` (module docstring, GLOSSARY MATCHING): each ASCII punctuation
    character alone, and the runs of other characters between whitespace and punctuation."""
    return _WORD.findall(text)


def parse_glossary(text):
    """TSV glossary text -> [(source words tuple, target term)] in file order (module docstring,
    GLOSSARY MATCHING).  Raises ValueError("glossary line N: ...") for malformed lines."""
    entries = []
    for no, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]
        if not split_words(line):
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise ValueError("glossary line %d: expected 'source term<TAB>target term'" % no)
        words = split_words(parts[0])
        target = parts[1].strip(" \t\n\v\f\r")
        if not words:
            raise ValueError("glossary line %d: empty source term" % no)
        if not target:
            raise ValueError("glossary line %d: empty target term" % no)
        entries.append((tuple(words), target))
    return entries


def match_glossary(entries, line, ignore_case=False):
    """The target terms of the entries whose source term occurs in `line` (whole words,
    contiguous), ordered by (first match position, entry index); duplicates NOT removed (that
    happens on the token ids, line_constraints)."""
    words = split_words(line)
    if ignore_case:
        words = [w.lower() for w in words]
    hits = []
    for e, (src, tgt) in enumerate(entries):
        term = [w.lower() for w in src] if ignore_case else list(src)
        n = len(term)
        for i in range(len(words) - n + 1):
            if words[i:i + n] == term:
                hits.append((i, e, tgt))
                break
    hits.sort(key=lambda x: (x[0], x[1]))
    return [tgt for _, _, tgt in hits]


def line_constraints(entries, line, encode_target, ignore_case=False):
    """Constraints (lists of target ids) of one source line: match_glossary, each target term
    encoded by encode_target(text) -> [ids] (no </s>), empty ones skipped, duplicate id sequences
    removed (the first stays)."""
    out = []
    for term in match_glossary(entries, line, ignore_case):
        ids = [int(i) for i in encode_target(term)]
        if ids and ids not in out:
            out.append(ids)
    return out


def target_encoder(model):
    """encode_target for a marian_ref / hf_ref / onmt_ref model: the family's encode_text on the
    target side without the final </s>."""
    fam = ms.family_of(model)

    def enc(text):
        ids = list(fam.ref.encode_text(model, text, side="target"))
        assert ids and ids[-1] == model.eos_id
        return ids[:-1]
    return enc
