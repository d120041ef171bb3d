"""Max pooling whose windows tile the input (stride = kernel_size, no padding or dilation:
ops.nn._pooling_linear's ``Tiles`` path): values, indices, gradients and second order equal
PyTorch's exactly, with ties (ReLU zeros: the first tap wins), NaN and inf, cropped edges,
ceil_mode, 1-d / 2-d (batched and not) / 3-d."""
import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops.nn.pooling import _pool_geometry

CASES = [((2, 3, 8, 8), 2, {}, 2), ((2, 3, 9, 7), 2, {}, 2), ((3, 8, 6), (2, 3), {}, 2),
         ((2, 3, 8, 8), 2, dict(ceil_mode=True), 2), ((2, 3, 9, 9), 2, dict(ceil_mode=True), 2),
         ((2, 2, 4, 6, 6), 2, {}, 3), ((2, 3, 10), 3, {}, 1), ((2, 3, 8, 8), 2, dict(stride=2), 2),
         ((64, 32, 4, 4), 2, {}, 2)]


def _run(lib, x, k, kw, nd):
    f = getattr(lib.nn.functional, "max_pool%dd" % nd)
    xt = lib.tensor(x, requires_grad=True)
    y, ind = f(xt, k, return_indices=True, **kw)
    g = np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(np.float32)
    gx, = lib.autograd.grad(y, xt, lib.tensor(g), create_graph=True)
    go = lib.tensor(np.ones(tuple(y.shape), np.float32), requires_grad=True)
    gx2, = lib.autograd.grad(y, xt, go, create_graph=True)
    v = np.random.default_rng(2).standard_normal(x.shape).astype(np.float32)
    h, = lib.autograd.grad((gx2 * lib.tensor(v)).sum(), go)
    return ([a.detach().numpy() for a in (y, ind, gx, h)],
            [type(t.grad_fn).__name__ for t in (y, gx)])


@pytest.mark.parametrize("kind", ["random", "ties", "nonfinite"])
@pytest.mark.parametrize("xs, k, kw, nd", CASES)
def test_tiled_max_pool_matches_torch_exactly(xs, k, kw, nd, kind):
    if nd == 2 and not (kw.get("ceil_mode") and xs[-1] % 2):   # (a partial window: not tiled)
        assert _pool_geometry("max_pool2d", np.empty(xs), k, None, 0, 1,
                              kw.get("ceil_mode", False)).tiled is not None
    x = np.random.default_rng(0).standard_normal(xs).astype(np.float32)
    if kind == "ties":
        x = np.maximum(np.round(x), 0)
    if kind == "nonfinite":
        x.flat[::7] = np.nan
        x.flat[3::11] = np.inf
    got, names = _run(leafgrad, x, k, kw, nd)
    exp, tnames = _run(torch, x, k, kw, nd)
    assert names == tnames
    for a, e in zip(got, exp):
        assert a.shape == e.shape and a.dtype == e.dtype
        assert np.array_equal(a, e, equal_nan=True)
