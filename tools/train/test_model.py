"""Self-tests of the training model's initialisation (needs Debian's python3-torch).

    cd tools/train && /usr/bin/python3 -m unittest -q test_model
"""
import unittest

import torch

from export_marian import marian_config
from model import Affine, MarianTransformer


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


if __name__ == "__main__":
    unittest.main()
