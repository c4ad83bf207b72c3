from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

Line = Union[str, Sequence[str]]  # text, or SentencePiece pieces
Alignment = Union[bool, str, float]  # True/"hard", "soft", or a threshold in (0, 1)

class Error(RuntimeError): ...
class UsageError(Error, ValueError): ...
class InputError(Error, ValueError): ...
class ModelError(Error): ...
class Cancelled(Error): ...

def default_model_folder() -> str: ...

class TokenStep:
    step: int
    token_id: int
    token: str
    log_prob: float
    is_last: bool

class LineNotes:
    sentences: int
    invalid_utf8: int
    split_for_length: bool
    truncated: bool
    source_tokens: int
    short_units: List[int]
    glossary_unmet: bool
    protected_spans: int
    unspellable: List[str]
    markup_problem: str
    warnings: List[str]

class TranslationResult:
    hypotheses: List[str]
    scores: List[float]
    normalized_scores: List[float]
    tokens: List[List[str]]
    token_scores: List[List[float]]
    alignment: List[List[Tuple[int, int]]]
    word_alignment: List[List[Tuple[int, int]]]
    word_spans: List[List[Tuple[Tuple[int, int], Tuple[int, int]]]]
    notes: LineNotes

class ScoringResult:
    score: float
    normalized_score: float
    tokens: List[str]
    log_probs: List[float]
    alignment: List[Tuple[int, int]]
    word_alignment: List[Tuple[int, int]]

class Translator:
    def __init__(self, model_path: Optional[str] = ..., compute_type: str = ...,
                 inter_threads: int = ..., intra_threads: int = ...,
                 **settings: Union[str, int, float, bool]) -> None: ...
    @property
    def model_path(self) -> str: ...
    def translate_batch(self, source: Sequence[Line], *, return_scores: bool = ...,
                        return_alignment: Alignment = ..., beam_size: Optional[int] = ...,
                        num_hypotheses: Optional[int] = ..., length_penalty: Optional[float] = ...,
                        max_input_length: Optional[int] = ...,
                        max_decoding_length: Optional[int] = ...,
                        min_decoding_length: Optional[int] = ...,
                        repetition_penalty: Optional[float] = ...,
                        no_repeat_ngram_size: Optional[int] = ...,
                        sampling_topk: Optional[int] = ..., sampling_topp: Optional[float] = ...,
                        sampling_temperature: Optional[float] = ..., seed: Optional[int] = ...,
                        target_prefix: Optional[Sequence[Optional[Line]]] = ...,
                        protect: Optional[bool] = ..., html: Optional[bool] = ...,
                        settings: Optional[Dict[str, object]] = ...) -> List[TranslationResult]: ...
    def translate_iterable(self, source: Iterable[Line], max_batch_size: int = ...,
                           **kwargs: object) -> Iterator[TranslationResult]: ...
    def translate_file(self, input_path: str, output_path: str, **options: object) -> int: ...
    def generate_tokens(self, source: Line,
                        callback: Optional[Callable[[TokenStep], Optional[bool]]] = ...,
                        **options: object) -> Union[TranslationResult, Iterator[TokenStep]]: ...
    def score_batch(self, source: Sequence[Line], target: Sequence[Line], *,
                    length_penalty: Optional[float] = ...,
                    return_alignment: Alignment = ...) -> List[ScoringResult]: ...
