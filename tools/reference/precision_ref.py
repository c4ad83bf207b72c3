#!/usr/bin/python3
"""Numpy emulation of s2s's reduced-precision linear layers (`--precision bfloat16|int8`).

Written from the documented schemes (README "Precision", lib/s2s/ops/precision.h), not from the
C++ loops. A linear layer is y = x . W + b with W seen as [in, out]:

  bfloat16  W and x rounded to bfloat16 (to nearest, ties to even), products summed in float32,
            b added in float32.
  int8      W quantized per output column: s_w[n] = max_k |W[k, n]| / 127,
            Wq = round(clamp(W / s_w, -127, 127)); x per row: s_x[m] = max_k |x[m, k]| / 127
            (1 for an all-zero row), xq = round(x * (1 / s_x)); round = to nearest, ties to even;
            y = s_x[m] * s_w[n] * sum_k xq[m, k] Wq[k, n] + b[n], the sum exact (int32 in s2s).
  int8_7bit the same with the weights at 63 levels (s_w = max / 63, clamp to [-63, 63]): s2s's
            int8 on CPUs without VNNI (ops::int8_weight_levels).

With either, the step-by-step decoder also stores its attention keys and values in bfloat16
(`round_bf16`); marian_ref.py applies that part.
"""

import numpy as np

F32 = np.float32
PRECISIONS = ("float32", "bfloat16", "int8", "int8_7bit")


def round_bf16(x):
    """float32 -> the nearest bfloat16 value (ties to even), returned as float32.

    bfloat16 keeps float32's exponent range with 8 significant bits, so the spacing of its values
    next to x = m * 2^e (0.5 <= |m| < 1) is 2^(e-8), and never below 2^-133 (its subnormals).
    Dividing by a power of two is exact in float64, and np.rint rounds ties to even. Values that
    round past the largest float32 become infinite; inf and nan pass through."""
    x = np.asarray(x, dtype=F32)
    wide = x.astype(np.float64)
    _, e = np.frexp(wide)
    spacing = np.ldexp(1.0, np.maximum(e, -125) - 8)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = (np.rint(wide / spacing) * spacing).astype(F32)
    return np.where(np.isfinite(x), rounded, x)


def _symmetric_scale(amax, levels=127):
    """max|values| / levels in float32, 1 where all values are 0."""
    return np.where(amax > 0, amax / F32(levels), F32(1)).astype(F32)


def quantize_columns(w, levels=127):
    """w [K, N] float32 -> (q int32 [K, N] in [-levels, levels], scale float32 [N]): one scale
    per output channel (column); q = round(clamp(w / scale, -levels, levels))."""
    w = np.asarray(w, dtype=F32)
    scale = _symmetric_scale(np.abs(w).max(axis=0), levels)
    q = np.rint(np.clip(w / scale, F32(-levels), F32(levels)))
    return q.astype(np.int32), scale


def quantize_rows(x):
    """x [..., K] float32 -> (q int32 [..., K], scale float32 [..., 1]): one scale per row;
    q = round(x * (1 / scale)), which stays within [-127, 127] without a clamp."""
    x = np.asarray(x, dtype=F32)
    scale = _symmetric_scale(np.abs(x).max(axis=-1, keepdims=True))
    q = np.rint(x * (F32(1) / scale))
    assert np.abs(q).max(initial=0) <= 127, "activation quantized outside [-127, 127]"
    return q.astype(np.int32), scale


def linear(precision, x, w, b=None):
    """y = x . w (+ b) as s2s computes it in `precision`; x [..., K], w [K, N], b [N] or None."""
    x = np.asarray(x, dtype=F32)
    if precision == "float32":
        y = np.matmul(x, w).astype(F32)
    elif precision == "bfloat16":
        y = np.matmul(round_bf16(x), round_bf16(w)).astype(F32)   # bf16 products are exact in f32
    elif precision in ("int8", "int8_7bit"):
        xq, x_scale = quantize_rows(x)
        wq, w_scale = quantize_columns(w, 127 if precision == "int8" else 63)
        total = np.matmul(xq.astype(np.int64), wq.astype(np.int64))  # exact
        y = (x_scale * w_scale * total.astype(F32)).astype(F32)
    else:
        raise ValueError("precision %r, expected one of %s" % (precision, ", ".join(PRECISIONS)))
    if b is not None:
        y = y + np.asarray(b, dtype=F32).reshape(-1)
    return y.astype(F32)
