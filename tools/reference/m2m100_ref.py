#!/usr/bin/python3
"""Independent numpy reference of Hugging Face M2M100ForConditionalGeneration (NLLB-200, M2M-100).

Written from transformers' sources, not from s2s's C++:
  src/transformers/models/m2m_100/modeling_m2m_100.py
    * M2M100ScaledWordEmbedding / M2M100Encoder.embed_scale: tokens * sqrt(d_model) if
      config.scale_embedding else 1.0;
    * M2M100SinusoidalPositionalEmbedding: offset 2, get_embedding(): half = D // 2,
      emb = exp(arange(half) * -(log(10000) / (half - 1))), [sin | cos] halves, row padding_idx
      zeroed; create_position_ids_from_input_ids(): cumsum(input_ids != padding_idx) *
      mask + padding_idx (+ past_key_values_length) -> the first token sits at padding_idx + 1;
    * M2M100EncoderLayer / M2M100DecoderLayer: PRE-NORM (residual + sublayer(LayerNorm(x))),
      self_attn_layer_norm, encoder_attn_layer_norm, final_layer_norm before fc1 -> act -> fc2;
    * M2M100Encoder / M2M100Decoder end with self.layer_norm(hidden_states);
    * M2M100Attention: q_proj(x) * head_dim ** -0.5, softmax over keys, out_proj;
    * lm_head: nn.Linear(d_model, vocab_size, bias=False), tied to model.shared unless
      tie_word_embeddings is false; no final_logits_bias.
  src/transformers/models/m2m_100/configuration_m2m_100.py: defaults (relu, scale_embedding True,
    pad 1, eos 2, decoder_start_token_id 2).
  src/transformers/models/nllb/tokenization_nllb.py: fairseq_tokens_to_ids {<s>:0, <pad>:1,
    </s>:2, <unk>:3}, fairseq_offset 1 (spm id k -> k + 1, spm id 0 -> <unk>), language codes at
    len(sp_model) + 1 + i, <mask> after them; set_src_lang_special_tokens: [lang] text </s>, or
    legacy_behaviour: text </s> [lang].
  src/transformers/models/m2m_100/tokenization_m2m_100.py: vocab.json (encoder), __xx__ tokens at
    len(encoder) + i, [__src__] text </s>.
  Generation: decoder_input starts with decoder_start_token_id (</s>), forced_bos_token_id = the
  target language token at step 1 (scored 0 after ForcedBOSTokenLogitsProcessor).

nn.LayerNorm eps 1e-5. Arithmetic in float64, so that what the parity tests measure is the
engine's float32 rounding alone. Run with Debian's /usr/bin/python3.

    model = load_model(folder)
    ids = encode_source(model, "Hello", "eng_Latn")
    enc = encoder(model, np.array([ids]), np.array([len(ids)]))
"""

import json
import math
import os
import sys

import numpy as np
import sentencepiece as spm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_ref import read_safetensors  # noqa: E402  (the container reader only)
import fairseq_languages  # noqa: E402

F32 = np.float64  # exact enough that the parity figures are the engine's own rounding
LN_EPS = F32(1e-5)
MASK_VALUE = np.finfo(np.float32).min


def _json(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def read_weights(folder):
    """model.safetensors, or every shard model.safetensors.index.json names."""
    single = os.path.join(folder, "model.safetensors")
    if os.path.exists(single):
        return read_safetensors(single)[0]
    index = _json(os.path.join(folder, "model.safetensors.index.json"))
    out = {}
    for shard in sorted(set(index["weight_map"].values())):
        out.update(read_safetensors(os.path.join(folder, shard))[0])
    return out


class M2M100Model:
    def __init__(self, folder):
        cfg = _json(os.path.join(folder, "config.json"))
        assert cfg["model_type"] == "m2m_100"
        self.cfg = cfg
        w = {k: np.asarray(v, dtype=F32) for k, v in read_weights(folder).items()}
        self.w = w
        self.D = int(cfg["d_model"])
        self.enc_layers, self.dec_layers = int(cfg["encoder_layers"]), int(cfg["decoder_layers"])
        self.heads = int(cfg["encoder_attention_heads"])
        self.act = cfg.get("activation_function", "relu")
        self.embed_scale = F32(math.sqrt(self.D)) if cfg.get("scale_embedding", True) else F32(1.0)
        self.pad_id = int(cfg.get("pad_token_id", 1))
        self.eos_id = int(cfg.get("eos_token_id", 2))
        self.start_id = int(cfg.get("decoder_start_token_id", 2))
        self.shared = w.get("model.shared.weight", w.get("model.encoder.embed_tokens.weight"))
        self.lm_head = self.shared if cfg.get("tie_word_embeddings", True) else w["lm_head.weight"]
        self.V = self.lm_head.shape[0]
        self._tokenizer(folder)

    def _tokenizer(self, folder):
        tok = {}
        for f in ("special_tokens_map.json", "tokenizer_config.json"):
            p = os.path.join(folder, f)
            if os.path.exists(p):
                tok.update(_json(p))
        self.sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "sentencepiece.bpe.model"))
        vocab_json = os.path.join(folder, "vocab.json")
        self.nllb = not os.path.exists(vocab_json)
        self.legacy = bool(tok.get("legacy_behaviour", False)) and self.nllb
        if self.nllb:
            codes = [t if isinstance(t, str) else t["content"] for t in tok["additional_special_tokens"]]
            n = self.sp.get_piece_size()
            self.lang_id = {c: n + 1 + i for i, c in enumerate(codes)}
            self.unk_id = 3
        else:
            self.encoder_vocab = _json(vocab_json)
            codes = {"m2m100": fairseq_languages.M2M100,
                     "wmt21": ["en", "ha", "is", "ja", "cs", "ru", "zh", "de"]}[tok.get("language_codes", "m2m100")]
            n = len(self.encoder_vocab)
            self.lang_id = {"__%s__" % c: n + i for i, c in enumerate(codes)}
            self.unk_id = self.encoder_vocab["<unk>"]
        self.id_piece = {}
        if self.nllb:
            for k in range(3, self.sp.get_piece_size()):
                self.id_piece[k + 1] = self.sp.id_to_piece(k)
        else:
            self.id_piece = {v: k for k, v in self.encoder_vocab.items()}

    def piece_id(self, piece):
        if self.nllb:   # _convert_token_to_id
            k = self.sp.piece_to_id(piece)
            return k + 1 if k else self.unk_id
        return self.encoder_vocab.get(piece, self.unk_id)


def load_model(folder):
    m = M2M100Model(folder)
    m.folder = folder
    return m


def lang_token(model, code):
    return code if model.nllb else "__%s__" % code


def encode_source(model, text, src_lang):
    """The tokenizer's input_ids for `text` in language `src_lang` (a code: eng_Latn / en)."""
    ids = [model.piece_id(p) for p in model.sp.encode(text, out_type=str)]
    lang = model.lang_id[lang_token(model, src_lang)]
    if model.legacy:
        return ids + [model.eos_id, lang]
    return [lang] + ids + [model.eos_id]


def encode_target(model, text, tgt_lang):
    """Labels as the tokenizer gives them in target mode: [tgt_lang] text </s> (non-legacy)."""
    return [model.lang_id[lang_token(model, tgt_lang)]] + \
        [model.piece_id(p) for p in model.sp.encode(text, out_type=str)] + [model.eos_id]


def decode(model, ids):
    """decode(skip_special_tokens=True): no <s> <pad> </s> <unk> <mask> or language tokens
    (all_special_ids), nor ids the tokenizer has no piece for."""
    special = {"<s>", "<pad>", "</s>", "<unk>", "<mask>"}
    pieces = [model.id_piece[i] for i in ids if i in model.id_piece and model.id_piece[i] not in special]
    return model.sp.decode_pieces(pieces)


# ----------------------------------------------------------------------------------------------
def sinusoids(model, positions):
    """M2M100SinusoidalPositionalEmbedding.get_embedding rows."""
    half = model.D // 2
    step = F32(math.log(10000) / (half - 1))
    freq = np.exp(np.arange(half, dtype=F32) * -step).astype(F32)
    emb = (np.asarray(positions, dtype=F32).reshape(-1, 1) * freq[None, :]).astype(F32)
    out = np.concatenate([np.sin(emb), np.cos(emb)], axis=1).astype(F32)
    out[np.asarray(positions).reshape(-1) == model.pad_id] = 0
    return out


def layer_norm(x, g, b):
    mean = x.mean(axis=-1, keepdims=True, dtype=F32)
    d = (x - mean).astype(F32)
    var = (d * d).mean(axis=-1, keepdims=True, dtype=F32)
    return (d / np.sqrt(var + LN_EPS) * g + b).astype(F32)


def _ln(model, name, x):
    return layer_norm(x, model.w[name + ".weight"], model.w[name + ".bias"])


def linear(model, name, x):
    return (np.matmul(x, model.w[name + ".weight"].T).astype(F32) + model.w[name + ".bias"]).astype(F32)


def activation(name, x):
    if name == "relu":
        return np.maximum(x, F32(0)).astype(F32)
    if name in ("swish", "silu"):
        return (x / (F32(1) + np.exp(-x))).astype(F32)
    if name == "gelu":
        erf = np.vectorize(math.erf, otypes=[np.float64])
        return (F32(0.5) * x * (F32(1) + erf(x.astype(np.float64) / math.sqrt(2.0)).astype(F32))).astype(F32)
    raise NotImplementedError(name)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True, dtype=F32)).astype(F32)


def log_softmax(x):
    x = x.astype(F32)
    s = x - x.max(axis=-1, keepdims=True)
    return (s - np.log(np.exp(s).sum(axis=-1, keepdims=True, dtype=F32))).astype(F32)


def attention(model, name, q_in, k, v, mask_add):
    """k, v: the projected keys/values [B, Tk, D]."""
    H = model.heads
    q = (linear(model, name + ".q_proj", q_in) * F32((model.D // H) ** -0.5)).astype(F32)
    B, Tq, D = q.shape
    dh = D // H

    def split(t):
        return t.reshape(B, t.shape[1], H, dh).transpose(0, 2, 1, 3)
    s = (np.matmul(split(q), split(k).transpose(0, 1, 3, 2)) + mask_add).astype(F32)
    o = np.matmul(softmax(s), split(v)).astype(F32).transpose(0, 2, 1, 3).reshape(B, Tq, D)
    return linear(model, name + ".out_proj", o)


def embed(model, ids, positions):
    x = (model.shared[np.asarray(ids)] * model.embed_scale).astype(F32)
    return (x + sinusoids(model, positions)[None]).astype(F32)


def _mask(valid):
    return np.where(valid, F32(0), MASK_VALUE).astype(F32)


def encoder(model, src_ids, src_len):
    src_ids = np.asarray(src_ids)
    B, S = src_ids.shape
    x = embed(model, src_ids, np.arange(S) + model.pad_id + 1)
    mask = _mask(np.arange(S)[None, :] < np.asarray(src_len)[:, None])[:, None, None, :]
    for i in range(model.enc_layers):
        P = "model.encoder.layers.%d" % i
        h = _ln(model, P + ".self_attn_layer_norm", x)
        k, v = linear(model, P + ".self_attn.k_proj", h), linear(model, P + ".self_attn.v_proj", h)
        x = (x + attention(model, P + ".self_attn", h, k, v, mask)).astype(F32)
        h = _ln(model, P + ".final_layer_norm", x)
        h = linear(model, P + ".fc2", activation(model.act, linear(model, P + ".fc1", h)))
        x = (x + h).astype(F32)
    return _ln(model, "model.encoder.layer_norm", x)


def _decoder(model, x, enc, src_mask, self_mask, cache):
    """cache: per layer (keys, values) of the earlier steps, replaced (never changed in place)."""
    for i in range(model.dec_layers):
        P = "model.decoder.layers.%d" % i
        h = _ln(model, P + ".self_attn_layer_norm", x)
        k, v = linear(model, P + ".self_attn.k_proj", h), linear(model, P + ".self_attn.v_proj", h)
        if cache is not None:
            if cache[i] is not None:
                k = np.concatenate([cache[i][0], k], axis=1)
                v = np.concatenate([cache[i][1], v], axis=1)
            cache[i] = (k, v)
        x = (x + attention(model, P + ".self_attn", h, k, v, self_mask)).astype(F32)
        h = _ln(model, P + ".encoder_attn_layer_norm", x)
        ck = linear(model, P + ".encoder_attn.k_proj", enc)
        cv = linear(model, P + ".encoder_attn.v_proj", enc)
        x = (x + attention(model, P + ".encoder_attn", h, ck, cv, src_mask)).astype(F32)
        h = _ln(model, P + ".final_layer_norm", x)
        h = linear(model, P + ".fc2", activation(model.act, linear(model, P + ".fc1", h)))
        x = (x + h).astype(F32)
    x = _ln(model, "model.decoder.layer_norm", x)
    return np.matmul(x, model.lm_head.T).astype(F32)


def _src_mask(enc, src_len):
    return _mask(np.arange(enc.shape[1])[None, :] < np.asarray(src_len)[:, None])[:, None, None, :]


def decoder_forward_all(model, enc, src_len, tgt_ids):
    """Teacher forcing (shift_tokens_right with decoder_start_token_id): logits [B, T, V]."""
    tgt_ids = np.asarray(tgt_ids)
    B, T = tgt_ids.shape
    inp = np.full((B, T), model.start_id, dtype=np.int64)
    inp[:, 1:] = tgt_ids[:, :-1]
    x = embed(model, inp, np.arange(T) + model.pad_id + 1)
    causal = _mask(np.tril(np.ones((T, T), dtype=bool)))[None, None]
    return _decoder(model, x, enc, _src_mask(enc, src_len), causal, None)


def decoder_init(model, enc, src_len):
    return {"enc": enc, "src_mask": _src_mask(enc, src_len), "t": 0, "cache": [None] * model.dec_layers}


def decoder_step(model, state, prev_ids):
    """prev_ids [B], ignored at t = 0 (the input is decoder_start_token_id)."""
    t = state["t"]
    B = state["enc"].shape[0]
    ids = np.full((B, 1), model.start_id, dtype=np.int64)
    if t > 0:
        ids[:, 0] = np.asarray(prev_ids).reshape(B)
    x = embed(model, ids, np.array([t + model.pad_id + 1]))
    logits = _decoder(model, x, state["enc"], state["src_mask"], F32(0), state["cache"])
    state["t"] = t + 1
    return logits[:, 0, :], state


def greedy(model, src_ids, max_len=None, forced=()):
    """Greedy decoding of one sentence from decoder_start_token_id; `forced` tokens first (score
    0), <unk> allowed, nothing banned; at most ceil(3 * len(src_ids)) tokens (s2s's default
    --max-length-factor), </s> included. Returns (ids incl. forced, raw logits [L, V])."""
    src = np.asarray(src_ids).reshape(1, -1)
    sl = np.array([src.shape[1]])
    state = decoder_init(model, encoder(model, src, sl), sl)
    max_len = max_len or int(math.ceil(3.0 * src.shape[1]))
    out, steps, prev = [], [], np.array([model.start_id])
    while len(out) < max_len:
        logits, state = decoder_step(model, state, prev)
        steps.append(logits[0].copy())
        tok = forced[len(out)] if len(out) < len(forced) else int(np.argmax(log_softmax(logits[0])))
        out.append(tok)
        if tok == model.eos_id and len(out) > len(forced):
            break
        prev = np.array([tok])
    return out, np.stack(steps).astype(F32)


def pad_batch(seqs, pad=0):
    L = max(len(s) for s in seqs)
    arr = np.full((len(seqs), L), pad, dtype=np.int32)
    for i, s in enumerate(seqs):
        arr[i, :len(s)] = s
    return arr, np.array([len(s) for s in seqs], dtype=np.int32)
