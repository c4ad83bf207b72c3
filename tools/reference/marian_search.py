#!/usr/bin/python3
"""Marian beam search (marian-decoder) and teacher-forced scoring (marian-scorer), numpy reference.

Written from marian-decoder's beam search (docs/models.md, "Marian's beam search") on top of the
forward pass in marian_ref.py -- and, with the same rules, on top of hf_ref.py (Hugging Face
MarianMT) and onmt_ref.py (CTranslate2), the way the C++ engine runs one search for every model
format.  Run with Debian's /usr/bin/python3 (python3-numpy).

    import marian_ref as ref, marian_search as ms
    model = ref.load_model(folder)          # or hf_ref.load_model / onmt_ref.load_model
    hyps  = ms.beam_search(model, src_ids, beam_size=4, normalize=1.0)
    best  = hyps[0]            # {"ids", "token_logprobs", "score", "normalized"}
    s     = ms.score_pairs(model, src_ids, tgt_ids)   # {"score", "token_logprobs"}
    ms.search_rules(model)     # {"allow_unk", "min_length", "banned_ids"}: the model's defaults
    ms.beam_search(model, src_ids, 4, scorer=ms.RepetitionScorer(ms.ModelScorer(model, src_ids),
                   repetition_penalty=1.2, no_repeat_ngram=3))   # CTranslate2's repetition rules
    ms.beam_search(model, src_ids, 4, prefix_ids=[17, 5])   # forced start (TARGET PREFIX below)
    hyps = ms.beam_search(model, src_ids, 4, alignment=True)  # + "alignment" rows (WORD ALIGNMENT)
    ms.alignment_text(hyps[0]["alignment"], "hard")           # "0-0 1-1 ..." as marian-decoder prints
    ms.score_pairs(model, src_ids, tgt_ids, alignment=True)   # marian-scorer --alignment rows

Model families (family_of(model) picks one by the model's class; each supplies the forward pass --
encoder, decoder_init, decoder_step, decoder_forward_all, log_softmax of its reference module --
and its per-model search rules, which beam_search uses unless told otherwise):
  * "marian" (marian_ref.Model): <unk> suppressed (allow_unk False), nothing banned, min_length 0,
    a source that is only </s> is forced to [</s>].
  * "hf" (hf_ref.HFModel): allow_unk True (HF does not suppress <unk>), banned ids = the pad id and
    the single-token bad_words_ids (HF bans pad), min_length 0, no forced empty-source rule.
  * "ct2" (onmt_ref.CT2Model): allow_unk = not model.disable_unk (True: CTranslate2's
    disable_unk=False), nothing banned, min_length = model.min_length (1: CTranslate2's
    min_decoding_length, </s> is never the first token), no forced empty-source rule.
Everything else (path scores, top-k and its tie-break, shrinking beam, length cut, normalisation,
n-best order) is Marian's, for every family.

Search rules (one sentence, single model of weight 1):
  * A hypothesis' path score is the float32 running sum of the log-softmax values of its tokens
    (expanded score = float32(prev_score + logprob), as Marian adds prevPathScores + logProbs).
  * Step 0 expands only the single start state (prev score 0).  The beam width at step 0 is
    beam_size (Marian starts with beam_size copies of the start hypothesis but only one row of
    scores).
  * Unless allow_unk, the <unk> column of the expanded scores is set to the lowest float32
    (numpy finfo(float32).min == C++ numeric_limits<float>::lowest()) after adding the previous
    scores and before top-k.
  * Per-model extras (defaults: none, i.e. Marian): the columns of banned_ids are set to the lowest
    float32 in every row, and the </s> column of a hypothesis with fewer than min_length tokens
    (min_length 1: at step 0 only) likewise, at the same point as <unk>.
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

Decoding is done per hypothesis with batch size 1 (the family's decoder_step on a copied K/V
cache), memoised by target prefix, so a hypothesis' log-probs do not depend on the other
hypotheses in the beam (no batch-size dependent BLAS rounding) and beam 1 equals the reference's
greedy (marian_ref.greedy, hf_ref.greedy, onmt_ref.greedy with the same rules) bit for bit.

TARGET PREFIX (beam_search(..., prefix_ids=[...]), issue 19 part 1): CTranslate2's
target_prefix ("forced start") on top of the rules above, for every family.  Looked up in
OpenNMT/CTranslate2 @0d8bcd36 (src/decoding.cc last changed in c687308e):
  * decode() splits each start-token list into the decoder start token and prefix_ids
    (split_start_tokens, decoding.cc:1000-1021; a batch in which no sentence has a prefix is run
    without prefix_ids at all); run_translation builds them with make_target_ids(..., is_prefix
    =true): decoder start token + prefix, no </s>, no truncation
    (models/sequence_to_sequence.cc:169-186, 316-318).
  * While step < len(prefix), BeamSearch and GreedySearch take their top-k / argmax as usual and
    then overwrite every candidate with prefix[step]; the score of candidate 0 becomes 0 and the
    others -1e10, all pointing back to beam 0 (update_sample_with_prefix, decoding.cc:43-47,
    called at :567-577 and :881-882).  So the beam collapses to ONE hypothesis, the forced tokens'
    log-probs are NOT part of the hypothesis score (it is reset to exactly 0 at every forced
    step: a hypothesis' score is the sum of the log-probs of the tokens after the prefix,
    </s> included), and the first free step expands only that hypothesis (like a start state).
  * At the first free step (step == len(prefix)) every candidate k > 0 that is an end token is
    replaced by id 0 with score -1e10 (decoding.cc:49-56, "penalize </s> in secondary beams",
    CTranslate2 #290 against short predictions): </s> can only be chosen as the single best
    candidate there.
  * A forced token never finishes a hypothesis: finishing needs an end token AND step >=
    len(prefix) (decoding.cc:620 beam, :922 greedy); the forced token is placed whatever the
    logit filters did (disable_unk, suppressed ids, min_length only act on the log-probs, which
    the forced step discards), and the repetition rules see the prefix tokens as history
    (alive_seq holds them, decoding.cc:588, 889).
  * return_prefix defaults to true (include/ctranslate2/decoding.h:159): the returned hypothesis
    starts with the prefix (build_hypothesis from 0, decoding.cc:625), so max_length counts the
    prefix (get_max_step / is_last_step, decoding.cc:359-382: the last step is step+1 ==
    max_length), min_length counts it (apply_min_length: step < min_length, decoding.cc:404),
    and the length penalty divides by the whole hypothesis length incl. prefix and </s>
    (finalize_result uses hypotheses[i].size(), decoding.cc:194, 247, with
    include_eos_in_hypotheses = true, decoding.h:154; </s> is dropped afterwards,
    sequence_to_sequence.cc:382-389).
  (Marian's --force-decode, src/translator/sampling.h force() @c9f287db, differs: it keeps the
  forced tokens' log-probs in the path score and has no </s> rule.)
Rules implemented here (P = len(prefix_ids) > 0; None or [] = no prefix, exactly the search
without the argument):
  * steps t = 0..P-1 are forced: one live hypothesis, token prefix_ids[t], its path score stays
    float32 0, token_logprobs 0.0 for these tokens; the scorer's log-prob of each forced token is
    reported separately as "prefix_logprobs" (information only); <unk> suppression, banned_ids and
    min_length do not apply to forced tokens, and a forced </s> does not finish the hypothesis;
  * the length limit counts every token: if t+1 >= max_length_factor * srcLen at a forced step,
    the (cut) prefix is the only hypothesis returned (n-best of 1) and search stops;
  * step P is Marian's step 0 on that hypothesis: beam width beam_size, one row of scores, with
    the usual <unk> / banned_ids / min_length columns (min_length counts the prefix, so with P >=
    min_length </s> is allowed); PLUS: if the best candidate is not </s>, the </s> column is set
    to float32 lowest before the top-k (CTranslate2's secondary-</s> rule; with beam 1 it changes
    nothing);
  * then Marian's rules as above; normalized = (score - wp*L) / L^normalize with L = all tokens
    incl. prefix and </s>; the n-best list has beam_size hypotheses, all starting with the prefix
    ("prefix_length" = P).
  * Marian's empty-source rule (source only </s>) wins over a prefix.

WORD ALIGNMENT (beam_search(..., alignment=True), score_pairs(..., alignment=True), issue 19
part 2): marian-decoder / marian-scorer --alignment.  Looked up in marian-nmt/marian-dev
@c9f287db:
  * Which attention: src/models/transformer.h:829-846: when --alignment is given (or the options
    hold guided-alignment != "none"), the decoder layer attLayer = dec-depth - 1 for
    transformer-guided-alignment-layer "last", else std::stoull(value) - 1 (1-based number;
    ABORT if >= dec-depth) saves its cross-attention (first encoder only) softmax output;
    collectOneHead (:216-236) keeps head 0 (slice(weights, -3, 0): the first dh model
    dimensions).  The layer comes from the model: transformer-guided-alignment-layer is a model
    feature (models/encoder_decoder.cpp:58) written into special:model.yml of every model with
    Marian's default "last" (common/config_parser.cpp:317-319), and the model yml overrides the
    command line (translator/scorers.cpp:46, merge with overwrite).  guided-alignment (default
    "none", config_parser.cpp:586-589) is a training option, NOT a model feature: a model does
    not record whether it was trained with guided alignment, and Marian never refuses
    --alignment -- it prints the attention of that head for any transformer model.
  * Rows: BeamSearch::toHyps (translator/beam_search.cpp:21-23, 143-147) gives each new
    hypothesis the attention row of the decoder step that scored it (the step whose input was
    its parent); getAlignmentsForHypothesis (:179-222) keeps the source positions whose mask is
    1, i.e. all S positions incl. the source </s> (batch padding dropped).  The printer walks the
    back-pointers from the final hypothesis to (excluding) the start state
    (output_printer.cpp:7-17, hypothesis.h:74-83): one row per target token, the final </s>
    included (a length-cut hypothesis has no </s> row).  Forced prefix tokens have rows too.
  * marian-scorer (rescorer/rescorer.h:236-267): the full-sequence decoder's attention, one row
    per unmasked target position (every token incl. </s>), unmasked source positions.
  * Output (output_printer.h:42-43, 75-78; rescorer/score_collector.cpp:57-80): " ||| " + text
    after the translation (n-best: between translation and scores); --alignment soft ->
    SoftAlignToString (data/alignment.cpp:99-113): rows joined by " ", values by ",", each as
    ostream << float (%g, 6 digits); "hard" or a bare --alignment (implicit value "1",
    config_parser.cpp:796-798, 891-893) -> threshold 1; otherwise threshold = max(stof(value), 0)
    (output_printer.h:101-107), and ConvertSoftAlignToHardAlign (alignment.cpp:67-97): threshold
    == 1 -> per target t the first s with the largest value (strict '<' scan), else every (s, t)
    with value > threshold (strict); sorted by s then t (:22-26); toString "s-t" joined by " "
    (:57-65).  A threshold of 0 (unparsable string other than soft/hard) is an error.

CANDIDATES (beam_search(..., candidates=[ids]), beam_search_core(..., candidates=...)): a lexical
shortlist / vocabulary map restricts the output layer (Marian --shortlist, CTranslate2 use_vmap;
which ids, per batch: tools/reference/shortlist_ref.py).  Marian computes the logits of the
shortlisted columns only (data/shortlist.cpp Shortlist::filter / createCachedTensors:
index_select of the output weights and bias), takes the log-softmax over those K columns, the
top-k over [B_cur, K] and maps positions back to word ids (Shortlist::reverseMap);
CTranslate2 does the same with update_output_layer(size_multiple, restrict_ids) (padding
columns get a -inf bias: no effect).  Rules implemented here (None = no restriction, exactly the
search without the argument):
  * the log-probs of a step are log_softmax(logits[candidates]) (float32, the family's
    log_softmax, on the scorer's raw logits when it has them -- ModelScorer.logits -- else on its
    log-probs, which is the same up to rounding); every other id is EXCLUDED: its expanded score
    is -inf, it is never selected, <unk> suppression / banned_ids / min_length / the secondary
    </s> rule only ever lower candidate columns to float32 lowest (an excluded id stays -inf);
  * the top-k tie-break "lower hyp_index * V + token first" is Marian's "lower hyp_index * K +
    position first" because the candidate list is sorted ascending;
  * a step margin (trace) counts candidates only (None when no candidate was rejected);
  * if fewer than the beam width of candidates can be selected (all others -inf) the search
    raises ValueError (Marian's multiple-of-8 padding makes that impossible with beam <= 8).
  Forced prefix tokens are placed whether or not they are candidates (CTranslate2 adds the
  target prefix to the candidates anyway); "prefix_logprobs" is -inf for a non-candidate.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marian_ref as ref  # noqa: E402
import hf_ref  # noqa: E402
import m2m100_ref  # noqa: E402
import onmt_ref  # noqa: E402

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


class Family:
    """One model family: its reference module (the forward pass) and its per-model search rules.
    The reference module provides encoder(model, src[1,S], src_len[1]), decoder_init(model, enc,
    src_len), decoder_step(model, state, prev_ids[1]) -> (logits [1,V], state) (prev_ids ignored at
    t=0), decoder_forward_all(model, enc, src_len, tgt[1,T]) -> logits [1,T,V] (teacher forced) and
    log_softmax."""
    name = None
    ref = None
    model_class = None

    def copy_state(self, state):
        """A decoder state that the next decoder_step may extend without touching `state`.
        marian_ref / hf_ref: "cache" is a list of per-layer arrays that a step replaces (never
        modifies in place)."""
        st = dict(state)
        st["cache"] = list(state["cache"])
        return st

    def allow_unk(self, model):
        return True

    def banned_ids(self, model):
        return []

    def min_length(self, model):
        return 0

    def empty_source(self, model, src_ids):
        """Whether the search is replaced by beam_size x [</s>] with score 0."""
        return False

    def load_model(self, folder, **kw):
        return self.ref.load_model(folder, **kw)


class MarianFamily(Family):
    name = "marian"
    ref = ref
    model_class = ref.Model

    def allow_unk(self, model):
        return False                    # marian-decoder suppresses <unk> unless --allow-unk

    def empty_source(self, model, src_ids):
        # Marian: a source that consists only of </s> (empty line) is forced to </s>
        return len(src_ids) >= 1 and src_ids[0] == model.src_vocab.eos


class HFFamily(Family):
    name = "hf"
    ref = hf_ref
    model_class = hf_ref.HFModel

    def banned_ids(self, model):
        # generate() bans the single-token bad_words_ids (the converter writes [[pad]]); the pad id
        # itself is banned in any case (never a translation token)
        return sorted({int(model.pad_id)} | {int(i) for i in model.banned})


class CT2Family(Family):
    name = "ct2"
    ref = onmt_ref
    model_class = onmt_ref.CT2Model

    def copy_state(self, state):
        """onmt_ref: "caches" is a list of {"self": {k, v}, "mem": {k, v}} dicts whose entries a
        step replaces."""
        st = dict(state)
        st["caches"] = [{"self": dict(c["self"]), "mem": dict(c["mem"])} for c in state["caches"]]
        return st

    def allow_unk(self, model):
        return not model.disable_unk    # CTranslate2 disable_unk=False

    def min_length(self, model):
        return int(model.min_length)    # CTranslate2 min_decoding_length=1


class M2M100Family(Family):
    """NLLB-200 / M2M-100 (m2m100_ref): HF's generate() bans nothing and allows <unk>; the target
    language token is a prefix_ids=[token] (forced_bos_token_id, scored 0)."""
    name = "m2m100"
    ref = m2m100_ref
    model_class = m2m100_ref.M2M100Model


FAMILIES = {f.name: f for f in (MarianFamily(), HFFamily(), CT2Family(), M2M100Family())}


def family_of(model):
    """The Family of a model loaded by marian_ref, hf_ref or onmt_ref."""
    for fam in FAMILIES.values():
        if isinstance(model, fam.model_class):
            return fam
    raise TypeError("no search family for %r" % type(model).__name__)


def search_rules(model):
    """The model's own search rules: {"allow_unk": bool, "min_length": int, "banned_ids": [int]}."""
    fam = family_of(model)
    return {"allow_unk": bool(fam.allow_unk(model)), "min_length": int(fam.min_length(model)),
            "banned_ids": [int(i) for i in fam.banned_ids(model)]}


class ModelScorer:
    """next_logprobs(prefix) -> float32 [V] log-softmax of the next token given the target prefix
    (tuple of ids).  Batch size 1, K/V cache per prefix, memoised.  family: a Family (default:
    family_of(model)).  alignment (Marian family only; see marian_ref): True = the model's
    alignment layer, head 0; or (layer0, head); then alignment(prefix) -> float32 [S] is the
    cross-attention row of the step that predicts the token after `prefix`."""

    def __init__(self, model, src_ids, family=None, alignment=False):
        self.model = model
        self.family = family_of(model) if family is None else family
        self.ref = self.family.ref
        src = np.asarray(src_ids).reshape(1, -1)
        self.src_len = np.array([src.shape[1]])
        self.enc = self.ref.encoder(model, src, self.src_len)
        self.states = {}        # prefix -> (state after feeding the prefix, logprobs)
        self.V = model.V
        self.align = alignment if alignment else None
        if self.align is not None and self.family.name != "marian":
            raise NotImplementedError("alignment: Marian models only")

    def _state(self, prefix):
        if prefix in self.states:
            return self.states[prefix]
        R = self.ref
        if len(prefix) == 0:
            if self.align is not None:
                st = R.decoder_init(self.model, self.enc, self.src_len, alignment=self.align)
            else:
                st = R.decoder_init(self.model, self.enc, self.src_len)
            logits, st = R.decoder_step(self.model, st, np.array([-1]))
        else:
            parent = self._state(prefix[:-1])[0]
            st = self.family.copy_state(parent)           # arrays are never modified in place
            logits, st = R.decoder_step(self.model, st, np.array([prefix[-1]]))
        lp = R.log_softmax(logits[0]).astype(F32)
        self.states[prefix] = (st, lp, logits[0].astype(F32))
        return self.states[prefix]

    def __call__(self, prefix):
        return self._state(tuple(prefix))[1]

    def logits(self, prefix):
        """float32 [V]: the raw scores of the next token (before log-softmax)."""
        return self._state(tuple(prefix))[2]

    def alignment(self, prefix):
        """float32 [S]: cross-attention probabilities of the step that predicts the next token."""
        if self.align is None:
            raise ValueError("ModelScorer made without alignment=True")
        return self._state(tuple(prefix))[0]["alignment"][0].astype(F32)


def repetition_rules(logits, ids, repetition_penalty=1.0, no_repeat_ngram=0):
    """CTranslate2's repetition_penalty and no_repeat_ngram_size (decoding_utils.cc
    RepetitionPenalty, NoRepeatNgram), on the float32 logits of the next token given the tokens
    generated so far (`ids`, without the start state):
      * every distinct id already generated: logit * penalty if the logit is < 0, else
        logit / penalty (the CTRL paper's rule; penalty 1 changes nothing);
      * no_repeat_ngram N > 0 and at least N tokens generated: every token that would complete an
        N-gram already present (the last N-1 tokens followed by it earlier) is disabled: its logit
        becomes float32 lowest.
    Then the caller takes the log-softmax, as CTranslate2 does."""
    out = np.array(logits, dtype=F32, copy=True)
    if repetition_penalty != 1.0:
        p = F32(repetition_penalty)
        for t in sorted(set(int(i) for i in ids)):
            x = F32(logits[t])
            out[t] = F32(x * p) if x < 0 else F32(x / p)
    n = int(no_repeat_ngram)
    if n > 0 and len(ids) >= n:
        tail = list(ids[len(ids) - n + 1:])
        for start in range(len(ids) - n + 1):
            if list(ids[start:start + n - 1]) == tail:
                out[int(ids[start + n - 1])] = LOWEST
    return out


class RepetitionScorer:
    """A ModelScorer with repetition_rules applied before the log-softmax: next_logprobs(prefix)
    for beam_search(..., scorer=RepetitionScorer(...))."""

    def __init__(self, scorer, repetition_penalty=1.0, no_repeat_ngram=0):
        self.scorer, self.family = scorer, scorer.family
        self.repetition_penalty, self.no_repeat_ngram = repetition_penalty, no_repeat_ngram
        self.memo = {}

    def alignment(self, prefix):
        return self.scorer.alignment(prefix)

    def __call__(self, prefix):
        prefix = tuple(prefix)
        if prefix not in self.memo:
            logits = repetition_rules(self.scorer.logits(prefix), prefix,
                                      self.repetition_penalty, self.no_repeat_ngram)
            self.memo[prefix] = self.scorer.ref.log_softmax(logits).astype(F32)
        return self.memo[prefix]


class CandidateScorer:
    """A scorer restricted to a candidate set (CANDIDATES in the module docstring):
    next_logprobs(prefix) -> float32 [V], log_softmax over the candidate ids, -inf elsewhere.
    scorer: a ModelScorer (its raw logits are used), a RepetitionScorer or any callable
    prefix -> log-probs [V] (renormalised over the candidates)."""

    def __init__(self, scorer, candidates, vocab_size):
        self.scorer = scorer
        self.family = getattr(scorer, "family", None)
        self.V = int(vocab_size)
        self.candidates = np.array(sorted({int(c) for c in candidates}), dtype=np.int64)
        if len(self.candidates) == 0:
            raise ValueError("empty candidate set")
        if self.candidates[0] < 0 or self.candidates[-1] >= self.V:
            raise ValueError("candidate ids outside [0, %d)" % self.V)
        fam_ref = getattr(self.family, "ref", None)
        self.log_softmax = fam_ref.log_softmax if fam_ref is not None else ref.log_softmax
        self.memo = {}

    def alignment(self, prefix):
        return self.scorer.alignment(prefix)

    def __call__(self, prefix):
        prefix = tuple(prefix)
        if prefix not in self.memo:
            logits = getattr(self.scorer, "logits", None)
            x = logits(prefix) if logits is not None else self.scorer(prefix)
            x = np.asarray(x, dtype=F32)[self.candidates]
            out = np.full(self.V, -np.inf, dtype=F32)
            out[self.candidates] = np.asarray(self.log_softmax(x), dtype=F32)
            self.memo[prefix] = out
        return self.memo[prefix]


def beam_search_core(next_logprobs, src_len, vocab_size, eos_id, unk_id, beam_size,
                     normalize=0.0, word_penalty=0.0, max_length_factor=3.0, allow_unk=False,
                     trace=None, empty_source=False, flip_boundary_below=None, banned_ids=(),
                     min_length=0, prefix_ids=None, prefix_eos_rule=True, next_alignment=None,
                     candidates=None):
    """Marian beam search over an abstract scorer.

    next_logprobs(prefix_tuple) -> float32 array [vocab_size] (log-probs of the next token).
    src_len: source length as fed to the encoder (incl. </s> when the model appends one).
    banned_ids: tokens never selected (their expanded scores are set to float32 lowest, like
      <unk>).  min_length: </s> is not selectable while a hypothesis has fewer than min_length
      tokens (its expanded score is set to float32 lowest).  The defaults (none, 0) are Marian's.
    trace: optional list, receives one dict per step:
      {"t", "width" (live hyps expanded), "selected" [(hyp_index, token, score)], "finished"
       (number that chose </s>), "margin" (last selected - first rejected score, float64 of the
       float32 values; None if nothing was rejected), "cut" (length limit reached)}.
    flip_boundary_below: robustness probe, not Marian: whenever the top-k boundary margin is below
      this value, the last selected and the first rejected candidate are swapped (what another
      implementation with slightly different rounding / tie order might do).
    prefix_ids: optional target prefix (CTranslate2's target_prefix, see TARGET PREFIX in the
      module docstring); None or [] = no prefix, exactly the search without the argument.
      Forced steps appear in the trace with "forced": True, width 1, margin None.
    prefix_eos_rule: CTranslate2's "</s> only as the best candidate at the first step after the
      prefix" (default True; False only to measure whether the rule matters).
    next_alignment: optional callable prefix_tuple -> float32 [S] (the cross-attention row of the
      decoder step that predicts the next token, ModelScorer.alignment); every hypothesis then
      carries its rows along its back-pointers and finished ones get "alignment": [rows], one
      per target token (see WORD ALIGNMENT in the module docstring).
    candidates: optional ids the output layer is restricted to (CANDIDATES in the module
      docstring); next_logprobs is wrapped in a CandidateScorer unless it already is one for the
      same set.  None = every id, exactly the search without the argument.
    Returns the finished hypotheses, best first (see module docstring)."""
    assert beam_size >= 1
    V = int(vocab_size)
    banned_ids = [int(b) for b in banned_ids]
    assert all(0 <= b < V for b in banned_ids), banned_ids
    finished = []          # (normalized, step, order, hyp dict)
    prefix = [int(i) for i in (prefix_ids or [])]
    assert all(0 <= i < V for i in prefix), prefix
    P = len(prefix)
    forced_lps = []        # the scorer's log-probs of the forced tokens (information only)
    excluded = None        # bool [V]: ids outside the candidate set (None: no restriction)
    if candidates is not None:
        cs = next_logprobs
        if not (isinstance(cs, CandidateScorer) and cs.V == V and
                set(cs.candidates.tolist()) == {int(c) for c in candidates}):
            cs = CandidateScorer(next_logprobs, candidates, V)
        next_logprobs = cs
        excluded = np.ones(V, dtype=bool)
        excluded[cs.candidates] = False

    def finish(ids, lps, score, step, order, rows):
        nrm = normalized_score(score, len(ids), normalize, word_penalty)
        h = {"ids": [int(i) for i in ids],
             "token_logprobs": [F32(x) for x in lps],
             "score": F32(score),
             "normalized": nrm}
        if P:
            h["prefix_length"] = min(P, len(ids))
            h["prefix_logprobs"] = [F32(x) for x in forced_lps[:len(ids)]]
        if next_alignment is not None:
            h["alignment"] = [np.asarray(r, dtype=F32) for r in rows]
        finished.append((nrm, step, order, h))

    def align_row(ids):
        return None if next_alignment is None else np.asarray(next_alignment(tuple(ids)), dtype=F32)

    if empty_source:
        row = [align_row([])] if next_alignment is not None else []
        for j in range(beam_size):
            finish([eos_id], [F32(0)], F32(0), 0, j, row)
            if trace is not None and j == 0:
                trace.append({"t": 0, "width": beam_size, "selected": [], "finished": beam_size,
                              "margin": None, "cut": False})
        return [h for _, _, _, h in finished]

    max_len_f = F32(max_length_factor) * F32(src_len)
    # live hypotheses: (ids list, token logprobs list, float32 score, alignment rows)
    live = [([], [], F32(0), [])]
    t = 0
    # forced steps (target prefix): one live hypothesis, its score stays 0, nothing finishes
    # before the prefix is complete (not even a forced </s>); the length limit still applies
    while t < P:
        ids, lps, sc, rows = live[0]
        lp = np.asarray(next_logprobs(tuple(ids)), dtype=F32)
        assert lp.shape == (V,)
        tok = prefix[t]
        forced_lps.append(F32(lp[tok]))
        nids, nlps, nrows = ids + [tok], lps + [F32(0)], rows + ([align_row(ids)] if next_alignment else [])
        cut = bool(F32(t + 1) >= max_len_f)
        if trace is not None:
            trace.append({"t": t, "width": 1, "selected": [(0, tok, F32(0))], "finished": 0,
                          "margin": None, "cut": cut, "forced": True})
        if cut:             # the prefix is longer than the length limit: cut it there
            finish(nids, nlps, F32(0), t, 0, nrows)
            return [h for _, _, _, h in finished]
        live = [(nids, nlps, F32(0), nrows)]
        t += 1
    width = beam_size
    while width > 0:
        n_rows = len(live)
        scores = np.empty((n_rows, V), dtype=F32)
        lp_rows = []
        for r, (ids, lps, sc, _) in enumerate(live):
            lp = np.asarray(next_logprobs(tuple(ids)), dtype=F32)
            assert lp.shape == (V,)
            lp_rows.append(lp)
            scores[r] = (sc + lp).astype(F32)          # float32 prev + logprob
        if not allow_unk and unk_id is not None and 0 <= unk_id < V:
            scores[:, unk_id] = LOWEST
        for r, (ids, _, _, _) in enumerate(live):
            if len(ids) < min_length:
                scores[r, eos_id] = LOWEST
        for b in banned_ids:
            scores[:, b] = LOWEST
        if excluded is not None:    # excluded ids stay -inf whatever the masks above did
            scores[:, excluded] = -np.inf
        flat = scores.reshape(-1)
        # descending score, ties -> lower flat index (stable sort of the negated scores)
        order = np.argsort(-flat, kind="stable")
        if P and t == P and prefix_eos_rule and int(order[0]) != eos_id:
            # CTranslate2 (decoding.cc update_sample_with_prefix): at the first step after the
            # prefix </s> may only be the best candidate; otherwise it is not selectable
            flat = flat.copy()
            if excluded is None or not excluded[eos_id]:
                flat[eos_id] = LOWEST
            order = np.argsort(-flat, kind="stable")
        k = width
        sel = order[:k]
        margin = None
        if excluded is not None and not np.all(np.isfinite(flat[sel])):
            raise ValueError("fewer selectable candidates than the beam width %d" % k)
        if len(order) > k and (excluded is None or np.isfinite(flat[order[k]])):
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
            ids, lps, _, rows = live[h]
            lp = lp_rows[h][tok]
            sc = flat[key]
            selected.append((h, tok, F32(sc)))
            nids, nlps = ids + [tok], lps + [F32(lp)]
            # back-pointer: the new hypothesis' alignment = its parent's rows + the row of the
            # step that scored it (Marian BeamSearch::toHyps, hyp->setAlignment)
            nrows = rows + [align_row(ids)] if next_alignment is not None else rows
            if tok == eos_id:
                n_eos += 1
                finish(nids, nlps, sc, t, pos, nrows)
            elif cut:
                finish(nids, nlps, sc, t, pos, nrows)
            else:
                new_live.append((nids, nlps, F32(sc), nrows))
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
                allow_unk=None, trace=None, scorer=None, flip_boundary_below=None, banned_ids=None,
                min_length=None, prefix_ids=None, alignment=False, prefix_eos_rule=True,
                candidates=None):
    """Beam search of ONE sentence (src_ids 1-D, as fed to the encoder: incl. the final </s> for
    Marian / HF) with a marian_ref, hf_ref or onmt_ref model.
    Returns the n-best list (beam_size hypotheses, best first), each
    {"ids": [int] (incl. final </s> when finished), "token_logprobs": [float32],
     "score": float32 (sum of log-probs), "normalized": float32}.
    allow_unk, banned_ids, min_length: None = the model's own rules (search_rules(model); for a
    Marian model: <unk> suppressed, nothing banned, min_length 0).
    scorer: optional ModelScorer for this sentence (re-used across runs; memoised prefixes).
    flip_boundary_below: see beam_search_core (robustness probe only).
    prefix_ids: target prefix (TARGET PREFIX above); hypotheses then also hold "prefix_length"
      and "prefix_logprobs".
    alignment: True -> every hypothesis also holds "alignment": float32 rows [len(ids)][S] (WORD
      ALIGNMENT above; Marian models only; a given scorer must have been made with
      alignment=True).
    candidates: optional target ids the output layer is restricted to (CANDIDATES above: the
      log-softmax over these ids only, every other id excluded); None = all ids."""
    fam = family_of(model) if scorer is None else scorer.family
    src_ids = [int(i) for i in np.asarray(src_ids).reshape(-1)]
    if scorer is None:
        scorer = ModelScorer(model, src_ids, fam, alignment=alignment)
    if allow_unk is None:
        allow_unk = fam.allow_unk(model)
    if banned_ids is None:
        banned_ids = fam.banned_ids(model)
    if min_length is None:
        min_length = fam.min_length(model)
    empty = fam.empty_source(model, src_ids)
    return beam_search_core(scorer, len(src_ids), model.V, model.eos_id, model.unk_id, beam_size,
                            normalize=normalize, word_penalty=word_penalty,
                            max_length_factor=max_length_factor, allow_unk=allow_unk, trace=trace,
                            empty_source=empty, flip_boundary_below=flip_boundary_below,
                            banned_ids=banned_ids, min_length=min_length, prefix_ids=prefix_ids,
                            prefix_eos_rule=prefix_eos_rule,
                            next_alignment=scorer.alignment if alignment else None,
                            candidates=candidates)


def score_pairs(model, src_ids, tgt_ids, alignment=False):
    """marian-scorer: teacher-forced sum of log-probs of tgt_ids (given as scored, normally ending
    with </s>) in one full-sequence decoder pass (causal mask) of the model's family, no <unk>
    suppression, no banned ids, no min_length (scoring applies no search rule).
    Returns {"score": float32 (sequential float32 sum), "token_logprobs": [float32]}, and with
    alignment (Marian models; True or (layer0, head) as in marian_ref) "alignment": float32 rows
    [len(tgt_ids)][len(src_ids)] (marian-scorer --alignment: every target token incl. </s>)."""
    R = family_of(model).ref
    src = np.asarray(src_ids).reshape(1, -1)
    tgt = np.asarray(tgt_ids).reshape(1, -1)
    src_len = np.array([src.shape[1]])
    enc = R.encoder(model, src, src_len)
    probs = None
    if alignment:
        if family_of(model).name != "marian":
            raise NotImplementedError("alignment: Marian models only")
        logits, probs = R.decoder_forward_all(model, enc, src_len, tgt, alignment=alignment)
        logits = logits[0]
    else:
        logits = R.decoder_forward_all(model, enc, src_len, tgt)[0]
    lps = R.log_softmax(logits)
    tok_lp = [F32(lps[i, int(tok)]) for i, tok in enumerate(tgt[0])]
    s = F32(0)
    for x in tok_lp:
        s = F32(s + x)
    out = {"score": s, "token_logprobs": tok_lp}
    if probs is not None:
        out["alignment"] = [np.asarray(r, dtype=F32) for r in probs[0]]
    return out


# ----------------------------------------------------------------------------------------------
# Word alignment output (Marian src/data/alignment.cpp, src/translator/output_printer.cpp)
# ----------------------------------------------------------------------------------------------
def alignment_threshold(mode):
    """Marian OutputPrinter / ScoreCollector getAlignmentThreshold: max(stof(mode), 0), 0 when the
    string does not start with a number ("soft", "hard"); like std::stof, a leading number is
    enough ("0.2x" -> 0.2).  A bare --alignment means "1"."""
    import re
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", str(mode))
    return max(float(m.group(0)), 0.0) if m else 0.0


def hard_alignment(rows, threshold=1.0):
    """ConvertSoftAlignToHardAlign: rows [T][S] (P(s|t), float32).  threshold == 1: for every
    target t the first s with the largest value (strict '<' scan: ties -> lowest s);
    otherwise every (s, t) with value > threshold (strictly greater, compared in float32).  Sorted
    by source position, then target position.  Returns [(s, t)]."""
    th = F32(threshold)
    pairs = []
    for t, row in enumerate(rows):
        row = np.asarray(row, dtype=F32)
        if th == F32(1.0):
            best = 0
            for s_ in range(len(row)):
                if row[best] < row[s_]:
                    best = s_
            pairs.append((best, t))
        else:
            pairs.extend((s_, t) for s_ in range(len(row)) if row[s_] > th)
    pairs.sort()
    return pairs


def hard_alignment_text(pairs):
    """WordAlignment::toString: "s-t" pairs separated by one space."""
    return " ".join("%d-%d" % p for p in pairs)


def soft_alignment_text(rows):
    """SoftAlignToString: per target token the source probabilities joined by ",", tokens
    separated by " "; each value as std::ostream << float prints it (precision 6, %g)."""
    return " ".join(",".join("%g" % float(F32(v)) for v in row) for row in rows)


def alignment_text(rows, mode):
    """What marian-decoder prints after " ||| " (marian-scorer after the score) for --alignment
    MODE: "soft", "hard" (= threshold 1), or a number in (0, 1] (1 = argmax)."""
    if mode == "soft":
        return soft_alignment_text(rows)
    if mode == "hard":
        return hard_alignment_text(hard_alignment(rows, 1.0))
    th = alignment_threshold(mode)
    if th > 0:
        return hard_alignment_text(hard_alignment(rows, th))
    raise ValueError("Unrecognized word alignment type %r" % mode)


def argmax_margins(rows):
    """Per target row: largest minus second largest value (float64 of the float32 values; a row
    with one source position has margin inf).  Token-for-token comparison of hard (argmax)
    alignments is safe when these are well above float32 noise."""
    out = []
    for row in rows:
        r = np.sort(np.asarray(row, dtype=F32).astype(np.float64))
        out.append(float(r[-1] - r[-2]) if len(r) > 1 else math.inf)
    return out


def threshold_distance(rows, threshold):
    """Smallest |value - threshold| over all entries (float64): how safe a '> threshold' pair list
    is against rounding differences."""
    return min(abs(float(F32(v)) - float(F32(threshold))) for row in rows for v in row)


def detect_family(folder):
    """Family name of a model folder: "ct2" (model.bin), "hf" (model.safetensors), else "marian"."""
    if os.path.exists(os.path.join(folder, "model.bin")):
        return "ct2"
    if os.path.exists(os.path.join(folder, "model.safetensors")):
        return "hf"
    return "marian"


if __name__ == "__main__":  # tiny CLI: n-best of stdin lines
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("-b", "--beam-size", type=int, default=4)
    ap.add_argument("-n", "--normalize", type=float, default=0.0)
    ap.add_argument("--word-penalty", type=float, default=0.0)
    ap.add_argument("--allow-unk", action="store_true",
                    help="allow <unk> (default: the model's rule; Marian suppresses it)")
    ap.add_argument("--family", choices=sorted(FAMILIES), help="default: from the folder's files")
    ap.add_argument("--source-spm", help="CTranslate2 folders without .spm files")
    ap.add_argument("--target-spm", help="CTranslate2 folders without .spm files")
    a = ap.parse_args()
    fam = FAMILIES[a.family or detect_family(a.model)]
    kw = {}
    if fam.name == "ct2":
        kw = dict(source_spm=a.source_spm, target_spm=a.target_spm)
    m = fam.load_model(a.model, **kw)
    for no, line in enumerate(sys.stdin):
        ids = fam.ref.encode_text(m, line.rstrip("\n"))
        for h in beam_search(m, ids, a.beam_size, a.normalize, a.word_penalty,
                             allow_unk=True if a.allow_unk else None):
            print("%d ||| %s ||| F0= %r ||| %r" % (no, fam.ref.decode_ids(m, h["ids"]), float(h["score"]),
                                                  float(h["normalized"])))
