"""The short-last-dim paths of softmax / log_softmax (the halving-tree row max) and
layer_norm's kept xhat: values as ndarray.max / PyTorch, NaN and +-inf rows, odd
lengths, and the kept array freed with the saved tensors."""
import numpy as np
import pytest
import torch

import leafgrad as lg
from leafgrad.ops.nn._rowmax import last_max


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8, 31, 32, 33, 48, 127, 128])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_last_max_is_ndarray_max(n, dt):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3, 50, n)).astype(dt)
    x[0, 1, rng.integers(n)] = np.nan
    x[0, 2, :] = -np.inf
    x[1, 3, rng.integers(n)] = np.inf
    got, want = last_max(x), x.max(axis=-1, keepdims=True)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got, want, equal_nan=True)
    assert got is not x


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(16, 4, 32, 32), (64, 48), (40, 7), (9, 1)])
def test_softmax_short_rows_vs_torch(fn, shape):
    rng = np.random.default_rng(1)
    xs = (rng.standard_normal(shape) * 4).astype(np.float32)
    xs[0, :] = -np.inf if fn == "softmax" else xs[0, :]
    xs[1, 0] = np.nan
    outs = []
    for m in (torch, lg):
        x = m.from_numpy(xs.copy()).requires_grad_()
        y = getattr(m.nn.functional, fn)(x, dim=-1)
        y.backward(m.from_numpy(np.cos(np.arange(y.numel(), dtype=np.float32)).reshape(shape)))
        outs.append((y.grad_fn.name(), y.detach().numpy(), x.grad.numpy()))
    assert outs[0][0] == outs[1][0]
    for a, b in zip(outs[0][1:], outs[1][1:]):
        np.testing.assert_allclose(b, a, rtol=2e-6, atol=2e-6)


def test_layer_norm_kept_xhat_freed_and_grads_vs_torch():
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((4, 8, 16)).astype(np.float32) * 3 + 1
    ws, bs = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    grads = []
    for m in (torch, lg):
        x, w, b = (m.from_numpy(a.copy()).requires_grad_() for a in (xs, ws, bs))
        y = m.nn.functional.layer_norm(x, (16,), w, b)
        y.backward(m.from_numpy(np.sin(np.arange(y.numel(), dtype=np.float32)).reshape(y.shape)))
        grads.append([t.grad.numpy() for t in (x, w, b)])
        if m is lg:
            assert y.grad_fn.args[4] is None         # released with the saved tensors
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    # retain_graph keeps it for the second backward, which gives the same gradient
    x, w = lg.from_numpy(xs.copy()), lg.from_numpy(ws.copy()).requires_grad_()
    y = lg.nn.functional.layer_norm(x, (16,), w)
    y.sum().backward(retain_graph=True)
    first = w.grad.numpy().copy()
    assert y.grad_fn.args[4] is not None
    w.grad = None
    y.sum().backward()
    assert np.array_equal(w.grad.numpy(), first)
