"""What tests/fuzz/test_fuzz_reductions.py found different from PyTorch, one plain test
each (compared with real torch)."""
import warnings

import pytest
import torch

import leafgrad
from _outcome import builtin_name


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:   # noqa: BLE001 - the class is compared
        return builtin_name(type(e))
    rs = r if isinstance(r, tuple) else (r,)
    return [(str(t.dtype).split(".")[-1], tuple(t.shape), t.detach().numpy().tolist())
            for t in rs]


CALLS = [
    lambda T: T.tensor([[1, 0], [2, 3]], dtype=T.uint8).all(),
    lambda T: T.tensor([[1, 0], [2, 3]], dtype=T.uint8).any(1, keepdim=True),
    lambda T: T.tensor([[1.0, 0.0], [2.0, 3.0]]).all(dim=()),
    lambda T: T.any(T.tensor([[1, 0], [2, 3]]), dim=[]),
    lambda T: T.prod(T.tensor([[1, 0], [2, 3]], dtype=T.uint8), 1, dtype=T.float32),
    lambda T: T.tensor([1.5, 2.0]).prod(dtype=T.float64),
    lambda T: T.tensor(True).prod(0, dtype=T.float32),
    lambda T: T.ones(3, requires_grad=True).sum(dtype=T.int64),
    lambda T: T.ones(3, requires_grad=True).prod(dtype=T.int64),
    lambda T: T.ones(3, requires_grad=True).cumsum(0, dtype=T.int32),
    lambda T: T.ones(3, requires_grad=True).cumprod(0, dtype=T.int64),
    lambda T: T.aminmax(T.zeros(0, dtype=T.int32), dim=0),
    lambda T: T.aminmax(T.zeros(1, 0, 2), dim=0),
    lambda T: T.aminmax(T.zeros(0, 2)),
    lambda T: T.kthvalue(T.zeros(0, 2, dtype=T.uint8), 2, 0),
    lambda T: T.kthvalue(T.tensor([False, True]), 1),
    lambda T: T.kthvalue(T.tensor([[False, True]]), 3, -1),
    lambda T: T.kthvalue(T.tensor(True), 1, -1),
    lambda T: T.kthvalue(T.tensor(True), 1, -2),
    lambda T: T.median(T.tensor([False])),
    lambda T: T.median(T.tensor([False, True]), 0),
    lambda T: T.median(T.tensor(True), 0),
    lambda T: T.topk(T.tensor([False]), 0),
    lambda T: T.topk(T.tensor(False), 2, dim=-2),
    lambda T: T.zeros(0).norm(p=float("inf"), dim=0),
    lambda T: T.zeros(0).norm(p=float("-inf")),
    lambda T: T.zeros(2, 0).norm(p=float("inf"), dim=0),
    lambda T: T.linalg.vector_norm(T.zeros(0), ord=float("inf")),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_reduction_as_torch(i):
    assert _outcome(lambda: CALLS[i](leafgrad)) == _outcome(lambda: CALLS[i](torch))


def test_prod_in_another_dtype_has_the_gradient():
    out = []
    for T in (torch, leafgrad):
        y = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = y.prod(0, dtype=T.float64)
        z.backward()
        out.append((str(z.dtype).split(".")[-1], z.item(), y.grad.tolist(),
                    type(z.grad_fn).__name__))
    assert out[1] == out[0]


def test_integer_dtype_without_grad_mode_is_fine():
    for T in (torch, leafgrad):
        x = T.ones(3, requires_grad=True)
        with T.no_grad():
            assert x.sum(dtype=T.int64).item() == 3
