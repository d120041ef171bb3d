"""F.interpolate(antialias=True) (bilinear, bicubic; down- and upsampling, scale_factor,
align_corners) against real torch 2.13: values, gradients, grad_fn names, errors."""
import numpy as np
import pytest
import torch

import leafgrad

X = np.random.RandomState(0).randn(2, 3, 11, 9)
KWARGS = [dict(size=(4, 3)), dict(size=(20, 5)), dict(scale_factor=0.37),
          dict(size=(7, 9), align_corners=True), dict(scale_factor=(0.5, 2.0)),
          dict(scale_factor=0.3, recompute_scale_factor=True), dict(size=(1, 1))]


def _run(T, mode, kw, dt):
    x = T.tensor(X, dtype=dt, requires_grad=True)
    y = T.nn.functional.interpolate(x, mode=mode, antialias=True, **kw)
    (y * T.arange(y.numel(), dtype=dt).reshape(y.shape).cos()).sum().backward()
    return y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("k", range(len(KWARGS)))
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_antialias_matches_torch(mode, k, dt):
    got = _run(leafgrad, mode, KWARGS[k], getattr(leafgrad, dt))
    want = _run(torch, mode, KWARGS[k], getattr(torch, dt))
    tol = dict(rtol=1e-5, atol=1e-6) if dt == "float32" else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got[0], want[0], **tol)
    np.testing.assert_allclose(got[1], want[1], **tol)
    assert got[2] == want[2]


def test_antialias_refused_outside_bilinear_bicubic_4d():
    for T in (leafgrad, torch):
        with pytest.raises(ValueError, match="Anti-alias option is restricted"):
            T.nn.functional.interpolate(T.ones(1, 1, 4), size=2, mode="linear", antialias=True)
