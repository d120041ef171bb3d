"""Same-size convolutions (stride 1, output as large as the input) take ops.nn._conv_flat's
shifted-view path: values, gradients of input/weight/bias and second order vs PyTorch,
for the geometries that path covers (groups, dilation, even kernels with 'same', 1-d, 3-d,
an empty batch), and the masked select kernel it shares with ReLU's backward."""
import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops import _select
from leafgrad.ops.nn.conv import _conv_geometry

CASES = [
    ((2, 3, 5, 6), (4, 3, 3, 3), dict(padding=1)),
    ((2, 4, 5, 6), (6, 2, 3, 3), dict(padding=1, groups=2)),
    ((2, 4, 7, 6), (4, 1, 3, 3), dict(padding=2, dilation=2, groups=4)),
    ((2, 3, 5, 6), (4, 3, 2, 2), dict(padding="same")),
    ((2, 3, 5, 6), (4, 3, 1, 1), dict()),
    ((2, 3, 5, 6), (4, 3, 3, 1), dict(padding=(1, 0))),
    ((1, 3, 9), (4, 3, 5), dict(padding=2)),
    ((3, 2, 9), (4, 2, 4), dict(padding="same", dilation=3)),
    ((1, 2, 3, 4, 5), (3, 2, 3, 3, 3), dict(padding=1)),
    ((2, 3, 1, 1), (4, 3, 3, 3), dict(padding=1)),
    ((64, 16, 4, 4), (32, 16, 3, 3), dict(padding=1)),
]


def _run(lib, x, w, b, g, kw):
    f = getattr(lib.nn.functional, "conv%dd" % (w.ndim - 2))
    xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
    y = f(xt, wt, bt, **kw)
    gx, gw, gb = lib.autograd.grad(y, (xt, wt, bt), lib.tensor(g), create_graph=True)
    hx, hw = lib.autograd.grad((gx * gx).sum() + (gw ** 2).sum(), (xt, wt))
    return [a.detach().numpy() for a in (y, gx, gw, gb, hx, hw)], type(y.grad_fn).__name__


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("xs, ws, kw", CASES)
def test_same_size_conv_matches_torch(xs, ws, kw, dtype):
    assert _conv_geometry("conv", xs, ws, 1, kw.get("padding", 0), kw.get("dilation", 1),
                          kw.get("groups", 1)).flat is not None
    r = np.random.default_rng(0)
    x, w, b = (r.standard_normal(s).astype(dtype) for s in (xs, ws, ws[:1]))
    g = r.standard_normal(xs[:1] + ws[:1] + xs[2:]).astype(dtype)
    got, name = _run(leafgrad, x, w, b, g, kw)
    exp, tname = _run(torch, x, w, b, g, kw)
    assert name == tname
    tol = 1e-10 if dtype == np.float64 else 1e-4
    for a, e in zip(got, exp):
        assert a.shape == e.shape and a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol * np.abs(e).max())


def test_empty_batch_same_size_conv():
    w = torch.randn(4, 3, 3, 3)
    y = leafgrad.nn.functional.conv2d(leafgrad.zeros(0, 3, 5, 6), leafgrad.tensor(w.numpy()),
                                      padding=1)
    assert tuple(y.shape) == tuple(torch.nn.functional.conv2d(torch.zeros(0, 3, 5, 6), w,
                                                               padding=1).shape)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("gs, ms", [((5, 6), (5, 6)), ((5, 6), (6,)), ((6,), (5, 6)),
                                    ((), (3,)), ((3,), ()), ((), ())])
def test_where0_is_np_where_bit_for_bit(gs, ms, dtype):
    r = np.random.default_rng(1)
    g = np.asarray(r.standard_normal(gs)).astype(dtype)
    if g.size >= 3:
        g.flat[:3] = [np.nan, -0.0, np.inf]
    m = np.asarray(r.random(ms) > 0.5)
    for gg, mm in ((g, m), (g.T, m.T)):
        try:
            exp = np.where(mm, gg, dtype(0))
        except ValueError:
            continue
        got = _select.where0(mm, gg)
        assert got.dtype == exp.dtype and got.shape == exp.shape
        assert got.tobytes() == exp.tobytes()
