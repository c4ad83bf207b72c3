#!/usr/bin/python3
"""Marian beam search (marian-decoder) and teacher-forced scoring (marian-scorer), numpy reference.

Written from /work/shared/model-formats.md section 1.6 (and section 7 items 12-15) on top of the
forward pass in marian_ref.py.  Run with Debian's /usr/bin/python3 (python3-numpy).

    import marian_ref as ref, marian_search as ms
    model = ref.load_model(folder)
    hyps  = ms.beam_search(model, src_ids, beam_size=4, normalize=1.0)
    best  = hyps[0]            # {"ids", "token_logprobs", "score", "normalized"}
    s     = ms.score_pairs(model, src_ids, tgt_ids)   # {"score", "token_logprobs"}

Search rules (one sentence, single model of weight 1):
  * A hypothesis' path score is the float32 running sum of the log-softmax values of its tokens
    (expanded score = float32(prev_score + logprob), as Marian adds prevPathScores + logProbs).
  * Step 0 expands only the single start state (prev score 0).  The beam width at step 0 is
    beam_size (Marian starts with beam_size copies of the start hypothesis but only one row of
    scores).
  * Unless allow_unk, the <unk> column of the expanded scores is set to the lowest float32
    (numpy finfo(float32).min == C++ numeric_limits<float>::lowest()) after adding the previous
    scores and before top-k.
  * top-k: the best B_cur entries of the flattened [B_cur, V] expanded scores, B_cur = number of
    live hypotheses (beam_size at step 0).  TIE-BREAK (our choice; Marian's CPU partial_sort is
    unspecified for ties, its N==1 max_elem takes the first maximum): equal scores are ordered by
    the lower flat index hyp_index * V + token first.  The selected entries form the new beam in
    that order (best first); hyp_index of the next step is the position among the survivors
    (finished ones removed, relative order kept).
  * A selected entry whose token is </s> is finished and removed; the beam shrinks by one for each
    (no refill).  Search ends when no hypothesis is live.
  * Length limit: after step t (0-based) every hypothesis holds t+1 tokens.  If
    t+1 >= max_length_factor * srcLen (float32 product, srcLen incl. the source </s>) then every
    hypothesis selected at this step is finalised -- the ones that chose </s> as normal finished
    hypotheses, the others without </s> -- and search stops.  So a hypothesis has at most
    ceil(max_length_factor * srcLen) tokens.
  * Finished hypotheses are scored with normalized = (score - wp*L) / L**normalize (float32),
    L = number of target tokens including </s> (without </s> for length-cut hypotheses).
    Word penalty and normalisation only affect this final ranking, never the search.
  * Exactly beam_size hypotheses are finalised per sentence (each selected entry either finishes
    or stays live, and the length cut finalises the live ones), so the n-best list (Marian's
    --n-best prints nBest(beam-size)) is the whole set, sorted best first by normalized score.
    TIE-BREAK for equal normalized scores (Marian: std::priority_queue, unspecified): earlier
    finishing step first, then the position in that step's selection.
  * A source consisting only of </s> (empty line) gives beam_size hypotheses [</s>] with
    path score 0 (Marian forces </s> with score 0 for empty inputs).

Decoding is done per hypothesis with batch size 1 (marian_ref.decoder_step on a copied K/V
cache), memoised by target prefix, so a hypothesis' log-probs do not depend on the other
hypotheses in the beam (no batch-size dependent BLAS rounding) and beam 1 equals marian_ref.greedy
bit for bit.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marian_ref as ref  # noqa: E402

F32 = np.float32
LOWEST = np.finfo(np.float32).min     # numeric_limits<float>::lowest()


def max_target_length(src_len, max_length_factor=3.0):
    """Number of target tokens at which the length cut happens: the smallest n with
    n >= float32(factor) * float32(srcLen) == ceil(factor * srcLen)."""
    limit = F32(max_length_factor) * F32(src_len)
    n = int(math.ceil(float(limit)))
    return max(n, 1)


def normalized_score(score, length, normalize=0.0, word_penalty=0.0):
    """Marian History::add: (pathScore - wp * L) / pow(L, alpha), all float32."""
    L = F32(length)
    num = F32(F32(score) - F32(F32(word_penalty) * L))
    den = F32(np.power(L, F32(normalize), dtype=F32))
    return F32(num / den)


class ModelScorer:
    """next_logprobs(prefix) -> float32 [V] log-softmax of the next token given the target prefix
    (tuple of ids).  Batch size 1, K/V cache per prefix, memoised."""

    def __init__(self, model, src_ids):
        self.model = model
        src = np.asarray(src_ids).reshape(1, -1)
        self.src_len = np.array([src.shape[1]])
        self.enc = ref.encoder(model, src, self.src_len)
        self.states = {}        # prefix -> (state after feeding the prefix, logprobs)
        self.V = model.V

    def _state(self, prefix):
        if prefix in self.states:
            return self.states[prefix]
        if len(prefix) == 0:
            st = ref.decoder_init(self.model, self.enc, self.src_len)
            logits, st = ref.decoder_step(self.model, st, np.array([-1]))
        else:
            parent, _ = self._state(prefix[:-1])
            st = dict(parent)
            st["cache"] = list(parent["cache"])       # arrays are never modified in place
            logits, st = ref.decoder_step(self.model, st, np.array([prefix[-1]]))
        lp = ref.log_softmax(logits[0]).astype(F32)
        self.states[prefix] = (st, lp)
        return self.states[prefix]

    def __call__(self, prefix):
        return self._state(tuple(prefix))[1]


def beam_search_core(next_logprobs, src_len, vocab_size, eos_id, unk_id, beam_size,
                     normalize=0.0, word_penalty=0.0, max_length_factor=3.0, allow_unk=False,
                     trace=None, empty_source=False, flip_boundary_below=None):
    """Marian beam search over an abstract scorer.

    next_logprobs(prefix_tuple) -> float32 array [vocab_size] (log-probs of the next token).
    src_len: source length incl. </s>.  trace: optional list, receives one dict per step:
      {"t", "width" (live hyps expanded), "selected" [(hyp_index, token, score)], "finished"
       (number that chose </s>), "margin" (last selected - first rejected score, float64 of the
       float32 values; None if nothing was rejected), "cut" (length limit reached)}.
    flip_boundary_below: robustness probe, not Marian: whenever the top-k boundary margin is below
      this value, the last selected and the first rejected candidate are swapped (what another
      implementation with slightly different rounding / tie order might do).
    Returns the finished hypotheses, best first (see module docstring)."""
    assert beam_size >= 1
    V = int(vocab_size)
    finished = []          # (normalized, step, order, hyp dict)

    def finish(ids, lps, score, step, order):
        nrm = normalized_score(score, len(ids), normalize, word_penalty)
        finished.append((nrm, step, order, {
            "ids": [int(i) for i in ids],
            "token_logprobs": [F32(x) for x in lps],
            "score": F32(score),
            "normalized": nrm,
        }))

    if empty_source:
        for j in range(beam_size):
            finish([eos_id], [F32(0)], F32(0), 0, j)
            if trace is not None and j == 0:
                trace.append({"t": 0, "width": beam_size, "selected": [], "finished": beam_size,
                              "margin": None, "cut": False})
        return [h for _, _, _, h in finished]

    max_len_f = F32(max_length_factor) * F32(src_len)
    # live hypotheses: (ids list, token logprobs list, float32 score)
    live = [([], [], F32(0))]
    width = beam_size
    t = 0
    while width > 0:
        n_rows = len(live)
        scores = np.empty((n_rows, V), dtype=F32)
        lp_rows = []
        for r, (ids, lps, sc) in enumerate(live):
            lp = np.asarray(next_logprobs(tuple(ids)), dtype=F32)
            assert lp.shape == (V,)
            lp_rows.append(lp)
            scores[r] = (sc + lp).astype(F32)          # float32 prev + logprob
        if not allow_unk and unk_id is not None and 0 <= unk_id < V:
            scores[:, unk_id] = LOWEST
        flat = scores.reshape(-1)
        # descending score, ties -> lower flat index (stable sort of the negated scores)
        order = np.argsort(-flat, kind="stable")
        k = width
        sel = order[:k]
        margin = None
        if len(order) > k:
            margin = float(flat[sel[-1]]) - float(flat[order[k]])
            if flip_boundary_below is not None and margin < flip_boundary_below:
                order = order.copy()
                order[k - 1], order[k] = order[k], order[k - 1]
                sel = order[:k]
        step_len = t + 1
        cut = bool(F32(step_len) >= max_len_f)
        new_live = []
        n_eos = 0
        selected = []
        for pos, key in enumerate(sel):
            h, tok = divmod(int(key), V)
            ids, lps, _ = live[h]
            lp = lp_rows[h][tok]
            sc = flat[key]
            selected.append((h, tok, F32(sc)))
            nids, nlps = ids + [tok], lps + [F32(lp)]
            if tok == eos_id:
                n_eos += 1
                finish(nids, nlps, sc, t, pos)
            elif cut:
                finish(nids, nlps, sc, t, pos)
            else:
                new_live.append((nids, nlps, F32(sc)))
        if trace is not None:
            trace.append({"t": t, "width": k, "selected": selected, "finished": n_eos,
                          "margin": margin, "cut": cut})
        if cut:
            break
        live = new_live
        width = len(live)
        t += 1
    finished.sort(key=lambda e: (-float(e[0]), e[1], e[2]))
    return [h for _, _, _, h in finished]


def beam_search(model, src_ids, beam_size, normalize=0.0, word_penalty=0.0, max_length_factor=3.0,
                allow_unk=False, trace=None, scorer=None, flip_boundary_below=None):
    """Beam search of ONE sentence (src_ids 1-D incl. the final </s>) with a marian_ref model.
    Returns the n-best list (beam_size hypotheses, best first), each
    {"ids": [int] (incl. final </s> when finished), "token_logprobs": [float32],
     "score": float32 (sum of log-probs), "normalized": float32}.
    scorer: optional ModelScorer for this sentence (re-used across runs; memoised prefixes).
    flip_boundary_below: see beam_search_core (robustness probe only)."""
    src_ids = [int(i) for i in np.asarray(src_ids).reshape(-1)]
    if scorer is None:
        scorer = ModelScorer(model, src_ids)
    # Marian: a source that consists only of </s> (empty line) is forced to </s>
    empty = len(src_ids) >= 1 and src_ids[0] == model.src_vocab.eos
    return beam_search_core(scorer, len(src_ids), model.V, model.eos_id, model.unk_id, beam_size,
                            normalize=normalize, word_penalty=word_penalty,
                            max_length_factor=max_length_factor, allow_unk=allow_unk, trace=trace,
                            empty_source=empty, flip_boundary_below=flip_boundary_below)


def score_pairs(model, src_ids, tgt_ids):
    """marian-scorer: teacher-forced sum of log-probs of tgt_ids (given as scored, normally ending
    with </s>) in one full-sequence decoder pass (causal mask), no <unk> suppression.
    Returns {"score": float32 (sequential float32 sum), "token_logprobs": [float32]}."""
    src = np.asarray(src_ids).reshape(1, -1)
    tgt = np.asarray(tgt_ids).reshape(1, -1)
    src_len = np.array([src.shape[1]])
    enc = ref.encoder(model, src, src_len)
    logits = ref.decoder_forward_all(model, enc, src_len, tgt)[0]
    lps = ref.log_softmax(logits)
    tok_lp = [F32(lps[i, int(tok)]) for i, tok in enumerate(tgt[0])]
    s = F32(0)
    for x in tok_lp:
        s = F32(s + x)
    return {"score": s, "token_logprobs": tok_lp}


if __name__ == "__main__":  # tiny CLI: n-best of stdin lines
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("-b", "--beam-size", type=int, default=4)
    ap.add_argument("-n", "--normalize", type=float, default=0.0)
    ap.add_argument("--word-penalty", type=float, default=0.0)
    ap.add_argument("--allow-unk", action="store_true")
    a = ap.parse_args()
    m = ref.load_model(a.model)
    for no, line in enumerate(sys.stdin):
        ids = ref.encode_text(m, line.rstrip("\n"))
        for h in beam_search(m, ids, a.beam_size, a.normalize, a.word_penalty, allow_unk=a.allow_unk):
            print("%d ||| %s ||| F0= %r ||| %r" % (no, ref.decode_ids(m, h["ids"]), float(h["score"]),
                                                  float(h["normalized"])))
