"""Errors and special cases of the issue-13 reductions (ops/reduce/stats.py, ops/reduce/cumulative.py)
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


@pytest.mark.parametrize("n,N,inc", [(3, None, False), (4, 2, True), (2, 5, False), (3, 3, True)])
def test_vander_gradient_is_that_of_the_powers(n, N, inc):
    # torch 2.13's own vander backward raises (in-place cumprod); the same matrix as
    # explicit powers x**k gives the gradient to compare with, to second order
    import numpy as np
    x = np.array([0.5, -1.25, 2.0, 0.75][:n])   # no 0: pow(0, 0)'s derivatives are nan
    w = np.random.default_rng(0).uniform(0.5, 1.5, (n, N if N is not None else n))
    k = w.shape[1]
    tx = torch.tensor(x, requires_grad=True)
    pw = torch.arange(k) if inc else torch.arange(k - 1, -1, -1)
    tg, = torch.autograd.grad((tx[:, None] ** pw * torch.tensor(w)).sum(), tx, create_graph=True)
    tgg, = torch.autograd.grad((tg ** 2).sum(), tx)
    lx = leafgrad.tensor(x, requires_grad=True)
    lv = leafgrad.vander(lx, N=N, increasing=inc)
    np.testing.assert_allclose(lv.detach().numpy(), torch.vander(tx.detach(), N=N,
                                                                 increasing=inc).numpy())
    lg, = leafgrad.autograd.grad((lv * leafgrad.tensor(w)).sum(), lx, create_graph=True)
    lgg, = leafgrad.autograd.grad((lg ** 2).sum(), lx)
    np.testing.assert_allclose(lg.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(lgg.numpy(), tgg.numpy(), rtol=1e-12, atol=1e-12)


def test_vander_of_one_column_is_constant_as_torch():
    for T in (torch, leafgrad):
        x = T.tensor([0.5, -1.0], requires_grad=True)
        assert not T.vander(x, N=1).requires_grad and not T.vander(x, N=0).requires_grad


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_ties_and_zeros_vs_torch(reduce, include_self):
    # ties (amax/amin: the gradient split evenly, a documented rule) and single zeros
    # (prod's exact rule), to second order
    import numpy as np
    x = np.array([[1.0, 0.0, 2.0, 2.0], [3.0, 1.0, -1.0, 0.5]])
    s = np.array([[2.0, 0.0, 2.0, 1.5, -1.0], [3.0, 3.0, 0.5, 0.0, 1.0]])
    idx = np.array([[0, 1, 0, 3, 3], [0, 0, 2, 1, 2]])
    res = []
    for T in (torch, leafgrad):
        tx, ts = T.tensor(x, requires_grad=True), T.tensor(s, requires_grad=True)
        o = tx.scatter_reduce(1, T.tensor(idx), ts, reduce, include_self=include_self)
        g = T.autograd.grad((o ** 2).sum(), [tx, ts], create_graph=True)
        gg = T.autograd.grad((g[0] ** 2).sum() + (g[1] ** 3).sum(), [tx, ts], allow_unused=True)
        res.append([o.detach().numpy()] + [v.detach().numpy() for v in g]
                   + [np.zeros_like(x if i == 0 else s) if v is None else v.numpy()
                      for i, v in enumerate(gg)])
    for a, b in zip(res[1], res[0]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row,col,offset", [(3, 4, 0), (3, 3, -1), (4, 2, 1), (0, 3, 0),
                                            (3, 0, 0), (1, 1, 5), (3, 5, -4), (5, 2, -2)])
def test_tri_indices_match_torch(name, row, col, offset):
    for dt in (None, "int32"):
        kw = {} if dt is None else {"dtype": getattr(torch, dt)}
        t = getattr(torch, name)(row, col, offset, **kw)
        lkw = {} if dt is None else {"dtype": getattr(leafgrad, dt)}
        lg = getattr(leafgrad, name)(row, col, offset, **lkw)
        assert str(t.dtype) == str(lg.dtype) and tuple(t.shape) == tuple(lg.shape)
        assert t.tolist() == lg.tolist()


@pytest.mark.parametrize("call", [lambda T: T.triu_indices(-1, 3),
                                  lambda T: T.tril_indices(3, -2),
                                  lambda T: T.tril_indices(3, 3, dtype=T.float32),
                                  lambda T: T.triu_indices(3, 3, dtype=T.int16)])
def test_tri_indices_errors_match_torch(call):
    _raise_same(call)


@pytest.mark.parametrize("call", [
    lambda T: T.index_fill(T.ones(3, 4), 1, T.tensor([0.0]), 1.0),
    lambda T: T.addbmm(T.ones(3, 3), T.ones(3, 4), T.ones(4, 3)),
    lambda T: T.baddbmm(T.ones(3, 3), T.ones(2, 3, 4), T.ones(4, 3)),
    lambda T: T.addbmm(T.ones(3, 3), T.ones(3, 4), T.ones(2, 4, 3)),
    lambda T: T.column_stack([]),
    lambda T: T.scatter_reduce(T.ones(3), 0, T.tensor([0]), T.ones(1), "add"),
    lambda T: T.take(T.ones(3), T.tensor([0], dtype=T.int32)),
    lambda T: T.index_copy(T.ones(3), 0, T.tensor([0.0]), T.ones(1)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([0, 0, 0])),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([1, 1, 1]), aweights=T.zeros(3)),
    lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1.0, -1.0, 0.0])),
])
def test_more_errors_match_torch(call):
    _raise_same(call)


def test_scatter_reduce_max_min_aliases():
    for T in (torch, leafgrad):
        x = T.zeros(3)
        i, s = T.tensor([0, 0]), T.tensor([5.0, -2.0])
        assert T.scatter_reduce(x, 0, i, s, "max").tolist() == [5.0, 0.0, 0.0]
        assert T.scatter_reduce(x, 0, i, s, "min").tolist() == [-2.0, 0.0, 0.0]
