"""F.linear with inputs of more than 2 dims (folded into one GEMM): values, gradients
and grad_fn names vs PyTorch, including empty and non-contiguous inputs."""
import numpy as np
import pytest
import torch

import leafgrad as lg

SHAPES = [(16, 32, 64), (2, 3, 4, 5), (0, 3, 5), (3, 0, 5), (2, 3, 0), (1, 1, 5)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("transposed", [False, True])
def test_linear_nd_matches_torch(shape, bias, transposed):
    rng = np.random.default_rng(len(shape) * 7 + bias)
    k, o = shape[-1], 7
    xs = rng.standard_normal(shape).astype(np.float32)
    if transposed:      # a non-contiguous input of the same shape
        xs = np.ascontiguousarray(np.swapaxes(xs, 0, 1)).swapaxes(0, 1)
    ws = rng.standard_normal((o, k)).astype(np.float32)
    bs = rng.standard_normal(o).astype(np.float32)
    outs = []
    for m in (torch, lg):
        x = m.from_numpy(xs).requires_grad_()
        w = m.from_numpy(ws).requires_grad_()
        b = m.from_numpy(bs).requires_grad_() if bias else None
        y = m.nn.functional.linear(x, w, b)
        g = m.from_numpy(np.linspace(-1, 1, y.numel(), dtype=np.float32).reshape(y.shape))
        y.backward(g)
        outs.append((y.grad_fn.name(), y.detach().numpy(), x.grad.numpy(), w.grad.numpy(),
                     None if b is None else b.grad.numpy()))
    (tn, *tv), (ln, *lv) = outs
    assert ln == tn
    for a, b_ in zip(lv, tv):
        if a is None:
            assert b_ is None
            continue
        assert a.shape == b_.shape and a.dtype == b_.dtype
        np.testing.assert_allclose(a, b_, rtol=1e-4, atol=1e-4 * max(1, shape[0] * shape[1]) ** 0.5)


def test_linear_nd_is_the_2d_product():
    # the folded GEMM is the one 2-D product of the flattened rows (the same BLAS call:
    # the same bits on any machine); per-row products agree only up to GEMM rounding,
    # whose last bits depend on the CPU's kernel (blocking, FMA), so within float32's
    rng = np.random.default_rng(3)
    x = lg.from_numpy(rng.standard_normal((4, 8, 64)).astype(np.float32))
    w = lg.from_numpy(rng.standard_normal((192, 64)).astype(np.float32))
    y = lg.nn.functional.linear(x, w)
    folded = (x.numpy().reshape(32, 64) @ w.numpy().T).reshape(4, 8, 192)
    assert np.array_equal(y.numpy(), folded)
    rows = np.stack([x.numpy()[i] @ w.numpy().T for i in range(4)])
    np.testing.assert_allclose(y.numpy(), rows, rtol=1e-5, atol=1e-5 * np.abs(rows).max())
