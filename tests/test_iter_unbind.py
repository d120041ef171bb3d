"""Iterating a tensor is PyTorch's iter(t.unbind(0)): one UnbindBackward0 node for all
the slices, gradients of unused slices zero, in-place on a slice of a graph raises
(multi-output views), without a graph it writes through to the base."""
import numpy as np
import pytest
import torch

import leafgrad as lg


def _run(m):
    x = m.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4)).requires_grad_()
    q, k, v = x * 2
    same = q.grad_fn is k.grad_fn is v.grad_fn
    (q * 3 + v).sum().backward()
    return q.grad_fn.name(), same, x.grad.numpy().copy(), [tuple(t.shape) for t in x[0]]


def test_iter_records_one_unbind_node_like_torch():
    t, l = _run(torch), _run(lg)
    assert l[0] == t[0] == "UnbindBackward0"
    assert l[1] and t[1]
    assert np.array_equal(l[2], t[2])
    assert l[3] == t[3]


@pytest.mark.parametrize("m", [torch, lg])
def test_iter_inplace_on_a_slice(m):
    x = m.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Unbind"):
        for r in x * 1:
            r.add_(1)
    with m.no_grad():
        z = m.zeros(2, 3)
        for r in z:
            r.add_(1)
    assert z.numpy().tolist() == [[1.0] * 3] * 2
    with pytest.raises(TypeError):
        iter(m.tensor(1.0))
