"""torch.linspace bit for bit as PyTorch's CPU kernel: start, end and step in the output
dtype; start + step * i below steps // 2, end - step * (steps - 1 - i) from there, each
with one rounding (a fused multiply-add). The tutorials print sin(linspace(0, 2 pi, 25)),
whose values near 0 show the last bit."""
import math

import numpy as np
import pytest
import torch

import leafgrad

RNG = np.random.default_rng(0)
CASES = [(0, 2 * math.pi, 25), (-1, 1, 7), (0, 1, 1000), (3.0, -7.5, 101), (2, 2, 5),
         (1e30, -1e30, 9), (0, 1, 2), (0, 1, 40000)] + [
    (float(a), float(b), int(n)) for a, b, n in zip(
        RNG.standard_normal(40) * 10.0 ** RNG.integers(-3, 6, 40),
        RNG.standard_normal(40) * 10.0 ** RNG.integers(-3, 6, 40), RNG.integers(2, 3000, 40))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES)
def test_linspace_bits_match_torch(case, dtype):
    want = torch.linspace(*case, dtype=getattr(torch, dtype)).numpy()
    got = leafgrad.linspace(*case, dtype=getattr(leafgrad, dtype)).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_sin_of_linspace_near_pi_as_the_tutorial_prints():
    t = torch.sin(torch.linspace(0., 2. * math.pi, steps=25))
    l = leafgrad.sin(leafgrad.linspace(0., 2. * math.pi, steps=25))
    assert repr(l) == repr(t)
