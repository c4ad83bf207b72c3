#!/usr/bin/python3
"""CTranslate2's own Marian converter, made exact for bench/peers.sh's Tables A and B.

    PYTHONPATH=CT2_PY LD_LIBRARY_PATH=CT2_PREFIX/lib /usr/bin/python3 bench/ct2_convert_marian.py \
        MODEL.npz VOCAB.yml OUTDIR

CT2_PY is the CTranslate2 Python module installed with `pip install --target` (bench/README.md,
"CTranslate2 for the comparison"). The stock converter (converters/marian.py) differs from
Marian in two places (docs/models.md, "Where the formats compute differently"): its sinusoids
divide the exponent by d/2 where Marian divides by d/2 - 1, and it leaves the layer-norm epsilon
at CTranslate2's 1e-5 where Marian's is 1e-6. Both are replaced here, everything else is the
stock converter's; the weights are written in float32 (CTranslate2 quantizes at load).
"""

import sys

import numpy as np
from ctranslate2.converters import marian


def marian_sinusoids(dim, num_positions=2048):
    """Marian's position table (src/graph/node_initializers.cpp, sinusoidalPositionEmbeddings):
    sin of the first half, cos of the second, timescales 10000^(j / (dim/2 - 1)), in float32."""
    half = dim // 2
    increment = np.float32(np.log(10000.0) / (half - 1))
    scales = np.exp(np.arange(half, dtype=np.float32) * -increment)
    angles = np.arange(num_positions, dtype=np.float32)[:, None] * scales[None, :]
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(np.float32)


class ExactMarianConverter(marian.MarianConverter):
    def _load(self):
        spec = super()._load()
        spec.config.layer_norm_epsilon = 1e-6
        return spec


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    model, vocab, out = sys.argv[1:]
    marian._make_sinusoidal_position_encodings = marian_sinusoids
    ExactMarianConverter(model, [vocab]).convert(out, quantization="float32", force=True)
    print("converted %s into %s" % (model, out))


if __name__ == "__main__":
    main()
