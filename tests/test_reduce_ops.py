"""Errors and special cases of the issue-13 reductions (ops/stats.py, ops/cumulative.py)
against real PyTorch: the same exception class for the same bad call."""
import pytest
import torch

import leafgrad


def _raise_same(f):
    with pytest.raises(Exception) as te:
        f(torch)
    with pytest.raises(type(te.value)) as le:
        f(leafgrad)
    assert "Fix:" in str(le.value)


@pytest.mark.parametrize("call", [
    lambda T: T.kthvalue(T.tensor([1.0, 2.0]), 3),
    lambda T: T.kthvalue(T.tensor([1.0, 2.0]), 0),
    lambda T: T.nanmean(T.tensor([1, 2])),
    lambda T: T.logcumsumexp(T.tensor([1, 2]), 0),
    lambda T: T.aminmax(T.tensor([])),
    lambda T: T.trapezoid(T.ones(3), T.ones(2)),
    lambda T: T.trapezoid(T.tensor([True, False])),
], ids=["kth_big", "kth_zero", "nanmean_int", "lcse_int", "aminmax_empty", "trap_x_len",
        "trap_bool"])
def test_errors_match_torch(call):
    _raise_same(call)


def test_integer_dtypes_match_torch():
    for f in (lambda T: T.nansum(T.tensor([1, 2])), lambda T: T.cummax(T.tensor([1, 3, 2]), 0)[0],
              lambda T: T.kthvalue(T.tensor([3, 1, 2]), 2)[0], lambda T: T.mode(T.tensor([3, 3, 2]))[0],
              lambda T: T.nanmedian(T.tensor([3, 1, 2])), lambda T: T.aminmax(T.tensor([3, 1]))[1],
              lambda T: T.trapezoid(T.tensor([1, 2, 4]))):
        t, lg = f(torch), f(leafgrad)
        assert str(t.dtype) == str(lg.dtype)
        assert t.tolist() == lg.tolist()


def test_grad_fn_names_match_torch():
    for f in (lambda T, x: T.cummax(x, 0)[0], lambda T, x: T.logcumsumexp(x, 0),
              lambda T, x: T.kthvalue(x, 1)[0], lambda T, x: T.nanmedian(x),
              lambda T, x: T.nanmedian(x, 0)[0], lambda T, x: T.mode(x)[0],
              lambda T, x: T.msort(x)):
        names = [type(f(T, T.tensor([1.0, 3.0, 2.0], requires_grad=True)).grad_fn).__name__
                 for T in (torch, leafgrad)]
        assert names[0] == names[1]
