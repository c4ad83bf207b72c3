#!/usr/bin/python3
"""Independent numpy reference of Hugging Face MarianMT (modeling_marian.py) inference.

Written from the Hugging Face sources (convert_marian_to_pytorch.py, modeling_marian.py,
tokenization_marian.py, the safetensors format; summarised in docs/models.md) -- not from the
project's C++.
Run with Debian's /usr/bin/python3 (python3-numpy, python3-sentencepiece). No torch/transformers.

Semantics (differences from Marian in CAPS):
  * embeddings * sqrt(d_model) if scale_embedding, + sinusoid rows of positions 0..n-1;
    HF SINUSOID: theta(p, j) = p / 10000^(2*floor(j/2)/D), sin half then cos half, computed in
    float64 and cast to float32 (MarianSinusoidalPositionalEmbedding._init_weight). Rows are computed
    on demand for any position: HF itself only has `max_position_embeddings` rows and raises an
    IndexError beyond (the converter sets max_position_embeddings = d_model, i.e. 16 in our tiny
    fixtures); the goldens deliberately go beyond that (see tools/fixtures/README.md).
  * post-norm layers exactly like Marian `dan`, nn.LayerNorm EPS 1e-5 (biased variance, eps inside sqrt);
  * attention softmax(Q.K^T * dh^-0.5 + mask) V, mask = float32 lowest;
  * decoder input at step 0 = decoder_start_token_id (= pad id, its embedding row is all zeros);
  * logits = h . lm_head^T + FINAL_LOGITS_BIAS; lm_head resolved to the decoder embedding when absent
    and tie_word_embeddings (default true); embed_tokens resolved to model.shared when absent.
  * tokenizer: optional leading ">>xxx<<" kept as one token, SPM pieces -> vocab.json ids
    (unknown -> <unk>), </s> appended; target side uses target.spm and target_vocab.json when
    separate_vocabs.
  * greedy: pad banned (bad_words_ids), <unk> NOT suppressed, stop at eos (included), at most
    max_len tokens (goldens: ceil(3 * source length incl. </s>)); no forced eos at the cut.

All arithmetic float32 (fp16 / bf16 checkpoints are upcast to float32 on load).

Public API:
    tensors, metadata = read_safetensors(path)
    model = load_model(folder)
    ids   = encode_text(model, line, side="source")
    enc   = encoder(model, src_ids[B,S], src_len[B])
    logits = decoder_forward_all(model, enc, src_len, tgt_ids[B,T])   # teacher forcing, [B,T,V]
    state = decoder_init(model, enc, src_len); logits_t, state = decoder_step(model, state, prev_ids)
    ids, step_logits = greedy(model, src_ids_1d, max_len=None)
    hf_positional(D, positions)
"""

import json
import math
import os
import re
import struct

import numpy as np

try:
    import sentencepiece as spm
except ImportError:  # pragma: no cover
    spm = None

F32 = np.float32
HF_LN_EPS = 1e-5
MASK_VALUE = np.finfo(np.float32).min

# ----------------------------------------------------------------------------------------------
# safetensors (docs/models.md, "Hugging Face MarianMT")
# ----------------------------------------------------------------------------------------------
_ST_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
    "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?", "BF16": "<u2",
}


def read_safetensors(path):
    """Returns ({name: np.ndarray (native dtype; BF16 -> float32)}, metadata dict or None).
    Validates like the reference reader: tensors tile the buffer contiguously from 0."""
    with open(path, "rb") as fh:
        raw = fh.read()
    if len(raw) < 8:
        raise ValueError("safetensors: file too small")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > 100_000_000 or 8 + n > len(raw):
        raise ValueError("safetensors: bad header length %d" % n)
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    buf = raw[8 + n:]
    meta = header.pop("__metadata__", None)
    spans = []
    out = {}
    for name, info in header.items():
        dt = info["dtype"]
        if dt not in _ST_DTYPES:
            raise ValueError("safetensors: unsupported dtype %s" % dt)
        shape = tuple(int(s) for s in info["shape"])
        b, e = info["data_offsets"]
        np_dt = np.dtype(_ST_DTYPES[dt])
        count = int(np.prod(shape)) if shape else 1
        if e - b != count * np_dt.itemsize:
            raise ValueError("safetensors: %s: %d bytes for shape %s %s" % (name, e - b, shape, dt))
        arr = np.frombuffer(buf[b:e], dtype=np_dt).reshape(shape).copy()
        if dt == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        out[name] = arr
        spans.append((b, e))
    spans.sort()
    pos = 0
    for b, e in spans:
        if b != pos:
            raise ValueError("safetensors: gap/overlap at byte %d" % b)
        pos = e
    if pos != len(buf):
        raise ValueError("safetensors: %d trailing bytes" % (len(buf) - pos))
    return out, meta


# ----------------------------------------------------------------------------------------------
# positions
# ----------------------------------------------------------------------------------------------
def hf_positional(dim, positions):
    """MarianSinusoidalPositionalEmbedding._init_weight, rows for the given positions (float32)."""
    positions = [int(p) for p in np.asarray(positions).reshape(-1)]
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                             for pos in positions], dtype=np.float64).reshape(len(positions), dim)
    out = np.zeros((len(positions), dim), dtype=np.float32)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2]).astype(np.float32)
    out[:, sentinel:] = np.cos(position_enc[:, 1::2]).astype(np.float32)
    return out


def marian_positional(dim, positions):
    """Marian's sinusoid (denominator D/2 - 1, float32), for the cross-format check only."""
    half = dim // 2
    inc = F32(np.log(F32(10000.0))) / (F32(dim) / F32(2) - F32(1.0))
    i = np.arange(dim)
    freq = np.exp((i % half).astype(F32) * -inc).astype(F32)
    pos = np.asarray(positions, dtype=F32).reshape(-1, 1)
    v = (pos * freq[None, :]).astype(F32)
    return np.where(i[None, :] < half, np.sin(v), np.cos(v)).astype(F32)


# ----------------------------------------------------------------------------------------------
# model
# ----------------------------------------------------------------------------------------------
def _load_json(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


class HFModel:
    def __init__(self, cfg, tensors, vocab, target_vocab=None, src_sp=None, tgt_sp=None,
                 tok_cfg=None, ln_eps=HF_LN_EPS, positional=hf_positional):
        self.cfg = cfg
        self.tok_cfg = tok_cfg or {}
        self.ln_eps = F32(ln_eps)
        self.positional = positional
        self.raw_dtypes = {k: str(v.dtype) for k, v in tensors.items()}
        w = {k: np.asarray(v, dtype=F32) for k, v in tensors.items()}
        self.D = int(cfg["d_model"])
        self.enc_layers = int(cfg["encoder_layers"])
        self.dec_layers = int(cfg["decoder_layers"])
        self.enc_heads = int(cfg["encoder_attention_heads"])
        self.dec_heads = int(cfg["decoder_attention_heads"])
        self.act = cfg.get("activation_function", "gelu")
        self.scale_embedding = bool(cfg.get("scale_embedding", False))
        for k, bad in (("normalize_before", True), ("add_final_layer_norm", True),
                       ("normalize_embedding", True), ("static_position_embeddings", False)):
            if cfg.get(k, not bad) == bad:
                raise NotImplementedError("legacy config key %s=%r contradicts MarianMT" % (k, bad))
        shared = w.get("model.shared.weight")
        enc_emb = w.get("model.encoder.embed_tokens.weight", shared)
        dec_emb = w.get("model.decoder.embed_tokens.weight")
        if dec_emb is None:
            if not cfg.get("share_encoder_decoder_embeddings", True):
                raise ValueError("model.decoder.embed_tokens.weight missing and embeddings not shared")
            dec_emb = shared
        if enc_emb is None or dec_emb is None:
            raise ValueError("embedding tensors missing")
        lm_head = w.get("lm_head.weight")
        if lm_head is None:
            if not cfg.get("tie_word_embeddings", True):
                raise ValueError("lm_head.weight missing and tie_word_embeddings is false")
            lm_head = dec_emb
        self.enc_emb, self.dec_emb, self.lm_head = enc_emb, dec_emb, np.ascontiguousarray(lm_head)
        self.final_logits_bias = w["final_logits_bias"].reshape(-1)
        self.V = self.lm_head.shape[0]
        if self.final_logits_bias.shape[0] != self.V:
            raise ValueError("final_logits_bias size %d != lm_head rows %d"
                             % (self.final_logits_bias.shape[0], self.V))
        self.w = w
        self.vocab = vocab
        self.target_vocab = target_vocab if target_vocab is not None else vocab
        self.src_sp, self.tgt_sp = src_sp, tgt_sp
        self.pad_id = int(cfg["pad_token_id"])
        self.eos_id = int(cfg["eos_token_id"])
        self.start_id = int(cfg.get("decoder_start_token_id", self.pad_id))
        bad = cfg.get("bad_words_ids") or []
        self.banned = sorted({int(x[0]) for x in bad if len(x) == 1})
        self.unk_id = self.target_vocab.get("<unk>")
        self.src_unk_id = self.vocab["<unk>"]
        self.src_eos_id = self.vocab.get("</s>", self.eos_id)


def load_model(folder, ln_eps=HF_LN_EPS, positional=hf_positional):
    cfg = _load_json(os.path.join(folder, "config.json"))
    st = os.path.join(folder, "model.safetensors")
    tensors, _ = read_safetensors(st)
    tok_cfg_p = os.path.join(folder, "tokenizer_config.json")
    tok_cfg = _load_json(tok_cfg_p) if os.path.exists(tok_cfg_p) else {}
    vocab = _load_json(os.path.join(folder, "vocab.json"))
    target_vocab = None
    if tok_cfg.get("separate_vocabs", False):
        target_vocab = _load_json(os.path.join(folder, "target_vocab.json"))
    src_sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "source.spm"))
    tgt_sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "target.spm"))
    m = HFModel(cfg, tensors, vocab, target_vocab, src_sp, tgt_sp, tok_cfg, ln_eps, positional)
    m.folder = folder
    return m


def split_language_code(text):
    """tokenization_marian.remove_language_code: re.compile('>>.+<<').match(text) (greedy), the
    matched code is kept as one token, every match is removed from the text."""
    pat = re.compile(">>.+<<")
    m = pat.match(text)
    code = [m.group(0)] if m else []
    return code, pat.sub("", text)


def encode_text(model, line, side="source"):
    """Text -> ids incl. the final </s> (MarianTokenizer: _tokenize + build_inputs_with_special_tokens)."""
    if side == "source":
        sp, vocab = model.src_sp, model.vocab
    else:
        sp, vocab = model.tgt_sp, model.target_vocab
    code, text = split_language_code(line)
    pieces = code + sp.encode(text, out_type=str)
    unk = vocab["<unk>"]
    return [vocab.get(p, unk) for p in pieces] + [vocab["</s>"]]


def decode_ids(model, ids):
    inv = {v: k for k, v in model.target_vocab.items()}
    special = {model.eos_id, model.pad_id}
    pieces = [inv.get(int(i), "<unk>") for i in ids if int(i) not in special]
    return model.tgt_sp.decode_pieces(pieces)


# ----------------------------------------------------------------------------------------------
# building blocks
# ----------------------------------------------------------------------------------------------
def layer_norm(x, g, b, eps):
    x = x.astype(F32)
    mean = x.mean(axis=-1, keepdims=True, dtype=F32)
    d = (x - mean).astype(F32)
    var = (d * d).mean(axis=-1, keepdims=True, dtype=F32)
    return (d / np.sqrt(var + eps) * g + b).astype(F32)


def linear(x, w, b):
    """nn.Linear: y = x W^T + b, W [out, in]."""
    return (np.matmul(x, w.T).astype(F32) + b).astype(F32)


def sigmoid(x):
    return (F32(1.0) / (F32(1.0) + np.exp(-x))).astype(F32)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def activation(name, x):
    if name in ("swish", "silu"):
        return (x * sigmoid(x)).astype(F32)
    if name == "relu":
        return np.maximum(x, F32(0)).astype(F32)
    if name == "gelu":   # ACT2FN["gelu"] = exact erf form
        return (F32(0.5) * x * (F32(1.0) + _erf(x.astype(np.float64) / math.sqrt(2.0)).astype(F32))).astype(F32)
    if name in ("gelu_new", "gelu_pytorch_tanh"):
        c = F32(math.sqrt(2.0 / math.pi))
        return (F32(0.5) * x * (F32(1.0) + np.tanh(c * (x + F32(0.044715) * x * x * x)))).astype(F32)
    raise NotImplementedError("activation %r" % name)


def softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return (e / e.sum(axis=-1, keepdims=True, dtype=F32)).astype(F32)


def log_softmax(x):
    x = x.astype(F32)
    m = x.max(axis=-1, keepdims=True)
    s = x - m
    return (s - np.log(np.exp(s).sum(axis=-1, keepdims=True, dtype=F32))).astype(F32)


def _mask_add(valid):
    return np.where(valid, F32(0), MASK_VALUE).astype(F32)


def attention(model, P, H, q_in, kv_in, mask_add):
    w = model.w
    Q = linear(q_in, w[P + ".q_proj.weight"], w[P + ".q_proj.bias"])
    K = linear(kv_in, w[P + ".k_proj.weight"], w[P + ".k_proj.bias"])
    V = linear(kv_in, w[P + ".v_proj.weight"], w[P + ".v_proj.bias"])
    B, Tq, D = Q.shape
    Tk = K.shape[1]
    dh = D // H

    def split(t, T):
        return t.reshape(B, T, H, dh).transpose(0, 2, 1, 3)
    Qh, Kh, Vh = split(Q, Tq), split(K, Tk), split(V, Tk)
    scale = F32(dh ** -0.5)
    S = (np.matmul(Qh, Kh.transpose(0, 1, 3, 2)) * scale).astype(F32)
    S = (S + mask_add).astype(F32)
    A = softmax(S)
    O = np.matmul(A, Vh).astype(F32).transpose(0, 2, 1, 3).reshape(B, Tq, D)
    return linear(O, w[P + ".out_proj.weight"], w[P + ".out_proj.bias"])


def _embed(model, table, ids, positions):
    ids = np.asarray(ids)
    x = table[ids].astype(F32)
    if model.scale_embedding:
        x = (x * F32(math.sqrt(model.D))).astype(F32)
    return (x + model.positional(model.D, positions)[None]).astype(F32)


# ----------------------------------------------------------------------------------------------
# encoder / decoder
# ----------------------------------------------------------------------------------------------
def encoder(model, src_ids, src_len):
    src_ids = np.asarray(src_ids)
    B, S = src_ids.shape
    x = _embed(model, model.enc_emb, src_ids, np.arange(S))
    valid = np.arange(S)[None, :] < np.asarray(src_len)[:, None]
    mask = _mask_add(valid)[:, None, None, :]
    w, eps = model.w, model.ln_eps
    for i in range(model.enc_layers):
        P = "model.encoder.layers.%d" % i
        h = attention(model, P + ".self_attn", model.enc_heads, x, x, mask)
        x = layer_norm(x + h, w[P + ".self_attn_layer_norm.weight"], w[P + ".self_attn_layer_norm.bias"], eps)
        h = activation(model.act, linear(x, w[P + ".fc1.weight"], w[P + ".fc1.bias"]))
        h = linear(h, w[P + ".fc2.weight"], w[P + ".fc2.bias"])
        x = layer_norm(x + h, w[P + ".final_layer_norm.weight"], w[P + ".final_layer_norm.bias"], eps)
    return x.astype(F32)


def _decoder_layers(model, x, enc, src_mask, self_mask, cache=None):
    """cache: None (full sequence, causal mask) or list per layer of the earlier layer inputs
    [B,t,D] (post-norm: keys/values are the layer inputs), extended in place."""
    w, eps = model.w, model.ln_eps
    for i in range(model.dec_layers):
        P = "model.decoder.layers.%d" % i
        if cache is not None:
            kv = x if cache[i] is None else np.concatenate([cache[i], x], axis=1)
            cache[i] = kv
        else:
            kv = x
        h = attention(model, P + ".self_attn", model.dec_heads, x, kv, self_mask)
        x = layer_norm(x + h, w[P + ".self_attn_layer_norm.weight"], w[P + ".self_attn_layer_norm.bias"], eps)
        h = attention(model, P + ".encoder_attn", model.dec_heads, x, enc, src_mask)
        x = layer_norm(x + h, w[P + ".encoder_attn_layer_norm.weight"], w[P + ".encoder_attn_layer_norm.bias"], eps)
        h = activation(model.act, linear(x, w[P + ".fc1.weight"], w[P + ".fc1.bias"]))
        h = linear(h, w[P + ".fc2.weight"], w[P + ".fc2.bias"])
        x = layer_norm(x + h, w[P + ".final_layer_norm.weight"], w[P + ".final_layer_norm.bias"], eps)
    return x


def _output(model, h):
    return (np.matmul(h, model.lm_head.T).astype(F32) + model.final_logits_bias).astype(F32)


def _src_mask(enc, src_len):
    S = enc.shape[1]
    valid = np.arange(S)[None, :] < np.asarray(src_len)[:, None]
    return _mask_add(valid)[:, None, None, :]


def decoder_forward_all(model, enc, src_len, tgt_ids):
    """Teacher forcing: input 0 = decoder_start_token_id, input t>0 = tgt_ids[:, t-1].
    Returns raw logits [B,T,V] (logits[:, t] predicts tgt_ids[:, t])."""
    tgt_ids = np.asarray(tgt_ids)
    B, T = tgt_ids.shape
    inp = np.full((B, T), model.start_id, dtype=np.int64)
    inp[:, 1:] = tgt_ids[:, :-1]
    x = _embed(model, model.dec_emb, inp, np.arange(T))
    causal = np.tril(np.ones((T, T), dtype=bool))
    x = _decoder_layers(model, x, enc, _src_mask(enc, src_len), _mask_add(causal)[None, None])
    return _output(model, x)


def decoder_init(model, enc, src_len):
    return {"enc": enc, "src_mask": _src_mask(enc, src_len), "t": 0, "cache": [None] * model.dec_layers}


def decoder_step(model, state, prev_ids):
    """prev_ids [B] (ignored at t=0, where the input is decoder_start_token_id)."""
    t = state["t"]
    B = state["enc"].shape[0]
    ids = np.full((B, 1), model.start_id, dtype=np.int64)
    if t > 0:
        ids[:, 0] = np.asarray(prev_ids).reshape(B)
    x = _embed(model, model.dec_emb, ids, np.array([t]))
    x = _decoder_layers(model, x, state["enc"], state["src_mask"], F32(0), cache=state["cache"])
    state["t"] = t + 1
    return _output(model, x)[:, 0, :], state


def max_output_length(src_len, factor=3.0):
    return int(math.ceil(factor * float(src_len)))


def greedy(model, src_ids, max_len=None, suppress=()):
    """Greedy decoding of ONE sentence (src_ids incl. </s>). Banned: bad_words_ids (pad) and the
    ids in `suppress` (for cross-checks only). <unk> is allowed. Stops at eos (included) or after
    max_len tokens (default ceil(3 * len(src_ids))). Returns (ids, raw logits [L,V])."""
    src_ids = np.asarray(src_ids).reshape(1, -1)
    sl = np.array([src_ids.shape[1]])
    enc = encoder(model, src_ids, sl)
    state = decoder_init(model, enc, sl)
    if max_len is None:
        max_len = max_output_length(src_ids.shape[1])
    out, steps = [], []
    prev = np.array([model.start_id])
    for _ in range(max_len):
        logits, state = decoder_step(model, state, prev)
        steps.append(logits[0].copy())
        s = log_softmax(logits[0])
        for b in list(model.banned) + list(suppress):
            s[b] = -np.inf
        tok = int(np.argmax(s))
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


if __name__ == "__main__":  # tiny CLI: translate stdin lines greedily
    import sys
    m = load_model(sys.argv[1])
    for line in sys.stdin:
        ids = encode_text(m, line.rstrip("\n"))
        out, _ = greedy(m, ids)
        print(decode_ids(m, out))
