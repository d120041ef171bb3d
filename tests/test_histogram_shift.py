"""histc, histogram, ravel and the bitwise shifts against real PyTorch."""
import numpy as np
import pytest
import torch

import leafgrad
from _outcome import builtin_name

X = np.array([0.3, 1.1, 2.9, 1.7, -0.4, 2.2, 0.9], dtype=np.float32)


@pytest.mark.parametrize("case", [
    lambda T: T.histc(T.tensor(X), bins=5, min=0, max=3),
    lambda T: T.histc(T.tensor(X), bins=4),
    lambda T: T.tensor(X).histc(3, min=-1, max=1),
    lambda T: T.histc(T.ones(4), bins=3),
    lambda T: T.histc(T.tensor([1, 2]), bins=3),
    lambda T: T.histc(T.tensor(X), bins=0),
    lambda T: T.histc(T.tensor(X), bins=3, min=2, max=1),
    lambda T: tuple(T.histogram(T.tensor(X), bins=4, range=(0.0, 3.0))),
    lambda T: tuple(T.histogram(T.tensor(X), bins=3)),
    lambda T: tuple(T.histogram(T.tensor(X), T.tensor([0.0, 1.0, 2.5]),
                                weight=T.tensor(np.arange(7.0, dtype=np.float32)), density=True)),
    lambda T: tuple(T.tensor(X).histogram(2, density=True)),
    lambda T: T.ravel(T.arange(6.0).reshape(2, 3).t()),
    lambda T: T.arange(6).reshape(3, 2).ravel(),
    lambda T: T.bitwise_left_shift(T.tensor([1, 2, 3]), 2),
    lambda T: T.bitwise_right_shift(T.tensor([-8, 9]), T.tensor([1, 2])),
    lambda T: T.tensor([5], dtype=T.int32).bitwise_left_shift(3),
    lambda T: T.bitwise_left_shift(T.tensor([1.0]), 1),
])
def test_like_torch(case):
    def run(T):
        try:
            r = case(T)
        except Exception as e:      # noqa: BLE001 - compared with torch
            return builtin_name(type(e))
        rs = r if isinstance(r, tuple) else (r,)
        return [(str(t.dtype).split(".")[-1], np.round(t.numpy(), 5).tolist()) for t in rs]
    assert run(leafgrad) == run(torch)


def test_ravel_gradient():
    for T in (leafgrad, torch):
        x = T.arange(6.0).reshape(2, 3).requires_grad_()
        (x.t().ravel() * T.arange(6.0)).sum().backward()
        if T is leafgrad:
            a = x.grad.tolist()
        else:
            assert x.grad.tolist() == a
