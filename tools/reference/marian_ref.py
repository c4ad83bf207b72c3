#!/usr/bin/python3
"""Independent numpy reference of Marian's (legacy transformer.h) Transformer inference.

Written from Marian's sources (summarised in docs/models.md, "Marian / OPUS-MT") -- not from the
project's C++.
Run with Debian's /usr/bin/python3 (python3-numpy, python3-sentencepiece, python3-yaml).

All arithmetic is float32 (numpy matmul / elementwise ops on float32 arrays); the only float64
use is math.erf inside gelu (result cast back to float32).

load_model(folder, precision) can emulate s2s's `--precision bfloat16|int8` (precision_ref.py):
the linear layers (attention projections, FFN, output layer) compute in that precision, and the
step-by-step decoder (decoder_step, greedy) reads its attention keys and values rounded to
bfloat16, as s2s stores its step caches; decoder_forward_all (teacher forcing) does not round
them. Everything else stays float32. The default, "float32", is the plain float32 math above.

Public API (all arrays are numpy):
    model = load_model(folder, precision="float32")                 # or "bfloat16", "int8"
    ids   = encode_text(folder_or_model, line, side="source")     # SPM pieces -> ids + </s>
    enc   = encoder(model, src_ids[B,S], src_len[B])               # -> [B,S,D]
    logits = decoder_forward_all(model, enc, src_len, tgt_ids[B,T])  # -> [B,T,V] (teacher forcing)
    state = decoder_init(model, enc, src_len); logits_t, state = decoder_step(model, state, prev_ids[B])
    ids, step_logits = greedy(model, src_ids_1d)                   # one sentence
    positional(D, positions) -> [len(positions), D] Marian sinusoid

Cross-attention probabilities (what marian-decoder / marian-scorer --alignment print, see
marian_search.py WORD ALIGNMENT): alignment=True takes the model's layer
(alignment_layer(model): `transformer-guided-alignment-layer`, "last" or a 1-based number) and
head 0; alignment=(layer0, head) any layer (0-based) and head. Off by default; results unchanged.
    logits, attn = decoder_forward_all(model, enc, src_len, tgt_ids, alignment=True)  # attn [B,T,S]
    state = decoder_init(model, enc, src_len, alignment=True)
    logits_t, state = decoder_step(model, state, prev); state["alignment"]              # [B,S]
"""

import math
import os
import glob

import numpy as np
import yaml

import precision_ref

try:
    import sentencepiece as spm
except ImportError:  # pragma: no cover
    spm = None

F32 = np.float32
MASK_VALUE = F32(-99999999.0)   # Marian: (1 - mask) * max(lowest/2, -99999999) for fp32
LN_EPS = F32(1e-6)              # hard-coded in Marian's transformer layer norm

# ----------------------------------------------------------------------------------------------
# special:model.yml defaults (Marian's config_parser.cpp)
# ----------------------------------------------------------------------------------------------
DEFAULTS = {
    "type": "amun",
    "dim-vocabs": [0, 0],
    "dim-emb": 512,
    "enc-depth": 1,
    "dec-depth": 1,
    "transformer-heads": 8,
    "transformer-dim-ffn": 2048,
    "transformer-decoder-dim-ffn": 0,
    "transformer-ffn-depth": 2,
    "transformer-decoder-ffn-depth": 0,
    "transformer-ffn-activation": "swish",
    "transformer-preprocess": "",
    "transformer-postprocess": "dan",
    "transformer-postprocess-emb": "d",
    "transformer-postprocess-top": "",
    "transformer-no-projection": False,
    "transformer-decoder-autoreg": "self-attention",
    "transformer-tied-layers": [],
    "transformer-train-position-embeddings": False,
    "transformer-disable-position-embeddings": False,
    "transformer-attention-mask": "default",
    "transformer-guided-alignment-layer": "last",   # Marian's default, written into every model
    "guided-alignment": "none",                       # a training option (not a model feature)
    "tied-embeddings": False,
    "tied-embeddings-src": False,
    "tied-embeddings-all": False,
    "output-omit-bias": False,
    "right-left": False,
    "lemma-dim-emb": 0,
}


def parse_model_yml(raw):
    """raw: the int8 array (or bytes) of `special:model.yml`. Read up to the first NUL (as Marian)."""
    b = np.asarray(raw).astype(np.int8).tobytes() if not isinstance(raw, (bytes, bytearray)) else bytes(raw)
    nul = b.find(b"\x00")
    if nul >= 0:
        b = b[:nul]
    cfg = yaml.safe_load(b.decode("utf-8")) or {}
    out = dict(DEFAULTS)
    out.update(cfg)
    for k in ("transformer-preprocess", "transformer-postprocess", "transformer-postprocess-emb",
              "transformer-postprocess-top", "transformer-ffn-activation"):
        if out[k] is None:
            out[k] = ""
    return out


# ----------------------------------------------------------------------------------------------
# Vocabularies (docs/models.md, "Vocabularies")
# ----------------------------------------------------------------------------------------------
class Vocab:
    """kind: 'yml' | 'txt' | 'spm'. piece2id / id2piece for yml/txt; sp for spm."""

    def __init__(self, path, dim_vocab=0):
        self.path = path
        self.sp = None
        if path.endswith(".spm"):
            self.kind = "spm"
            self.sp = spm.SentencePieceProcessor(model_file=path)
            self.size = self.sp.get_piece_size()
            self.eos = self.sp.eos_id()
            self.unk = self.sp.unk_id()
            self.piece2id = {self.sp.id_to_piece(i): i for i in range(self.size)}
            self.id2piece = {i: p for p, i in self.piece2id.items()}
            return
        if path.endswith((".yml", ".yaml", ".json")):
            self.kind = "yml"
            with open(path, "rb") as f:
                text = f.read().decode("utf-8")
            # BaseLoader: every scalar is a string (yaml-cpp's as<std::string>() semantics, so
            # keys like `1`, `true`, `null` stay strings); ids are converted with int().
            data = yaml.load(text, Loader=yaml.BaseLoader) or {}
            piece2id = {}
            for k, v in data.items():
                piece2id[k] = int(v)
        else:
            self.kind = "txt"
            piece2id = {}
            with open(path, "rb") as f:
                for i, line in enumerate(f.read().decode("utf-8").split("\n")):
                    if line == "":
                        continue
                    piece2id[line] = i
        if dim_vocab and dim_vocab > 0:   # entries with id >= dim-vocabs are dropped
            piece2id = {k: v for k, v in piece2id.items() if v < dim_vocab}
        self.piece2id = piece2id
        self.id2piece = {}
        for p, i in piece2id.items():
            self.id2piece.setdefault(i, p)
        self.size = (max(self.id2piece) + 1) if self.id2piece else 0

        def special(key, legacy_id, legacy_name):
            # back-compat rule: id legacy_id with empty string or legacy name wins
            s = self.id2piece.get(legacy_id)
            if s is not None and (s == "" or s == legacy_name):
                return legacy_id
            if key not in piece2id:
                raise ValueError("vocab %s has no %s" % (path, key))
            return piece2id[key]

        self.eos = special("</s>", 0, "eos")
        self.unk = special("<unk>", 1, "UNK")

    def lookup(self, pieces):
        return [self.piece2id.get(p, self.unk) for p in pieces]


def _resolve_files(folder):
    """Returns (model_npz, [src_vocab, tgt_vocab], source_spm, target_spm) as absolute paths."""
    dec = os.path.join(folder, "decoder.yml")
    if os.path.exists(dec):
        with open(dec) as f:
            cfg = yaml.safe_load(f)
        rel = cfg.get("relative-paths", False)

        def p(x):
            return os.path.join(folder, x) if (rel or not os.path.isabs(x)) else x
        model = p(cfg["models"][0])
        vocabs = [p(v) for v in cfg["vocabs"]]
    else:
        npzs = sorted(glob.glob(os.path.join(folder, "*.npz")))
        if len(npzs) != 1:
            raise ValueError("expected exactly one .npz in %s, found %r" % (folder, npzs))
        model = npzs[0]
        ymls = sorted(set(glob.glob(os.path.join(folder, "*.vocab.yml")) +
                          glob.glob(os.path.join(folder, "vocab.yml"))))
        if len(ymls) == 1:
            vocabs = [ymls[0], ymls[0]]
        else:
            src = glob.glob(os.path.join(folder, "*.src.vocab"))
            trg = glob.glob(os.path.join(folder, "*.trg.vocab"))
            if len(src) == 1 and len(trg) == 1:
                vocabs = [src[0], trg[0]]
            else:
                vocabs = [os.path.join(folder, "source.spm"), os.path.join(folder, "target.spm")]
    s_spm = os.path.join(folder, "source.spm")
    t_spm = os.path.join(folder, "target.spm")
    return model, vocabs, s_spm, t_spm


# ----------------------------------------------------------------------------------------------
# Model container
# ----------------------------------------------------------------------------------------------
class Model:
    def __init__(self, cfg, weights, src_vocab=None, tgt_vocab=None, src_spm=None, tgt_spm=None,
                 precision="float32"):
        if precision not in precision_ref.PRECISIONS:
            raise ValueError("precision %r" % precision)
        self.precision = precision      # of the linear layers and the step caches (see top)
        self.cfg = cfg
        self.w = {k: np.asarray(v, dtype=F32) for k, v in weights.items() if k != "special:model.yml"}
        self.src_vocab = src_vocab
        self.tgt_vocab = tgt_vocab
        self.src_spm = src_spm
        self.tgt_spm = tgt_spm
        if cfg["type"] != "transformer":
            raise NotImplementedError("model type %r" % cfg["type"])
        if cfg["transformer-decoder-autoreg"] != "self-attention":
            raise NotImplementedError("only self-attention decoders are implemented")
        if cfg.get("transformer-attention-mask", "default") not in ("default", "", None):
            raise NotImplementedError("attention mask %r" % cfg["transformer-attention-mask"])
        if cfg.get("lemma-dim-emb", 0):
            raise NotImplementedError("factored vocabularies")
        if cfg.get("transformer-tied-layers"):
            raise NotImplementedError("transformer-tied-layers")
        self.D = int(cfg["dim-emb"])
        self.H = int(cfg["transformer-heads"])
        self.enc_depth = int(cfg["enc-depth"])
        self.dec_depth = int(cfg["dec-depth"])
        tied_all = bool(cfg["tied-embeddings-all"])
        tied_src = bool(cfg["tied-embeddings-src"])
        tied = bool(cfg["tied-embeddings"])
        if tied_all or tied_src:
            self.src_emb = self.w["Wemb"]
            self.tgt_emb = self.w["Wemb"]
        else:
            self.src_emb = self.w["encoder_Wemb"]
            self.tgt_emb = self.w["decoder_Wemb"]
        # output layer: logits = h . out_w (+ b), out_w is [D, V]
        if tied_all or tied:
            self.out_w = self.tgt_emb.T
        elif "decoder_ff_logit_out_W" in self.w:        # legacy [D, V], used untransposed
            self.out_w = self.w["decoder_ff_logit_out_W"]
        else:                                           # current [V, D], used transposed
            self.out_w = self.w["decoder_ff_logit_out_Wt"].T
        self.out_w = np.ascontiguousarray(self.out_w)
        if cfg["output-omit-bias"]:
            self.out_b = None
        else:
            self.out_b = self.w["decoder_ff_logit_out_b"].reshape(-1)
        self.V = self.out_w.shape[1]
        self.learned_pos = bool(cfg["transformer-train-position-embeddings"])
        self.no_pos = bool(cfg.get("transformer-disable-position-embeddings", False))
        act = cfg["transformer-ffn-activation"]
        self.act = act
        self.enc_ffn_depth = int(cfg["transformer-ffn-depth"])
        self.dec_ffn_depth = int(cfg["transformer-decoder-ffn-depth"]) or self.enc_ffn_depth

    @property
    def eos_id(self):
        return self.tgt_vocab.eos

    @property
    def unk_id(self):
        return self.tgt_vocab.unk


def load_npz(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def load_model(folder, precision="float32"):
    model_path, vocabs, s_spm, t_spm = _resolve_files(folder)
    weights = load_npz(model_path)
    cfg = parse_model_yml(weights["special:model.yml"])
    dims = cfg["dim-vocabs"]
    src_vocab = Vocab(vocabs[0], dims[0])
    tgt_vocab = Vocab(vocabs[1], dims[1])
    src_sp = spm.SentencePieceProcessor(model_file=s_spm) if os.path.exists(s_spm) else None
    tgt_sp = spm.SentencePieceProcessor(model_file=t_spm) if os.path.exists(t_spm) else None
    m = Model(cfg, weights, src_vocab, tgt_vocab, src_sp, tgt_sp, precision)
    m.folder = folder
    return m


def encode_text(folder_or_model, line, side="source"):
    """Text -> ids incl. the final </s>. Yml/txt vocab: SPM pieces (source.spm / target.spm) looked
    up in the vocab (unknown -> unk id). .spm vocab: the SPM's own ids."""
    m = folder_or_model if isinstance(folder_or_model, Model) else load_model(folder_or_model)
    vocab = m.src_vocab if side == "source" else m.tgt_vocab
    if vocab.kind == "spm":
        ids = list(vocab.sp.encode(line))
    else:
        sp = m.src_spm if side == "source" else m.tgt_spm
        pieces = sp.encode(line, out_type=str)
        ids = vocab.lookup(pieces)
    return ids + [vocab.eos]


def decode_ids(model, ids, side="target"):
    vocab = model.tgt_vocab if side == "target" else model.src_vocab
    ids = [int(i) for i in ids if int(i) != vocab.eos]
    if vocab.kind == "spm":
        return vocab.sp.decode(ids)
    pieces = [vocab.id2piece.get(i, "<unk>") for i in ids]
    # OPUS-MT postprocess-spm.sh: delete spaces, map U+2581 to space, strip leading spaces
    return "".join(pieces).replace("\u2581", " ").lstrip(" ")


# ----------------------------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------------------------
def positional(dim, positions):
    """Marian sinusoid (float32 like tensor_operators.cpp): half = D/2,
    inc = log(10000) / (half - 1), v = p * exp(-(i % half) * inc), sin for i<half else cos."""
    half = dim // 2
    num_ts = F32(dim) / F32(2)
    inc = F32(np.log(F32(10000.0))) / (num_ts - F32(1.0))
    i = np.arange(dim)
    freq = np.exp((i % half).astype(F32) * -inc).astype(F32)          # [D]
    pos = np.asarray(positions, dtype=F32).reshape(-1, 1)
    v = (pos * freq[None, :]).astype(F32)
    out = np.where(i[None, :] < half, np.sin(v), np.cos(v)).astype(F32)
    return out


def layer_norm(x, scale, bias):
    x = x.astype(F32)
    mean = x.mean(axis=-1, keepdims=True, dtype=F32)
    d = x - mean
    var = (d * d).mean(axis=-1, keepdims=True, dtype=F32)
    y = d / np.sqrt(var + LN_EPS)
    return (y * scale.reshape(-1) + bias.reshape(-1)).astype(F32)


def rms_norm(x, scale):
    ms = (x * x).mean(axis=-1, keepdims=True, dtype=F32)
    return (x / np.sqrt(ms + LN_EPS) * scale.reshape(-1)).astype(F32)


def sigmoid(x):
    return (F32(1.0) / (F32(1.0) + np.exp(-x))).astype(F32)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def activation(name, x):
    if name == "swish":
        return (x * sigmoid(x)).astype(F32)
    if name == "relu":
        return np.maximum(x, F32(0)).astype(F32)
    if name == "gelu":
        # erf form, as in current Marian's GeluNodeOp.  NB: Marian releases before that node was
        # added defined gelu(x) = x * sigmoid(1.702 x) (SwishNodeOp(a, 1.702f)); see README.
        return (F32(0.5) * x * (F32(1.0) + _erf(x.astype(np.float64) / math.sqrt(2.0)).astype(F32))).astype(F32)
    if name == "sigmoid":
        return sigmoid(x)
    if name == "":
        return x
    raise NotImplementedError("activation %r" % name)


def affine(x, W, b=None):
    y = np.matmul(x, W).astype(F32)
    if b is not None:
        y = y + b.reshape(-1)
    return y.astype(F32)


def linear(model, x, W, b=None):
    """A linear layer (W [in, out]) in the model's precision: affine() for float32."""
    return precision_ref.linear(model.precision, x, W, b)


def pre_process(model, prefix, ops, x):
    """transformer-preprocess / postprocess-emb ops (d, n, r); norms use the `_pre` suffix."""
    w = model.w
    for op in ops:
        if op == "d":
            continue
        elif op == "n":
            x = layer_norm(x, w[prefix + "_ln_scale_pre"], w[prefix + "_ln_bias_pre"])
        elif op == "r":
            x = rms_norm(x, w[prefix + "_rms_scale_pre"])
        else:
            raise ValueError("op %r not allowed in pre-processing" % op)
    return x


def post_process(model, prefix, ops, y, prev):
    """transformer-postprocess / postprocess-top ops (d, a, n, r, h); norms without suffix."""
    w = model.w
    for op in ops:
        if op == "d":
            continue
        elif op == "a":
            y = (y + prev).astype(F32)
        elif op == "n":
            y = layer_norm(y, w[prefix + "_ln_scale"], w[prefix + "_ln_bias"])
        elif op == "r":
            y = rms_norm(y, w[prefix + "_rms_scale"])
        elif op == "h":
            t = sigmoid(affine(prev, w[prefix + "_Wh"], w[prefix + "_bh"]))
            y = (t * y + (F32(1.0) - t) * prev).astype(F32)
        else:
            raise ValueError("unknown op %r" % op)
    return y


def softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    return (e / e.sum(axis=axis, keepdims=True, dtype=F32)).astype(F32)


def log_softmax(x, axis=-1):
    x = x.astype(F32)
    m = x.max(axis=axis, keepdims=True)
    s = x - m
    return (s - np.log(np.exp(s).sum(axis=axis, keepdims=True, dtype=F32))).astype(F32)


def additive_mask(mask01):
    return ((F32(1.0) - mask01.astype(F32)) * MASK_VALUE).astype(F32)


def multi_head(model, P, q_in, kv_in, mask_add, kv_bf16=False, return_probs=False):
    """P: block prefix (e.g. encoder_l1_self). q_in [B,Tq,D], kv_in [B,Tk,D],
    mask_add broadcastable to [B,H,Tq,Tk] (additive). Returns [B,Tq,D].
    kv_bf16: keys and values rounded to bfloat16 (s2s's step caches in bf16 / int8 precision).
    return_probs: also return the attention probabilities [B,H,Tq,Tk] (softmax output, float32);
    head h uses model dims h*dh .. (h+1)*dh-1 (Marian SplitHeads)."""
    w = model.w
    H = model.H
    Q = linear(model, q_in, w[P + "_Wq"], w[P + "_bq"])
    K = linear(model, kv_in, w[P + "_Wk"], w[P + "_bk"])
    V = linear(model, kv_in, w[P + "_Wv"], w[P + "_bv"])
    if kv_bf16:
        K, V = precision_ref.round_bf16(K), precision_ref.round_bf16(V)
    B, Tq, Dq = Q.shape
    Tk = K.shape[1]
    dh = Dq // H

    def split(t, T):
        return t.reshape(B, T, H, dh).transpose(0, 2, 1, 3)          # [B,H,T,dh]
    Qh, Kh, Vh = split(Q, Tq), split(K, Tk), split(V, Tk)
    scale = F32(1.0) / np.sqrt(F32(dh))
    S = (np.matmul(Qh, Kh.transpose(0, 1, 3, 2)) * scale).astype(F32)
    S = (S + mask_add).astype(F32)
    A = softmax(S, axis=-1)
    O = np.matmul(A, Vh).astype(F32)                                   # [B,H,Tq,dh]
    O = O.transpose(0, 2, 1, 3).reshape(B, Tq, H * dh)
    if (P + "_Wo") in w:
        O = linear(model, O, w[P + "_Wo"], w[P + "_bo"])
    if return_probs:
        return O, A
    return O


def ffn(model, prefix, x, depth):
    w = model.w
    h = x
    for k in range(1, depth + 1):
        h = linear(model, h, w["%s_W%d" % (prefix, k)], w["%s_b%d" % (prefix, k)])
        if k < depth:
            h = activation(model.act, h)
    return h


def embed(model, table, ids, positions):
    """ids [B,T] (or None rows handled by caller), positions [T] ints."""
    x = table[ids]                                                     # [B,T,D]
    return add_positions(model, x, positions)


def add_positions(model, x, positions):
    D = model.D
    if model.no_pos:
        return x.astype(F32)
    if model.learned_pos:
        Wpos = model.w["Wpos"]
        p = np.minimum(np.asarray(positions), Wpos.shape[0] - 1)
        return (x + Wpos[p][None, :, :]).astype(F32)
    return (x * np.sqrt(F32(D)) + positional(D, positions)[None, :, :]).astype(F32)


# ----------------------------------------------------------------------------------------------
# Encoder
# ----------------------------------------------------------------------------------------------
def encoder(model, src_ids, src_len):
    """src_ids [B,S] int (right-padded), src_len [B] (incl </s>) -> [B,S,D] float32.
    Padded positions hold values that never influence valid ones (callers zero them)."""
    cfg = model.cfg
    src_ids = np.asarray(src_ids)
    B, S = src_ids.shape
    x = embed(model, model.src_emb, src_ids, np.arange(S))
    x_emb = x
    x = pre_process(model, "encoder_emb", cfg["transformer-postprocess-emb"], x)
    valid = (np.arange(S)[None, :] < np.asarray(src_len)[:, None])      # [B,S]
    mask_add = additive_mask(valid)[:, None, None, :]                   # [B,1,1,S]
    pre, post = cfg["transformer-preprocess"], cfg["transformer-postprocess"]
    for l in range(1, model.enc_depth + 1):
        P = "encoder_l%d_self" % l
        y = pre_process(model, P + "_Wo", pre, x)
        y = multi_head(model, P, y, y, mask_add)
        x = post_process(model, P + "_Wo", post, y, x)
        F = "encoder_l%d_ffn" % l
        y = pre_process(model, F + "_ffn", pre, x)
        y = ffn(model, F, y, model.enc_ffn_depth)
        x = post_process(model, F + "_ffn", post, y, x)
    x = post_process(model, "encoder_top", cfg["transformer-postprocess-top"], x, x_emb)
    return x.astype(F32)


# ----------------------------------------------------------------------------------------------
# Decoder
# ----------------------------------------------------------------------------------------------
def _dec_input_embeddings(model, prev_ids, positions):
    """prev_ids [B,T] with -1 meaning 'start' (all-zero embedding)."""
    prev_ids = np.asarray(prev_ids)
    x = model.tgt_emb[np.maximum(prev_ids, 0)].astype(F32)
    x = np.where((prev_ids < 0)[..., None], F32(0), x).astype(F32)
    return add_positions(model, x, positions)


def _output(model, h):
    return linear(model, h, model.out_w, model.out_b)


def _decoder_layer_stack(model, x, enc, src_mask_add, self_mask_add, cache=None, align=None):
    """Runs the decoder layers over x [B,T,D].

    Pre-norm note: the decoder self-attention keys/values are the *pre-processed* (normalized)
    layer inputs at every position -- the mathematically consistent version used in training.
    Marian's step-wise decoder differs for pre-norm models at steps >= 1 (it concatenates the
    un-normalized history, docs/models.md, "Marian's forward pass"); we deliberately do NOT
    reproduce that quirk. For post-norm models (all OPUS-MT) the two are identical.

    cache: None (full sequence with causal mask) or a list (one entry per layer) of arrays
    [B,t,D] holding the pre-processed self-attention inputs of earlier positions; it is
    extended in place (step-wise decoding). In bfloat16 / int8 precision the step-wise keys and
    values (self and cross) are rounded to bfloat16: s2s stores them so. Recomputing them from the
    cached inputs gives the values of the step that stored them, since the linear layers treat
    every row on its own (int8 scales are per row).

    align: None, or (layer0, head): then returns (x, probs [B,Tq,S]) -- the cross-attention
    probabilities of that head in decoder layer layer0 (0-based)."""
    cfg = model.cfg
    kv_bf16 = cache is not None and model.precision != "float32"
    probs = None
    pre, post = cfg["transformer-preprocess"], cfg["transformer-postprocess"]
    for l in range(1, model.dec_depth + 1):
        P = "decoder_l%d_self" % l
        y = pre_process(model, P + "_Wo", pre, x)
        if cache is not None:
            kv = y if cache[l - 1] is None else np.concatenate([cache[l - 1], y], axis=1)
            cache[l - 1] = kv
        else:
            kv = y
        y = multi_head(model, P, y, kv, self_mask_add, kv_bf16)
        x = post_process(model, P + "_Wo", post, y, x)
        C = "decoder_l%d_context" % l
        y = pre_process(model, C + "_Wo", pre, x)
        if align is not None and align[0] == l - 1:
            y, A = multi_head(model, C, y, enc, src_mask_add, kv_bf16, return_probs=True)
            probs = A[:, align[1]].astype(F32)
        else:
            y = multi_head(model, C, y, enc, src_mask_add, kv_bf16)
        x = post_process(model, C + "_Wo", post, y, x)
        F = "decoder_l%d_ffn" % l
        y = pre_process(model, F + "_ffn", pre, x)
        y = ffn(model, F, y, model.dec_ffn_depth)
        x = post_process(model, F + "_ffn", post, y, x)
    if align is not None:
        return x, probs
    return x


def alignment_layer(model):
    """0-based decoder layer whose cross-attention Marian returns as the alignment: the model's
    `transformer-guided-alignment-layer` ("last" -> dec-depth - 1, else the 1-based number - 1;
    Marian transformer.h DecoderLayer: attLayer = std::stoull(gaStr) - 1, ABORT_IF attLayer >=
    decDepth)."""
    v = model.cfg.get("transformer-guided-alignment-layer", "last")
    v = "last" if v is None else str(v).strip()
    if v == "last":
        return model.dec_depth - 1
    if not v.isdigit() or not 1 <= int(v) <= model.dec_depth:
        raise ValueError("transformer-guided-alignment-layer %r: not 'last' or 1..%d"
                         % (v, model.dec_depth))
    return int(v) - 1


def _align_spec(model, alignment):
    """None/False -> None; True -> (alignment_layer(model), 0) (Marian: head 0); a (layer0, head)
    pair as given."""
    if alignment is None or alignment is False:
        return None
    if alignment is True:
        return (alignment_layer(model), 0)
    layer0, head = (int(x) for x in alignment)
    assert 0 <= layer0 < model.dec_depth and 0 <= head < model.H, alignment
    return (layer0, head)


def _src_mask_add(enc, src_len):
    S = enc.shape[1]
    valid = (np.arange(S)[None, :] < np.asarray(src_len)[:, None])
    return additive_mask(valid)[:, None, None, :]


def decoder_forward_all(model, enc, src_len, tgt_in_ids, alignment=None):
    """Teacher forcing. tgt_in_ids [B,T]: position 0 input = zero vector, position t>0 input =
    embedding of tgt_in_ids[:, t-1]. Returns raw logits [B,T,V] (logits[:,t] predicts token t).
    alignment (see the top): also return the cross-attention probabilities [B,T,S] (row t = the
    query that predicts token t) -> (logits, probs)."""
    cfg = model.cfg
    tgt_in_ids = np.asarray(tgt_in_ids)
    B, T = tgt_in_ids.shape
    prev = np.full((B, T), -1, dtype=np.int64)
    prev[:, 1:] = tgt_in_ids[:, :-1]
    x = _dec_input_embeddings(model, prev, np.arange(T))
    x_emb = x
    x = pre_process(model, "decoder_emb", cfg["transformer-postprocess-emb"], x)
    causal = np.tril(np.ones((T, T), dtype=bool))                       # j <= i allowed
    self_mask = additive_mask(causal)[None, None, :, :]
    align = _align_spec(model, alignment)
    x = _decoder_layer_stack(model, x, enc, _src_mask_add(enc, src_len), self_mask, align=align)
    if align is not None:
        x, probs = x
    x = post_process(model, "decoder_top", cfg["transformer-postprocess-top"], x, x_emb)
    if align is not None:
        return _output(model, x), probs
    return _output(model, x)


def decoder_init(model, enc, src_len, alignment=None):
    """alignment (see the top): every decoder_step then also stores the cross-attention
    probabilities of its query in state["alignment"] [B,S] float32."""
    st = {"enc": enc, "src_mask": _src_mask_add(enc, src_len), "t": 0,
          "cache": [None] * model.dec_depth}
    align = _align_spec(model, alignment)
    if align is not None:
        st["align"] = align
    return st


def decoder_step(model, state, prev_ids):
    """One decoding step for the whole batch. prev_ids [B] (ignored at t=0: zero input vector).
    Returns (raw logits [B,V], state)."""
    cfg = model.cfg
    t = state["t"]
    B = state["enc"].shape[0]
    prev = np.full((B, 1), -1, dtype=np.int64)
    if t > 0:
        prev[:, 0] = np.asarray(prev_ids).reshape(B)
    x = _dec_input_embeddings(model, prev, np.array([t]))
    x_emb = x
    x = pre_process(model, "decoder_emb", cfg["transformer-postprocess-emb"], x)
    align = state.get("align")
    x = _decoder_layer_stack(model, x, state["enc"], state["src_mask"], F32(0), cache=state["cache"],
                             align=align)
    if align is not None:
        x, probs = x
        state["alignment"] = probs[:, 0, :]
    x = post_process(model, "decoder_top", cfg["transformer-postprocess-top"], x, x_emb)
    state["t"] = t + 1
    return _output(model, x)[:, 0, :], state


def max_output_length(src_len, factor=3.0):
    return int(math.ceil(factor * float(src_len)))


def greedy(model, src_ids, max_length_factor=3.0, allow_unk=False):
    """Greedy step decoding of ONE sentence (src_ids 1-D incl </s>).
    Returns (ids list incl. final </s> if produced, raw logits [L,V] per step).
    <unk> is suppressed (marian-decoder without --allow-unk); stops at </s> or after
    ceil(factor * srcLen) tokens."""
    src_ids = np.asarray(src_ids).reshape(1, -1)
    src_len = np.array([src_ids.shape[1]])
    enc = encoder(model, src_ids, src_len)
    state = decoder_init(model, enc, src_len)
    max_len = max_output_length(src_ids.shape[1], max_length_factor)
    out, steps = [], []
    prev = np.array([-1])
    for _ in range(max_len):
        logits, state = decoder_step(model, state, prev)
        steps.append(logits[0].copy())
        scores = log_softmax(logits[0])
        if not allow_unk:
            scores[model.unk_id] = -np.inf
        tok = int(np.argmax(scores))
        out.append(tok)
        if tok == model.eos_id:
            break
        prev = np.array([tok])
    return out, np.stack(steps).astype(F32)


def pad_batch(seqs, pad=0, dtype=np.int32):
    L = max(len(s) for s in seqs)
    arr = np.full((len(seqs), L), pad, dtype=dtype)
    for i, s in enumerate(seqs):
        arr[i, :len(s)] = s
    return arr, np.array([len(s) for s in seqs], dtype=np.int32)


if __name__ == "__main__":  # tiny CLI: translate lines greedily
    import sys
    m = load_model(sys.argv[1])
    for line in sys.stdin:
        ids = encode_text(m, line.rstrip("\n"))
        out, _ = greedy(m, ids)
        print(decode_ids(m, out))
