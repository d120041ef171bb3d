"""Ops added in the ops2 batch: what the op table cannot check (no-gradient ops,
warnings, grad_fn names, namedtuples, error classes), each against PyTorch."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad


def _both(fn):
    return fn(torch), fn(leafgrad)


@pytest.mark.parametrize("weights", [None, "int", "float32", "float64"])
def test_bincount(weights):
    def f(T):
        w = None if weights is None else T.tensor([1, 2, 3, 4], dtype=getattr(T, weights)
                                                  if weights != "int" else T.int64)
        return T.bincount(T.tensor([0, 3, 3, 1]), w, minlength=6)
    t, lg = _both(f)
    assert str(t.dtype) == str(lg.dtype)
    np.testing.assert_allclose(lg.numpy(), t.numpy())


def test_bincount_negative_raises():
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError):
            T.bincount(T.tensor([-1, 2]))


def test_type_as():
    for T in (torch, leafgrad):
        x = T.ones(2, requires_grad=True)
        assert x.type_as(T.ones(1)) is x
        y = x.type_as(T.ones(1, dtype=T.float64))
        assert y.dtype == T.float64 and type(y.grad_fn).__name__ == "ToCopyBackward0"


def test_meshgrid_warns_without_indexing():
    for T in (torch, leafgrad):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.meshgrid(T.ones(2), T.ones(3))
        assert any(issubclass(x.category, UserWarning) and "indexing" in str(x.message)
                   for x in w)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            T.meshgrid(T.ones(2), T.ones(3), indexing="ij")


def test_grad_fn_names():
    def names(T):
        x = T.randn(3, requires_grad=True)
        m = T.randn(3, 3, requires_grad=True)
        i = T.tensor([0, 0])
        outs = [T.diag(x), T.diag(m), m.trace(), m.tile(2), x.repeat_interleave(2),
                x.cumprod(0), x.diff(), x.nan_to_num(), T.addcmul(x, x, x),
                T.addcdiv(x, x, x), x.clone().addcdiv_(x, x), x.index_add(0, i, T.ones(2)),
                T.tensordot(m, m, 1), x.median(), m.median(0)[0], T.cdist(m, m),
                x.clone().index_put_((i,), T.ones(2), accumulate=True),
                T.meshgrid(x, x, indexing="xy")[0]]
        return [type(o.grad_fn).__name__ for o in outs]
    t, lg = _both(names)
    assert t == lg


def test_median_namedtuple_and_empty():
    t, lg = _both(lambda T: T.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]).median(1))
    assert type(lg).__name__ == "median" and lg._fields == ("values", "indices")
    np.testing.assert_array_equal(lg.values.numpy(), t.values.numpy())
    np.testing.assert_array_equal(lg.indices.numpy(), t.indices.numpy())
    t, lg = _both(lambda T: T.median(T.ones(0)))
    assert np.isnan(lg.item()) and np.isnan(t.item())


def test_unique_consecutive_and_repeat_interleave_values():
    def f(T):
        v, inv, c = T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True,
                                         return_counts=True)
        r = T.tensor([[1, 2], [3, 4]]).repeat_interleave(T.tensor([1, 2]), dim=0)
        return [v, inv, c, r]
    for a, b in zip(*_both(f)):
        np.testing.assert_array_equal(b.numpy(), a.numpy())


@pytest.mark.parametrize("case", ["index_add_dtype", "index_add_range", "trace_1d", "diag_3d",
                                  "addcdiv_int", "repeat_negative", "cdist_1d",
                                  "index_put_acc_range"])
def test_errors_match_torch(case):
    def f(T):
        x = T.ones(3)
        return {
            "index_add_dtype": lambda: x.index_add(0, T.tensor([0]), T.ones(1, dtype=T.float64)),
            "index_add_range": lambda: x.index_add(0, T.tensor([5]), T.ones(1)),
            "trace_1d": lambda: T.trace(x),
            "diag_3d": lambda: T.diag(T.ones(2, 2, 2)),
            "addcdiv_int": lambda: T.addcdiv(*(T.ones(2, dtype=T.int64),) * 3),
            "repeat_negative": lambda: x.repeat_interleave(-1),
            "cdist_1d": lambda: T.cdist(x, x),
            "index_put_acc_range": lambda: x.index_put_((T.tensor([7]),), T.ones(1),
                                                        accumulate=True),
        }[case]
    classes = []
    for T in (torch, leafgrad):
        try:
            f(T)()
            classes.append(None)
        except Exception as e:      # noqa: BLE001
            classes.append(type(e).__name__)
    assert classes[0] == classes[1] and classes[0] is not None


def test_index_put_accumulate_no_grad_and_repeats():
    for T in (torch, leafgrad):
        x = T.zeros(3)
        x.index_put_((T.tensor([0, 0, 2]),), T.tensor([1.0, 2.0, 5.0]), accumulate=True)
        assert x.tolist() == [3.0, 0.0, 5.0]


def test_topk_k_out_of_range_and_zero_dim_sort_as_torch():
    import leafgrad as lg
    import torch as th
    for T in (lg, th):
        with pytest.raises(RuntimeError, match="selected index k out of range"):
            T.arange(3.0).topk(5)
    for f in (lambda T: T.sort(T.tensor(2.0)), lambda T: T.tensor(2.0).topk(1),
              lambda T: T.tensor([3.0, 1.0, 2.0]).topk(2, largest=False)):
        a, b = f(lg), f(th)
        assert repr(a.values) == repr(b.values) and repr(a.indices) == repr(b.indices)


def test_select_and_diagonal_are_views_as_torch():
    import leafgrad as lg
    import torch as th
    out = []
    for T in (lg, th):
        x = T.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = x * 1
        y.diagonal(1, 1, 2).mul_(10)      # in place through the view: CopySlices on y
        y.select(2, -1).add_(1)
        y.sum().backward()
        out.append((repr(y), x.grad.numpy().tolist(), type(y.diagonal().grad_fn).__name__))
    assert out[0] == out[1]
