"""``out=`` of the issue-13 ops that PyTorch accepts it for: the values written into
``out`` (resized from empty), the same tensor returned, and the refusal when an input
requires grad, against real PyTorch."""
import numpy as np
import pytest
import torch

import leafgrad

_X = np.random.default_rng(0).standard_normal((3, 4))

# name -> (call(T, x, out), pair)
CASES = {
    "nansum": (lambda T, x, o: T.nansum(x, 1, out=o), False),
    "nanmean": (lambda T, x, o: T.nanmean(x, 1, out=o), False),
    "msort": (lambda T, x, o: T.msort(x, out=o), False),
    "logcumsumexp": (lambda T, x, o: T.logcumsumexp(x, 1, out=o), False),
    "quantile": (lambda T, x, o: T.quantile(x, 0.3, 1, out=o), False),
    "nanquantile": (lambda T, x, o: T.nanquantile(x, 0.3, out=o), False),
    "addmv": (lambda T, x, o: T.addmv(x[:, 0], x, x[0], alpha=2, out=o), False),
    "addr": (lambda T, x, o: T.addr(x, x[:, 0], x[0], out=o), False),
    "baddbmm": (lambda T, x, o: T.baddbmm(x[None], x[None], x.T[None] @ x[None], out=o), False),
    "addbmm": (lambda T, x, o: T.addbmm(x, x[None], x.T[None] @ x[None], out=o), False),
    "take": (lambda T, x, o: T.take(x, T.tensor([1, -1]), out=o), False),
    "index_copy": (lambda T, x, o: T.index_copy(x, 0, T.tensor([2]), x[:1] * 2, out=o), False),
    "scatter_reduce": (lambda T, x, o: T.scatter_reduce(x, 1, T.tensor([[0, 0]]), x, "amax",
                                                        out=o), False),
    "column_stack": (lambda T, x, o: T.column_stack([x, x], out=o), False),
    "row_stack": (lambda T, x, o: T.row_stack([x, x], out=o), False),
    "dstack": (lambda T, x, o: T.dstack([x, x], out=o), False),
    "renorm": (lambda T, x, o: T.renorm(x, 2, 0, 1.0, out=o), False),
    "nanmedian": (lambda T, x, o: T.nanmedian(x, 1, out=o), True),
    "kthvalue": (lambda T, x, o: T.kthvalue(x, 2, 1, out=o), True),
    "mode": (lambda T, x, o: T.mode(x, 0, out=o), True),
    "cummax": (lambda T, x, o: T.cummax(x, 1, out=o), True),
    "cummin": (lambda T, x, o: T.cummin(x, 0, out=o), True),
    "aminmax": (lambda T, x, o: T.aminmax(x, dim=1, out=o), True),
}


def _outs(T, pair, name):
    if not pair:
        return T.empty(0, dtype=T.float64)
    second = T.empty(0, dtype=T.float64 if name == "aminmax" else T.int64)
    return (T.empty(0, dtype=T.float64), second)


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_matches_torch(name):
    call, pair = CASES[name]
    res = []
    for T in (torch, leafgrad):
        o = _outs(T, pair, name)
        r = call(T, T.tensor(_X), o)
        if pair:
            assert r[0] is o[0] and r[1] is o[1]
            res.append([o[0].numpy(), o[1].numpy()])
        else:
            assert r is o
            res.append([o.numpy()])
    for a, b in zip(res[1], res[0]):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-12)


# composite in PyTorch: out= is written by a recorded copy (CopyBackwards)
_RECORDED = ("quantile", "nanquantile")


@pytest.mark.parametrize("name", sorted(set(CASES) - set(_RECORDED)))
def test_out_refused_when_an_input_requires_grad(name):
    call, pair = CASES[name]
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError):
            call(T, T.tensor(_X, requires_grad=True), _outs(T, pair, name))


@pytest.mark.parametrize("name", _RECORDED)
def test_out_of_composites_is_recorded(name):
    call, _ = CASES[name]
    grads = []
    for T in (torch, leafgrad):
        x = T.tensor(_X, requires_grad=True)
        o = T.empty(0, dtype=T.float64)
        r = call(T, x, o)
        assert r is o and o.requires_grad and type(o.grad_fn).__name__ == "CopyBackwards"
        (g,) = T.autograd.grad((o * o).sum(), x)
        grads.append(g.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_search_out():
    for T in (torch, leafgrad):
        o = T.empty(0, dtype=T.int64)
        assert T.searchsorted(T.tensor([1.0, 2.0]), T.tensor([1.5, 3.0]), out=o) is o
        assert o.tolist() == [1, 2]
        o = T.empty(0, dtype=T.int64)
        assert T.bucketize(T.tensor([1.5]), T.tensor([1.0, 2.0]), out=o) is o
        assert o.tolist() == [1]
        b = T.empty(0, dtype=T.bool)
        assert T.isin(T.tensor([1, 2]), T.tensor([2]), out=b) is b
        assert b.tolist() == [False, True]
