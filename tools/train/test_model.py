"""Self-tests of the training model's initialisation and of the corpus weighting (needs Debian's
python3-torch).

    cd tools/train && /usr/bin/python3 -m unittest -q test_model
"""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch

from export_marian import marian_config
from model import Affine, MarianTransformer
from train import encode_corpus, save, token_cross_entropy

HERE = os.path.dirname(os.path.abspath(__file__))


def projections(layer):
    return [m.W.detach().clone() for m in layer.modules() if isinstance(m, Affine)]


class DepthScalingTest(unittest.TestCase):
    def build(self, depth_scaling):
        torch.manual_seed(7)   # the same draws, so the two models differ only by the scaling
        return MarianTransformer(64, dim=16, heads=2, dim_ffn=32, enc_depth=4, dec_depth=2,
                                 depth_scaling=depth_scaling)

    def test_layer_l_starts_at_one_over_sqrt_l_of_glorot(self):
        plain, scaled = self.build(False), self.build(True)
        for stack in ("enc", "dec"):
            for l, (a, b) in enumerate(zip(getattr(plain, stack), getattr(scaled, stack)), 1):
                for wa, wb in zip(projections(a), projections(b)):
                    torch.testing.assert_close(wb, wa * l ** -0.5, rtol=0, atol=1e-7)
        torch.testing.assert_close(scaled.Wemb, plain.Wemb, rtol=0, atol=0)

    def test_export_records_the_option_and_nothing_else_changes(self):
        plain, scaled = self.build(False).config(), self.build(True).config()
        self.assertTrue(marian_config(scaled)["transformer-depth-scaling"])
        self.assertFalse(marian_config(plain)["transformer-depth-scaling"])
        cfg_a, cfg_b = marian_config(plain), marian_config(scaled)
        del cfg_a["transformer-depth-scaling"], cfg_b["transformer-depth-scaling"]
        self.assertEqual(cfg_a, cfg_b)


class WeightTest(unittest.TestCase):
    """--desc-weight / --weight SOURCE=N: the pairs of a source shown N times an epoch."""

    def corpus(self, sources):
        work = tempfile.mkdtemp()
        with open(os.path.join(work, "train.source"), "w") as f:
            f.write("".join(s + "\n" for s in sources))
        data = {}
        for split, n in (("train", len(sources)), ("dev", 1)):
            for lang in ("en", "de"):   # pair i is the one-token sentence [i] on both sides
                data[f"{split}.{lang}.len"] = np.ones(n, np.int32)
                data[f"{split}.{lang}.ids"] = np.arange(n, dtype=np.int32)
        np.savez(os.path.join(work, "ids.npz"), **data)
        return work

    def ids(self, work, weights):
        train, _ = encode_corpus(work, None, weights)
        return [int(src[0]) for src, _ in train]

    def test_copies_in_corpus_order(self):
        work = self.corpus(["descriptions", "ding", "games", "descriptions", "games"])
        self.assertEqual(self.ids(work, {"descriptions": 1}), [0, 1, 2, 3, 4])
        # Descriptions alone: the corpus, then the descriptions twice (what earlier runs read).
        self.assertEqual(self.ids(work, {"descriptions": 3}), [0, 1, 2, 3, 4, 0, 3, 0, 3])
        # Copy k holds the pairs of weight >= k.
        self.assertEqual(self.ids(work, {"descriptions": 2, "games": 3}),
                         [0, 1, 2, 3, 4, 0, 2, 3, 4, 2, 4])

    def test_an_unknown_source_is_refused(self):
        work = self.corpus(["descriptions", "ding"])
        with self.assertRaises(AssertionError):
            self.ids(work, {"descriptions": 1, "gamez": 2})


class LossTest(unittest.TestCase):
    def test_flattened_loss_is_the_loss_over_the_vocabulary_axis(self):
        torch.manual_seed(5)
        logits = torch.randn(3, 4, 11)
        tgt = torch.randint(0, 11, (3, 4))
        tgt[1, 2:] = -100   # padding
        for kwargs in ({"label_smoothing": 0.1}, {"reduction": "sum"}):
            expected = torch.nn.functional.cross_entropy(logits.transpose(1, 2), tgt, **kwargs)
            torch.testing.assert_close(token_cross_entropy(logits, tgt, **kwargs), expected)


class ResumePointTest(unittest.TestCase):
    """export_marian.py --resume-point, then import_marian.py on another machine: the run goes on
    from the same weights (to float16's precision), step, epoch and batch."""

    def run_tool(self, *args):
        subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]], check=True,
                       stdout=subprocess.DEVNULL)

    def test_weights_and_place_come_back(self):
        torch.manual_seed(3)
        model = MarianTransformer(64, dim=16, heads=2, dim_ffn=32, enc_depth=2, dec_depth=1)
        work, point, again = tempfile.mkdtemp(), tempfile.mkdtemp(), tempfile.mkdtemp()
        with open(os.path.join(work, "spm.model"), "wb") as f:
            f.write(b"the run's vocabulary")
        save(work, 1234, model, torch.optim.Adam(model.parameters()), 2, 345, 0)
        self.run_tool("export_marian.py", "--work", work, "--out", point, "--resume-point")
        self.run_tool("import_marian.py", "--model", point, "--work", again)
        state = torch.load(os.path.join(again, "ckpt", "step-1234.pt"))
        self.assertEqual((state["step"], state["epoch"], state["pos"]), (1234, 2, 345))
        for name, value in model.state_dict().items():
            torch.testing.assert_close(state["model"][name], value, rtol=1e-3, atol=1e-4)
        with open(os.path.join(again, "spm.model"), "rb") as f:
            self.assertEqual(f.read(), b"the run's vocabulary")


if __name__ == "__main__":
    unittest.main()
