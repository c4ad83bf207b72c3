#!/usr/bin/python3
"""Independent numpy reference of CTranslate2 `TransformerSpec` inference, i.e. OpenNMT-py (and Marian)
Transformers as converted by CTranslate2.

Written from the OpenNMT-py and CTranslate2 sources listed in docs/models.md ("What the
CTranslate2 sources say") -- not from the project's C++.
Run with Debian's /usr/bin/python3 (python3-numpy, python3-sentencepiece).

Model folder: model.bin (binary version <= 6, see read_model_bin), config.json, vocabularies
(shared_vocabulary.json | source_vocabulary.json + target_vocabulary.json, or .txt), and -- our
convention, CTranslate2 does not tokenize -- source.spm / target.spm next to them.

Semantics (src/layers/transformer.cc, attention.cc, common.cc, decoding.cc):
  * variables are dequantized on load like CTranslate2 with compute_type=float32: int8 `*/weight`
    with per-row `*/weight_scale` -> float32(q) * (1 / scale[row]); float16 -> float32. Aliases
    resolve `<alias>` and `<alias>_scale` (models/model.cc).
  * embeddings (* sqrt(D) if `scale_embeddings`, int8 flag 1; a float value is used as the scale)
    + position table `position_encodings/encodings` rows (absent when the self-attention has
    relative positions; without a stored table CT2 generates its own sinusoid, ct2_sinusoid());
    decoder with `start_from_zero_embedding`: step-0 input is a zero vector (not scaled);
  * pre_norm (int8 flag): x + Attn(LN(x)), x + FFN(LN(x)) and final `*/layer_norm`;
    post-norm: LN(x + Attn(x)), LN(x + FFN(x));
  * self-attention `linear_0` = fused Q|K|V [3D,D], `linear_1` = output; cross-attention
    `linear_0` = Q, `linear_1` = fused K|V [2D,D] (applied to the encoder output), `linear_2` = out;
  * relative positions (Shaw et al.; OpenNMT-py): K = (rows-1)/2 of `relative_position_keys`,
    idx(i,j) = clamp(j - (i + offset), -K, K) + K, offset = key_len - query_len;
    scores = scale * (Q K^T) + scale * (Q R_K[idx]^T); out = A V + A R_V[idx]; scale = dh^-0.5;
  * LayerNorm eps = config.json `layer_norm_epsilon`, or (null/absent) 1e-5 when the norm has a
    beta, 1e-6 otherwise (src/layers/common.cc);
  * activation enum: 0 relu, 1 gelu-tanh, 2 swish, 3 gelu (erf), 4 gelu-sigmoid x*sigmoid(1.702x),
    5 tanh, 6 sigmoid;
  * source ids: config add_source_bos / add_source_eos; decoder start = vocabulary id of
    `decoder_start_token` (unknown -> <unk>);
  * greedy: CTranslate2 defaults: <unk> allowed (disable_unk=false), </s> disabled while
    step < min_decoding_length = 1 (so never at step 0), stop at </s> (kept in our ids), at most
    max_len tokens (goldens: ceil(3 * source length as fed to the encoder)).

Public API:
    model = load_model(folder)
    ids   = encode_text(model, line, side="source")
    enc   = encoder(model, src_ids, src_len); logits = decoder_forward_all(model, enc, src_len, tgt_ids)
    state = decoder_init(model, enc, src_len); logits_t, state = decoder_step(model, state, prev_ids)
    ids, step_logits = greedy(model, src_ids_1d)
    relative_position_index(q_len, k_len, K, offset=None)
"""

import json
import math
import os
import struct

import numpy as np

try:
    import sentencepiece as spm
except ImportError:  # pragma: no cover
    spm = None

F32 = np.float32
MASK_VALUE = np.finfo(np.float32).min

# DataType enum order (include/ctranslate2/types.h; specs/model_spec.py _dtype_to_type_id)
CT2_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16, 5: "bfloat16"}
ACTIVATIONS = {0: "relu", 1: "gelu_tanh", 2: "swish", 3: "gelu", 4: "gelu_sigmoid", 5: "tanh", 6: "sigmoid"}


# ----------------------------------------------------------------------------------------------
# model.bin
# ----------------------------------------------------------------------------------------------
def read_model_bin(path):
    """Returns dict(binary_version, spec, revision, variables {name: np.ndarray, native dtype,
    rank-0 arrays for scalars}, aliases [(alias, target)] in file order)."""
    with open(path, "rb") as fh:
        raw = fh.read()
    pos = 0

    def take(n):
        nonlocal pos
        if pos + n > len(raw):
            raise ValueError("model.bin truncated at %d" % pos)
        b = raw[pos:pos + n]
        pos += n
        return b

    def u32():
        return struct.unpack("<I", take(4))[0]

    def string():
        (n,) = struct.unpack("<H", take(2))
        s = take(n)
        if n == 0 or s[-1:] != b"\x00":
            raise ValueError("model.bin: string not NUL terminated")
        return s[:-1].decode("utf-8")

    version = u32()
    if version > 6:
        raise ValueError("unsupported binary version %d" % version)
    spec, revision = ("", 1)
    if version >= 2:
        spec = string()
        revision = u32()
    n_vars = u32()
    variables = {}
    for _ in range(n_vars):
        name = string()
        rank = struct.unpack("<B", take(1))[0]
        shape = struct.unpack("<%dI" % rank, take(4 * rank)) if rank else ()
        if version >= 4:
            type_id = struct.unpack("<B", take(1))[0]
            nbytes = u32()
            dt = CT2_DTYPES[type_id]
        else:
            item = struct.unpack("<B", take(1))[0]
            nbytes = u32() * item
            dt = {4: np.float32, 2: np.int16, 1: np.int8}[item]
        data = take(nbytes)
        if dt == "bfloat16":
            arr = (np.frombuffer(data, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(data, dtype=np.dtype(dt).newbyteorder("<")).copy()
        count = int(np.prod(shape)) if rank else 1
        if arr.size != count:
            raise ValueError("%s: %d elements for shape %s" % (name, arr.size, shape))
        variables[name] = arr.reshape(shape)
    aliases = []
    if version >= 3:
        for _ in range(u32()):
            a = string()
            aliases.append((a, string()))
    if pos != len(raw):
        raise ValueError("model.bin: %d trailing bytes" % (len(raw) - pos))
    return {"binary_version": version, "spec": spec, "revision": revision,
            "variables": variables, "aliases": aliases}


def resolve_aliases(variables, aliases):
    v = dict(variables)
    for a, t in aliases:
        if t in v:
            v[a] = v[t]
        if t + "_scale" in v:
            v[a + "_scale"] = v[t + "_scale"]
    return v


def dequantize(variables):
    """CTranslate2 with compute_type float32: int8/int16 `*weight` with `*weight_scale` ->
    float32(q) * (1/scale) (per output row for int8); float16/bfloat16 -> float32. Scalars and
    integer attributes are kept as-is."""
    out = {}
    for name, arr in variables.items():
        if name.endswith("_scale") and (name[:-6] in variables) and \
                variables[name[:-6]].dtype in (np.int8, np.int16):
            continue
        if arr.dtype in (np.int8, np.int16) and name.endswith("weight"):
            scale = variables.get(name + "_scale")
            if scale is None:
                raise ValueError("variable %s_scale not found" % name)
            scale = np.asarray(scale, dtype=F32)
            r = (F32(1.0) / scale).astype(F32)
            q = arr.astype(F32)
            if r.ndim == 0:
                out[name] = (q * r).astype(F32)
            else:
                out[name] = (q * r.reshape((-1,) + (1,) * (q.ndim - 1))).astype(F32)
        elif arr.dtype == np.float16 or (arr.dtype == np.float32 and arr.ndim > 0):
            out[name] = arr.astype(F32)
        else:
            out[name] = arr
    return out


# ----------------------------------------------------------------------------------------------
# vocabulary / config
# ----------------------------------------------------------------------------------------------
class Vocabulary:
    """src/vocabulary.cc: tokens in file order; <unk> appended if missing; unknown -> unk."""

    def __init__(self, tokens, unk_token="<unk>", bos_token="<s>", eos_token="</s>"):
        self.tokens = list(tokens)
        self.t2i = {}
        for i, t in enumerate(self.tokens):   # unordered_map::emplace keeps the first id
            if t not in self.t2i:
                self.t2i[t] = i
        if unk_token not in self.t2i:
            self.t2i[unk_token] = len(self.tokens)
            self.tokens.append(unk_token)
        self.unk_token, self.bos_token, self.eos_token = unk_token, bos_token, eos_token

    def __len__(self):
        return len(self.tokens)

    def to_id(self, token):
        return self.t2i.get(token, self.t2i[self.unk_token])

    @property
    def unk_id(self):
        return self.t2i[self.unk_token]

    @property
    def eos_id(self):
        return self.to_id(self.eos_token)


def _read_vocab_file(folder, base):
    j = os.path.join(folder, base + ".json")
    t = os.path.join(folder, base + ".txt")
    if os.path.exists(j):
        with open(j, encoding="utf-8") as fh:
            return json.load(fh)
    if os.path.exists(t):
        with open(t, "rb") as fh:
            lines = fh.read().decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines = lines[:-1]
        if lines and all(l.endswith("\r") for l in lines):
            lines = [l[:-1] for l in lines]
        return lines
    return None


def load_vocabularies(folder, cfg):
    kw = dict(unk_token=cfg.get("unk_token", "<unk>"), bos_token=cfg.get("bos_token", "<s>"),
              eos_token=cfg.get("eos_token", "</s>"))
    shared = _read_vocab_file(folder, "shared_vocabulary")
    if shared is not None:
        v = Vocabulary(shared, **kw)
        return v, v
    src = _read_vocab_file(folder, "source_vocabulary")
    tgt = _read_vocab_file(folder, "target_vocabulary")
    if src is None or tgt is None:
        raise ValueError("no vocabulary files in %s" % folder)
    return Vocabulary(src, **kw), Vocabulary(tgt, **kw)


# ----------------------------------------------------------------------------------------------
# model
# ----------------------------------------------------------------------------------------------
def _scalar(v, name, default=None):
    if name not in v:
        return default
    a = np.asarray(v[name])
    return a.reshape(-1)[0].item()


class CT2Model:
    def __init__(self, variables, config, src_vocab, tgt_vocab, src_sp=None, tgt_sp=None,
                 ln_eps=None, min_length=1, disable_unk=False):
        """variables: resolved + dequantized (see load_model / from_raw)."""
        self.v = variables
        self.config = dict(config)
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        self.src_sp, self.tgt_sp = src_sp, tgt_sp
        self.ln_eps_override = ln_eps
        self.min_length = min_length
        self.disable_unk = disable_unk
        v = variables
        self.enc_layers = self._count("encoder/layer_")
        self.dec_layers = self._count("decoder/layer_")
        self.enc_heads = int(_scalar(v, "encoder/num_heads", 8))
        self.dec_heads = int(_scalar(v, "decoder/num_heads", 8))
        self.enc_pre_norm = bool(_scalar(v, "encoder/pre_norm", 1))
        self.dec_pre_norm = bool(_scalar(v, "decoder/pre_norm", 1))
        self.enc_act = ACTIVATIONS[int(_scalar(v, "encoder/activation", 0))]
        self.dec_act = ACTIVATIONS[int(_scalar(v, "decoder/activation", 0))]
        if int(_scalar(v, "encoder/multi_query_attention", 0)):
            raise NotImplementedError("multi-query attention")
        if bool(_scalar(v, "decoder/alibi", 0)):
            raise NotImplementedError("alibi")
        self.enc_emb = v["encoder/embeddings_0/weight"] if "encoder/embeddings_0/weight" in v \
            else v["encoder/embeddings/weight"]
        if "encoder/embeddings_1/weight" in v:
            raise NotImplementedError("source features")
        self.dec_emb = v["decoder/embeddings/weight"]
        self.D = self.enc_emb.shape[1]
        self.enc_scale = self._emb_scale("encoder")
        self.dec_scale = self._emb_scale("decoder")
        self.start_from_zero = bool(_scalar(v, "decoder/start_from_zero_embedding", 0))
        self.enc_rel = "encoder/layer_0/self_attention/relative_position_keys" in v
        self.dec_rel = "decoder/layer_0/self_attention/relative_position_keys" in v
        self.enc_pos = None if self.enc_rel else v.get("encoder/position_encodings/encodings")
        self.dec_pos = None if self.dec_rel else v.get("decoder/position_encodings/encodings")
        self.proj_w = v["decoder/projection/weight"]
        self.proj_b = v.get("decoder/projection/bias")
        self.V = self.proj_w.shape[0]
        self.start_id = tgt_vocab.to_id(config.get("decoder_start_token") or config.get("bos_token", "<s>"))
        self.eos_id = tgt_vocab.eos_id
        self.unk_id = tgt_vocab.unk_id

    def _count(self, prefix):
        n = 0
        while any(k.startswith("%s%d/" % (prefix, n)) for k in self.v):
            n += 1
        return n

    def _emb_scale(self, side):
        """transformer.cc build_embeddings_scale: missing or int8 true -> sqrt(D); a float != 1
        -> that value; else none."""
        name = side + "/scale_embeddings"
        if name not in self.v:
            name = side + "/embeddings/multiply_by_sqrt_depth"
        if name not in self.v:
            return F32(math.sqrt(self.D))
        a = np.asarray(self.v[name])
        if a.dtype == np.int8:
            return F32(math.sqrt(self.D)) if int(a) else None
        val = F32(a.reshape(-1)[0])
        return None if val == F32(1.0) else val

    def ln_eps(self, scope):
        if self.ln_eps_override is not None:
            return F32(self.ln_eps_override)
        e = self.config.get("layer_norm_epsilon")
        if e is not None:
            return F32(e)
        return F32(1e-5) if (scope + "/beta") in self.v else F32(1e-6)

    def layer_norm(self, scope, x):
        g = self.v[scope + "/gamma"]
        b = self.v.get(scope + "/beta")
        eps = self.ln_eps(scope)
        x = x.astype(F32)
        if b is None:   # RMSNorm
            ms = (x * x).mean(axis=-1, keepdims=True, dtype=F32)
            return (x / np.sqrt(ms + eps) * g).astype(F32)
        mean = x.mean(axis=-1, keepdims=True, dtype=F32)
        d = (x - mean).astype(F32)
        var = (d * d).mean(axis=-1, keepdims=True, dtype=F32)
        return (d / np.sqrt(var + eps) * g + b).astype(F32)

    def linear(self, scope, x):
        y = np.matmul(x, self.v[scope + "/weight"].T).astype(F32)
        b = self.v.get(scope + "/bias")
        if b is not None:
            y = (y + b).astype(F32)
        return y


def load_model(folder, source_spm=None, target_spm=None, **kw):
    """source_spm / target_spm default to <folder>/source.spm and <folder>/target.spm."""
    mb = read_model_bin(os.path.join(folder, "model.bin"))
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as fh:
        cfg = json.load(fh)
    src_vocab, tgt_vocab = load_vocabularies(folder, cfg)
    s = source_spm or os.path.join(folder, "source.spm")
    t = target_spm or os.path.join(folder, "target.spm")
    src_sp = spm.SentencePieceProcessor(model_file=s) if os.path.exists(s) else None
    tgt_sp = spm.SentencePieceProcessor(model_file=t) if os.path.exists(t) else None
    m = from_raw(mb["variables"], mb["aliases"], cfg, src_vocab, tgt_vocab, src_sp, tgt_sp, **kw)
    m.model_bin = mb
    m.folder = folder
    return m


def from_raw(variables, aliases, cfg, src_vocab, tgt_vocab, src_sp=None, tgt_sp=None, **kw):
    v = dequantize(resolve_aliases(variables, aliases))
    return CT2Model(v, cfg, src_vocab, tgt_vocab, src_sp, tgt_sp, **kw)


def encode_text(model, line, side="source"):
    """SPM pieces -> vocabulary ids (unknown -> <unk>); source side gets <s> / </s> if the config
    says add_source_bos / add_source_eos; the target side (golden references) always ends in </s>."""
    if side == "source":
        sp, voc = model.src_sp, model.src_vocab
    else:
        sp, voc = model.tgt_sp, model.tgt_vocab
    ids = [voc.to_id(p) for p in sp.encode(line, out_type=str)]
    if side == "source":
        if model.config.get("add_source_bos", False):
            ids = [voc.to_id(voc.bos_token)] + ids
        if model.config.get("add_source_eos", False):
            ids = ids + [voc.eos_id]
        return ids
    return ids + [voc.eos_id]


def decode_ids(model, ids):
    pieces = [model.tgt_vocab.tokens[int(i)] for i in ids if int(i) != model.eos_id]
    return model.tgt_sp.decode_pieces(pieces)


# ----------------------------------------------------------------------------------------------
# building blocks
# ----------------------------------------------------------------------------------------------
def sigmoid(x):
    return (F32(1.0) / (F32(1.0) + np.exp(-x))).astype(F32)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def activation(name, x):
    if name == "relu":
        return np.maximum(x, F32(0)).astype(F32)
    if name == "swish":
        return (x * sigmoid(x)).astype(F32)
    if name == "gelu":
        return (F32(0.5) * x * (F32(1.0) + _erf(x.astype(np.float64) / math.sqrt(2.0)).astype(F32))).astype(F32)
    if name == "gelu_tanh":
        c = F32(math.sqrt(2.0 / math.pi))
        return (F32(0.5) * x * (F32(1.0) + np.tanh(c * (x + F32(0.044715) * x * x * x)))).astype(F32)
    if name == "gelu_sigmoid":
        return (x * sigmoid(F32(1.702) * x)).astype(F32)
    if name == "tanh":
        return np.tanh(x).astype(F32)
    if name == "sigmoid":
        return sigmoid(x)
    raise NotImplementedError(name)


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


def relative_position_index(q_len, k_len, K, offset=None):
    """CTranslate2 attention.cc make_relative_positions: idx[i, j] = clamp(j - (i + offset), -K, K) + K,
    offset = k_len - q_len by default (cached decoding: the queries are the last q_len positions)."""
    if offset is None:
        offset = k_len - q_len
    i = np.arange(q_len)[:, None] + offset
    j = np.arange(k_len)[None, :]
    return (np.clip(j - i, -K, K) + K).astype(np.int64)


def ct2_sinusoid(max_time, depth):
    """SinusoidalPositionEncoder (used only when no position_encodings/encodings variable is
    stored): log_inc = ln(10000)/(depth/2 - 1), rows for positions 1..max_time (CT2 uses i+1)."""
    inc = F32(math.log(10000.0)) / F32(depth // 2 - 1)
    ts = np.exp(-inc * np.arange(depth // 2, dtype=F32)).astype(F32)
    st = (np.arange(1, max_time + 1, dtype=F32)[:, None] * ts[None, :]).astype(F32)
    return np.concatenate([np.sin(st), np.cos(st)], axis=-1).astype(F32)


def _positions(model, table, positions):
    positions = np.asarray(positions)
    if table is None:
        table = ct2_sinusoid(int(positions.max()) + 1, model.D)
    if positions.max() >= table.shape[0]:
        raise ValueError("No position encodings are defined for positions >= %d, but got position %d"
                         % (table.shape[0], positions.max()))
    return table[positions]


def attention(model, scope, H, x, memory, mask_add, pre_norm, self_attn, cache=None):
    """CTranslate2 MultiHeadAttention incl. residual and (pre|post) norm. cache: dict holding
    projected keys/values of earlier steps (self-attention) or of the memory (cross-attention)."""
    residual = x
    q_in = model.layer_norm(scope + "/layer_norm", x) if pre_norm else x
    D = q_in.shape[-1]
    if self_attn:
        fused = model.linear(scope + "/linear_0", q_in)
        Q, K, V = fused[..., :D], fused[..., D:2 * D], fused[..., 2 * D:]
        if cache is not None:
            if "k" in cache:
                K = np.concatenate([cache["k"], K], axis=1)
                V = np.concatenate([cache["v"], V], axis=1)
            cache["k"], cache["v"] = K, V
    else:
        Q = model.linear(scope + "/linear_0", q_in)
        if cache is not None and "k" in cache:
            K, V = cache["k"], cache["v"]
        else:
            kv = model.linear(scope + "/linear_1", memory)
            K, V = kv[..., :D], kv[..., D:]
            if cache is not None:
                cache["k"], cache["v"] = K, V
    B, Tq, _ = Q.shape
    Tk = K.shape[1]
    dh = D // H

    def split(t, T):
        return t.reshape(B, T, H, dh).transpose(0, 2, 1, 3)
    Qh, Kh, Vh = split(Q, Tq), split(K, Tk), split(V, Tk)
    scale = F32(1.0) / F32(math.sqrt(dh))
    S = (np.matmul(Qh, Kh.transpose(0, 1, 3, 2)) * scale).astype(F32)
    rel_k = model.v.get(scope + "/relative_position_keys") if self_attn else None
    if rel_k is not None:
        Kmax = (rel_k.shape[0] - 1) // 2
        idx = relative_position_index(Tq, Tk, Kmax)
        Rk = rel_k[idx]                                              # [Tq, Tk, dh]
        S = (S + np.einsum("bhid,ijd->bhij", Qh, Rk).astype(F32) * scale).astype(F32)
    S = (S + mask_add).astype(F32)
    A = softmax(S)
    O = np.matmul(A, Vh).astype(F32)
    if rel_k is not None:
        Rv = model.v[scope + "/relative_position_values"][idx]
        O = (O + np.einsum("bhij,ijd->bhid", A, Rv).astype(F32)).astype(F32)
    O = O.transpose(0, 2, 1, 3).reshape(B, Tq, D)
    out = model.linear(scope + "/linear_%d" % (1 if self_attn else 2), O)
    if pre_norm:
        return (out + residual).astype(F32)
    return model.layer_norm(scope + "/layer_norm", (out + residual).astype(F32))


def ffn(model, scope, x, pre_norm, act):
    h = model.layer_norm(scope + "/layer_norm", x) if pre_norm else x
    h = activation(act, model.linear(scope + "/linear_0", h))
    h = model.linear(scope + "/linear_1", h)
    if pre_norm:
        return (x + h).astype(F32)
    return model.layer_norm(scope + "/layer_norm", (x + h).astype(F32))


# ----------------------------------------------------------------------------------------------
# encoder / decoder
# ----------------------------------------------------------------------------------------------
def encoder(model, src_ids, src_len):
    src_ids = np.asarray(src_ids)
    B, S = src_ids.shape
    x = model.enc_emb[src_ids].astype(F32)
    if model.enc_scale is not None:
        x = (x * model.enc_scale).astype(F32)
    if not model.enc_rel:
        x = (x + _positions(model, model.enc_pos, np.arange(S))[None]).astype(F32)
    if "encoder/layernorm_embedding/gamma" in model.v:
        x = model.layer_norm("encoder/layernorm_embedding", x)
    valid = np.arange(S)[None, :] < np.asarray(src_len)[:, None]
    mask = _mask_add(valid)[:, None, None, :]
    for l in range(model.enc_layers):
        P = "encoder/layer_%d" % l
        x = attention(model, P + "/self_attention", model.enc_heads, x, None, mask,
                      model.enc_pre_norm, True)
        x = ffn(model, P + "/ffn", x, model.enc_pre_norm, model.enc_act)
    if "encoder/layer_norm/gamma" in model.v:
        x = model.layer_norm("encoder/layer_norm", x)
    return x.astype(F32)


def _dec_embed(model, ids, positions, first_is_start):
    """ids [B,T]; first_is_start: whether column 0 is the step-0 (start) input."""
    x = model.dec_emb[np.asarray(ids)].astype(F32)
    if model.start_from_zero and first_is_start:
        x[:, 0, :] = F32(0)
    if model.dec_scale is not None:
        x = (x * model.dec_scale).astype(F32)
    if not model.dec_rel:
        x = (x + _positions(model, model.dec_pos, positions)[None]).astype(F32)
    if "decoder/layernorm_embedding/gamma" in model.v:
        x = model.layer_norm("decoder/layernorm_embedding", x)
    return x


def _dec_stack(model, x, enc, src_mask, self_mask, caches=None):
    for l in range(model.dec_layers):
        P = "decoder/layer_%d" % l
        c = caches[l] if caches is not None else None
        x = attention(model, P + "/self_attention", model.dec_heads, x, None, self_mask,
                      model.dec_pre_norm, True, c["self"] if c else None)
        x = attention(model, P + "/attention", model.dec_heads, x, enc, src_mask,
                      model.dec_pre_norm, False, c["mem"] if c else None)
        x = ffn(model, P + "/ffn", x, model.dec_pre_norm, model.dec_act)
    if "decoder/layer_norm/gamma" in model.v:
        x = model.layer_norm("decoder/layer_norm", x)
    y = np.matmul(x, model.proj_w.T).astype(F32)
    if model.proj_b is not None:
        y = (y + model.proj_b).astype(F32)
    return y


def _src_mask(enc, src_len):
    S = enc.shape[1]
    valid = np.arange(S)[None, :] < np.asarray(src_len)[:, None]
    return _mask_add(valid)[:, None, None, :]


def decoder_forward_all(model, enc, src_len, tgt_ids):
    """Teacher forcing: input 0 = decoder start token, input t>0 = tgt_ids[:, t-1]; raw logits [B,T,V]."""
    tgt_ids = np.asarray(tgt_ids)
    B, T = tgt_ids.shape
    inp = np.full((B, T), model.start_id, dtype=np.int64)
    inp[:, 1:] = tgt_ids[:, :-1]
    x = _dec_embed(model, inp, np.arange(T), True)
    causal = np.tril(np.ones((T, T), dtype=bool))
    return _dec_stack(model, x, enc, _src_mask(enc, src_len), _mask_add(causal)[None, None])


def decoder_init(model, enc, src_len):
    return {"enc": enc, "src_mask": _src_mask(enc, src_len), "t": 0,
            "caches": [{"self": {}, "mem": {}} for _ in range(model.dec_layers)]}


def decoder_step(model, state, prev_ids):
    t = state["t"]
    B = state["enc"].shape[0]
    ids = np.full((B, 1), model.start_id, dtype=np.int64)
    if t > 0:
        ids[:, 0] = np.asarray(prev_ids).reshape(B)
    x = _dec_embed(model, ids, np.array([t]), t == 0)
    y = _dec_stack(model, x, state["enc"], state["src_mask"], F32(0), state["caches"])
    state["t"] = t + 1
    return y[:, 0, :], state


def max_output_length(src_len, factor=3.0):
    return int(math.ceil(factor * float(src_len)))


def greedy(model, src_ids, max_len=None, min_length=None, disable_unk=None, suppress=()):
    """CTranslate2 greedy search (beam_size=1) of ONE sentence with its default options
    (min_decoding_length=1, disable_unk=False); max_len default ceil(3 * len(src_ids)).
    Returns (ids incl. final </s> if produced, raw logits [L,V] before any masking)."""
    min_length = model.min_length if min_length is None else min_length
    disable_unk = model.disable_unk if disable_unk is None else disable_unk
    src_ids = np.asarray(src_ids).reshape(1, -1)
    sl = np.array([src_ids.shape[1]])
    enc = encoder(model, src_ids, sl)
    state = decoder_init(model, enc, sl)
    if max_len is None:
        max_len = max_output_length(src_ids.shape[1])
    out, steps = [], []
    prev = np.array([model.start_id])
    for step in range(max_len):
        logits, state = decoder_step(model, state, prev)
        steps.append(logits[0].copy())
        s = log_softmax(logits[0])
        if step < min_length:
            s[model.eos_id] = -np.inf
        if disable_unk:
            s[model.unk_id] = -np.inf
        for b in suppress:
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
