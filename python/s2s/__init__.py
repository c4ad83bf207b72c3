"""s2s: fast CPU translation with Marian / OPUS-MT, Hugging Face and CTranslate2 model folders.

The API is CTranslate2's ``Translator`` on s2s's engine, with raw text in and out::

    import s2s
    translator = s2s.Translator("opus-mt-en-de", compute_type="int8")
    for result in translator.translate_batch(["Hello world."], beam_size=4, num_hypotheses=2,
                                             return_scores=True):
        print(result.hypotheses, result.scores)

Every call releases the GIL (two Python threads can translate at once) and Ctrl-C interrupts it
within a decoder step (KeyboardInterrupt). Errors are ``s2s.Error`` subclasses carrying s2s's
one-line messages: ``UsageError`` and ``InputError`` are also ``ValueError``, ``ModelError``
a ``RuntimeError``.
"""

import queue
import threading
from itertools import islice

from ._s2s import (
    Cancelled,
    Error,
    InputError,
    ModelError,
    TokenStep,
    UsageError,
    default_model_folder,
)
from ._s2s import Engine as _Engine
from ._s2s import ScoringOptions as _ScoringOptions
from ._s2s import TranslationOptions as _TranslationOptions

__all__ = [
    "Translator",
    "TranslationResult",
    "ScoringResult",
    "TokenStep",
    "Error",
    "UsageError",
    "ModelError",
    "InputError",
    "Cancelled",
    "default_model_folder",
]


class TranslationResult:
    """One line's translations, best first (none for a blank line).

    ``hypotheses``: texts; ``scores``: their log-probabilities (with ``return_scores``);
    ``tokens``: their target pieces (``</s>`` included); ``token_scores``; ``alignment``: per
    hypothesis the (source, target) piece pairs (with ``return_alignment``);
    ``word_alignment`` and ``word_spans``: the same as words and character spans; ``notes``:
    what was done to the line (sentences, split or truncated, protected spans, warnings).
    """

    __slots__ = ("hypotheses", "scores", "normalized_scores", "tokens", "token_scores",
                 "alignment", "word_alignment", "word_spans", "notes")

    def __init__(self, raw, return_scores, return_alignment):
        hyps = raw.hypotheses
        self.hypotheses = [h.text for h in hyps]
        self.scores = [h.score for h in hyps] if return_scores else []
        self.normalized_scores = [h.normalized_score for h in hyps] if return_scores else []
        self.tokens = [h.tokens for h in hyps]
        self.token_scores = [h.token_scores for h in hyps]
        self.alignment = [h.alignment for h in hyps] if return_alignment else []
        self.word_alignment = [h.word_alignment for h in hyps] if return_alignment else []
        self.word_spans = ([[(tuple(s), tuple(t)) for s, t in h.word_spans] for h in hyps]
                           if return_alignment else [])
        self.notes = raw.notes

    def __repr__(self):
        return f"TranslationResult(hypotheses={self.hypotheses!r}, scores={self.scores!r})"


class ScoringResult:
    """A pair's score: ``log_probs`` per target token (``tokens``, ``</s>`` included), their
    sum ``score``, ``normalized_score``, and with ``return_alignment`` the piece and word pairs."""

    __slots__ = ("score", "normalized_score", "tokens", "log_probs", "alignment",
                 "word_alignment")

    def __init__(self, raw):
        self.score = raw.score
        self.normalized_score = raw.normalized_score
        self.tokens = raw.tokens
        self.log_probs = raw.token_scores
        self.alignment = raw.alignment
        self.word_alignment = raw.word_alignment

    def __repr__(self):
        return f"ScoringResult(score={self.score!r}, tokens={self.tokens!r})"


def _text(line):
    """A line of text, or pre-tokenized SentencePiece pieces joined back into text."""
    if isinstance(line, str):
        return line
    return "".join(line).replace("\u2581", " ").strip()


def _alignment(value):
    if value is True:
        return "hard"
    if value in (False, None):
        return None
    return str(value)


def _options(beam_size=None, num_hypotheses=None, length_penalty=None, max_input_length=None,
             max_decoding_length=None, min_decoding_length=None, repetition_penalty=None,
             no_repeat_ngram_size=None, sampling_topk=None, sampling_topp=None,
             sampling_temperature=None, seed=None, target_prefix=None, return_alignment=False,
             protect=None, html=None, settings=None):
    o = _TranslationOptions()
    for name, value in (("beam_size", beam_size), ("num_hypotheses", num_hypotheses),
                        ("length_penalty", length_penalty),
                        ("max_input_length", max_input_length),
                        ("max_decoding_length", max_decoding_length),
                        ("min_decoding_length", min_decoding_length),
                        ("repetition_penalty", repetition_penalty),
                        ("no_repeat_ngram_size", no_repeat_ngram_size),
                        ("sampling_topk", sampling_topk), ("sampling_topp", sampling_topp),
                        ("sampling_temperature", sampling_temperature), ("seed", seed),
                        ("protect", protect), ("html", html)):
        if value is not None:
            setattr(o, name, value)
    if target_prefix is not None:
        o.target_prefix = [_text(p) if p else "" for p in target_prefix]
    alignment = _alignment(return_alignment)
    if alignment is not None:
        o.alignment = alignment
    if settings:
        o.settings = [(str(k), str(v)) for k, v in settings.items()]
    return o


class Translator:
    """A model folder loaded for translation and scoring.

    ``model_path``: a Marian / OPUS-MT, Hugging Face (MarianMT, M2M-100, NLLB) or CTranslate2
    folder; None: s2s's shipped model. ``compute_type``: "default"/"float32", "int8" (also
    "int8_float32") or "bfloat16". ``inter_threads``: translators working at once on one model
    (s2s's workers); ``intra_threads``: compute threads (0: all cores). Other keyword arguments
    are s2s translate settings by name with ``_`` for ``-`` (``sentence_split="off"``,
    ``target_lang="deu"``), fixed for every call.
    """

    def __init__(self, model_path=None, compute_type="default", inter_threads=1,
                 intra_threads=0, **settings):
        pairs = [(k.replace("_", "-"), _setting_text(v)) for k, v in settings.items()]
        self._engine = _Engine(model_path, compute_type, inter_threads, intra_threads, pairs)

    @property
    def model_path(self):
        return self._engine.model_path

    def translate_batch(self, source, *, return_scores=False, return_alignment=False,
                        **options):
        """One TranslationResult per line of ``source`` (text, or lists of pieces).

        Options (CTranslate2's names; None keeps the engine's setting): beam_size,
        num_hypotheses, length_penalty, max_input_length, max_decoding_length,
        min_decoding_length, repetition_penalty, no_repeat_ngram_size, sampling_topk,
        sampling_topp, sampling_temperature, seed, target_prefix (one per line), protect, html,
        settings (a dict of other s2s translate settings). ``return_alignment``: True (hard),
        "soft" or a threshold.
        """
        lines = [_text(line) for line in source]
        raw = self._engine.translate_batch(
            lines, _options(return_alignment=return_alignment, **options))
        return [TranslationResult(r, return_scores, bool(return_alignment)) for r in raw]

    def translate_iterable(self, source, max_batch_size=32, **kwargs):
        """Translates an iterable of lines, yielding a TranslationResult per line in order,
        ``max_batch_size`` lines at a time."""
        iterator = iter(source)
        while True:
            batch = list(islice(iterator, max_batch_size))
            if not batch:
                return
            yield from self.translate_batch(batch, **kwargs)

    def translate_file(self, input_path, output_path, **options):
        """Translates every line of ``input_path`` into ``output_path`` (the best text per
        line); returns the number of lines."""
        return self._engine.translate_file(input_path, output_path, _options(**options))

    def generate_tokens(self, source, callback=None, **options):
        """Translates one line greedily (or by sampling), its tokens as the search chooses them
        (CTranslate2's generate_tokens). Without a callback: an iterator of TokenSteps, lazily
        (closing it early, or Ctrl-C while it waits, stops the search within a step). With
        ``callback(step)`` (returning False stops there): returns the TranslationResult."""
        if callback is not None:
            raw = self._engine.translate_tokens(_text(source), callback, _options(**options))
            return TranslationResult(raw, True, False)
        return self._token_stream(_text(source), _options(**options))

    def _token_stream(self, line, options):
        # The search runs in a thread of its own (the engine releases the GIL) and hands each
        # step over a queue; the consumer's pace never blocks it for more than a step.
        steps = queue.Queue()
        stop = threading.Event()
        finished = object()

        def hear(step):
            steps.put(step)
            return not stop.is_set()

        def search():
            try:
                self._engine.translate_tokens(line, hear, options)
                steps.put(finished)
            except BaseException as error:  # handed to the consumer
                steps.put(error)

        worker = threading.Thread(target=search, daemon=True)
        worker.start()
        try:
            while True:
                item = steps.get()
                if item is finished:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            worker.join()

    def score_batch(self, source, target, *, length_penalty=None, return_alignment=False):
        """One ScoringResult per (source, target) pair."""
        if len(source) != len(target):
            raise ValueError(f"score_batch: {len(source)} sources for {len(target)} targets")
        o = _ScoringOptions()
        if length_penalty is not None:
            o.length_penalty = length_penalty
        alignment = _alignment(return_alignment)
        if alignment is not None:
            o.alignment = alignment
        pairs = [(_text(s), _text(t)) for s, t in zip(source, target)]
        return [ScoringResult(r) for r in self._engine.score_batch(pairs, o)]


def _setting_text(value):
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)
