"""A Transformer in Marian's semantics, in PyTorch, for training s2s's default model.

What makes it Marian's (so that the exported .npz means the same thing to s2s's Marian loader,
see tools/reference/marian_ref.py):
  * post-norm blocks: transformer-preprocess "", transformer-postprocess "dan" (dropout, add the
    residual, layer norm with epsilon 1e-6), transformer-postprocess-emb "d";
  * embeddings scaled by sqrt(d) plus Marian's sinusoid (sin on the first half of the channels,
    cos on the second, frequency step log(10000) / (d/2 - 1)), positions from 0;
  * the decoder's first input is an all-zero vector, not a start token;
  * FFN activation swish; attention with biases on Q/K/V/O projections, scale 1/sqrt(d_head);
  * one embedding matrix for source, target and output (tied-embeddings-all) plus an output bias.
Weights are stored the way Marian stores them (x @ W, W of shape [in, out]), so export is a copy.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as Fn

LN_EPS = 1e-6


def marian_positions(length, dim, device=None):
    half = dim // 2
    inc = math.log(10000.0) / (half - 1)
    i = torch.arange(dim, device=device)
    freq = torch.exp((i % half).float() * -inc)
    v = torch.arange(length, device=device).float()[:, None] * freq[None, :]
    return torch.where(i[None, :] < half, torch.sin(v), torch.cos(v))


class Affine(nn.Module):
    """x @ W + b with W [in, out] (Marian's layout)."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.W = nn.Parameter(torch.empty(n_in, n_out))
        self.b = nn.Parameter(torch.zeros(1, n_out))
        bound = math.sqrt(6.0 / (n_in + n_out))        # Glorot uniform, as Marian initialises
        nn.init.uniform_(self.W, -bound, bound)

    def forward(self, x):
        return torch.matmul(x, self.W) + self.b


class LayerNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1, dim))
        self.bias = nn.Parameter(torch.zeros(1, dim))

    def forward(self, x):
        return Fn.layer_norm(x, x.shape[-1:], self.scale[0], self.bias[0], LN_EPS)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (Affine(dim, dim) for _ in range(4))
        self.ln = LayerNorm(dim)

    def project_kv(self, kv):
        B, T, D = kv.shape
        H = self.heads
        k = self.k(kv).view(B, T, H, D // H).transpose(1, 2)
        v = self.v(kv).view(B, T, H, D // H).transpose(1, 2)
        return k, v

    def attend(self, q_in, k, v, mask_add):
        B, T, D = q_in.shape
        H = self.heads
        q = self.q(q_in).view(B, T, H, D // H).transpose(1, 2)
        s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(D // H)) + mask_add
        a = torch.softmax(s.float(), dim=-1).to(v.dtype)
        o = torch.matmul(a, v).transpose(1, 2).reshape(B, T, D)
        return self.o(o)


class FFN(nn.Module):
    def __init__(self, dim, dim_ffn):
        super().__init__()
        self.l1, self.l2 = Affine(dim, dim_ffn), Affine(dim_ffn, dim)
        self.ln = LayerNorm(dim)

    def forward(self, x):
        return self.l2(Fn.silu(self.l1(x)))


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, dim_ffn):
        super().__init__()
        self.self_att, self.ffn = Attention(dim, heads), FFN(dim, dim_ffn)

    def forward(self, x, mask_add, drop):
        k, v = self.self_att.project_kv(x)
        x = self.self_att.ln(x + drop(self.self_att.attend(x, k, v, mask_add)))
        return self.ffn.ln(x + drop(self.ffn(x)))


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, dim_ffn):
        super().__init__()
        self.self_att, self.context = Attention(dim, heads), Attention(dim, heads)
        self.ffn = FFN(dim, dim_ffn)

    def forward(self, x, self_kv, self_mask, ctx_kv, ctx_mask, drop):
        x = self.self_att.ln(x + drop(self.self_att.attend(x, *self_kv, self_mask)))
        x = self.context.ln(x + drop(self.context.attend(x, *ctx_kv, ctx_mask)))
        return self.ffn.ln(x + drop(self.ffn(x)))


class MarianTransformer(nn.Module):
    def __init__(self, vocab, dim=256, heads=4, dim_ffn=1024, enc_depth=3, dec_depth=3,
                 dropout=0.1, depth_scaling=False):
        super().__init__()
        self.dim, self.heads = dim, heads
        self.Wemb = nn.Parameter(torch.randn(vocab, dim) * dim ** -0.5)
        self.out_b = nn.Parameter(torch.zeros(1, vocab))
        self.enc = nn.ModuleList(EncoderLayer(dim, heads, dim_ffn) for _ in range(enc_depth))
        self.dec = nn.ModuleList(DecoderLayer(dim, heads, dim_ffn) for _ in range(dec_depth))
        self.dropout = dropout
        self.depth_scaling = depth_scaling
        if depth_scaling:
            self._scale_init_by_depth()

    @torch.no_grad()
    def _scale_init_by_depth(self):
        """Marian's --transformer-depth-scaling (Zhang et al. 2019, DS-Init): the Glorot bound of
        every projection in layer l (1-based, per stack) times 1/sqrt(l). Deeper post-norm layers
        start closer to the identity, which is what lets a deep post-norm encoder learn at this
        learning rate and batch size (tools/train/README.md, "Training the fourth edition").
        An initialisation only: the exported model computes exactly as without it."""
        for stack in (self.enc, self.dec):
            for l, layer in enumerate(stack, 1):
                for m in layer.modules():
                    if isinstance(m, Affine):
                        m.W.mul_(l ** -0.5)

    def config(self):
        return {"vocab": self.Wemb.shape[0], "dim": self.dim, "heads": self.heads,
                "dim_ffn": self.enc[0].ffn.l1.W.shape[1], "enc_depth": len(self.enc),
                "dec_depth": len(self.dec), "dropout": self.dropout,
                "depth_scaling": self.depth_scaling}

    def _drop(self, x):
        return Fn.dropout(x, self.dropout, self.training) if self.dropout else x

    def _embed(self, emb, start):
        T = emb.shape[1]
        return emb * math.sqrt(self.dim) + marian_positions(start + T, self.dim,
                                                           emb.device)[start:start + T]

    def encode(self, src, src_mask):
        """src [B,S] ids, src_mask [B,S] bool (True = real token) -> [B,S,D]."""
        x = self._drop(self._embed(self.Wemb[src], 0))
        mask_add = ((~src_mask).float() * -1e9)[:, None, None, :]
        for layer in self.enc:
            x = layer(x, mask_add, self._drop)
        return x

    def decoder_inputs(self, tgt_in):
        """tgt_in [B,T] previous ids with -1 for the start position (all-zero embedding)."""
        e = self.Wemb[tgt_in.clamp(min=0)]
        return e.masked_fill((tgt_in < 0)[..., None], 0.0)

    def decode_all(self, enc, src_mask, tgt_in):
        """Teacher-forced decoder: logits [B,T,V]."""
        T = tgt_in.shape[1]
        x = self._drop(self._embed(self.decoder_inputs(tgt_in), 0))
        causal = torch.triu(torch.full((T, T), -1e9, device=x.device), diagonal=1)
        ctx_mask = ((~src_mask).float() * -1e9)[:, None, None, :]
        for layer in self.dec:
            self_kv = layer.self_att.project_kv(x)
            ctx_kv = layer.context.project_kv(enc)
            x = layer(x, self_kv, causal, ctx_kv, ctx_mask, self._drop)
        return torch.matmul(x, self.Wemb.t()) + self.out_b

    @torch.no_grad()
    def greedy(self, src, src_mask, max_len, eos=0, unk=1):
        """Step-wise greedy search with K/V caches, float32; returns lists of ids (no </s>).
        Like marian-decoder without --allow-unk, <unk> is never chosen."""
        B = src.shape[0]
        enc = self.encode(src, src_mask)
        ctx_mask = ((~src_mask).float() * -1e9)[:, None, None, :]
        ctx_kv = [layer.context.project_kv(enc) for layer in self.dec]
        caches = [None] * len(self.dec)
        prev = torch.full((B, 1), -1, dtype=torch.long)
        out = [[] for _ in range(B)]
        done = torch.zeros(B, dtype=torch.bool)
        no_mask = torch.zeros(1)
        for t in range(int(max_len.max()) if torch.is_tensor(max_len) else max_len):
            x = self._embed(self.decoder_inputs(prev), t)
            for i, layer in enumerate(self.dec):
                k, v = layer.self_att.project_kv(x)
                if caches[i] is not None:
                    k, v = torch.cat([caches[i][0], k], 2), torch.cat([caches[i][1], v], 2)
                caches[i] = (k, v)
                x = layer(x, (k, v), no_mask, ctx_kv[i], ctx_mask, lambda y: y)
            logits = torch.matmul(x[:, -1], self.Wemb.t()) + self.out_b
            logits[:, unk] = float("-inf")
            nxt = logits.argmax(-1)
            for b in range(B):
                if not done[b] and int(nxt[b]) != eos:
                    out[b].append(int(nxt[b]))
            done |= nxt == eos
            if torch.is_tensor(max_len):
                done |= t + 1 >= max_len       # at most max_len tokens, as Marian and s2s
            if bool(done.all()):
                break
            prev = nxt[:, None]
        return out
