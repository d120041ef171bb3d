"""Issue 10 item 8: NaN orders as PyTorch's (the largest value) in sort, argsort, topk and
in max/min/argmax/argmin/amax/amin/median, against real torch."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import leafgrad

_VALUES = st.sampled_from([float("nan"), float("inf"), -float("inf"), 0.0, -1.0, 1.0, 2.0, 2.0])


@st.composite
def _arrays(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    n = int(np.prod(shape))
    vals = draw(st.lists(_VALUES, min_size=n, max_size=n))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    dtype = draw(st.sampled_from(["float32", "float64"]))
    return np.array(vals, dtype=dtype).reshape(shape), dim


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@settings(max_examples=150, deadline=None)
@given(_arrays(), st.booleans())
def test_stable_sort_and_argsort(arr_dim, descending):
    arr, dim = arr_dim
    t, lg = torch.from_numpy(arr), leafgrad.tensor(arr)
    tv, ti = torch.sort(t, dim=dim, descending=descending, stable=True)
    lv, li = leafgrad.sort(lg, dim=dim, descending=descending, stable=True)
    _same(lv.numpy(), tv.numpy())
    _same(li.numpy(), ti.numpy())     # stable: ties (and NaNs) keep their order
    _same(leafgrad.argsort(lg, dim=dim, descending=descending, stable=True).numpy(),
          torch.argsort(t, dim=dim, descending=descending, stable=True).numpy())


@settings(max_examples=150, deadline=None)
@given(_arrays(), st.booleans(), st.data())
def test_topk_values(arr_dim, largest, data):
    arr, dim = arr_dim
    k = data.draw(st.integers(0, arr.shape[dim]))
    tv, _ = torch.topk(torch.from_numpy(arr), k, dim, largest=largest)
    lv, li = leafgrad.topk(leafgrad.tensor(arr), k, dim, largest=largest)
    _same(lv.numpy(), tv.numpy())
    # indices of tied values are not specified: they must point at the values
    _same(np.take_along_axis(arr, li.numpy(), dim), lv.numpy())


@settings(max_examples=150, deadline=None)
@given(_arrays())
def test_extremes(arr_dim):
    arr, dim = arr_dim
    t, lg = torch.from_numpy(arr), leafgrad.tensor(arr)
    for name in ("max", "min"):
        tv, ti = getattr(t, name)(dim)
        lv, li = getattr(lg, name)(dim)
        _same(lv.numpy(), tv.numpy())
        _same(li.numpy(), ti.numpy())   # the first NaN, else the first extreme
        _same(getattr(lg, name)().numpy(), getattr(t, name)().numpy())
    for name in ("argmax", "argmin"):
        _same(getattr(lg, name)(dim).numpy(), getattr(t, name)(dim).numpy())
        _same(getattr(lg, name)().numpy(), getattr(t, name)().numpy())
    for name in ("amax", "amin"):
        _same(getattr(lg, name)(dim).numpy(), getattr(t, name)(dim).numpy())
    _same(lg.median().numpy(), t.median().numpy())
    _same(lg.median(dim).values.numpy(), t.median(dim).values.numpy())


@pytest.mark.parametrize("dtype", ["uint8", "int64", "bool"])
def test_descending_sort_of_unsigned_and_bool(dtype):
    vals = [0, 1, 1, 0, 1] if dtype == "bool" else [0, 3, 255 if dtype == "uint8" else -4, 3, 1]
    t = torch.tensor(vals, dtype=getattr(torch, dtype))
    lg = leafgrad.tensor(vals, dtype=getattr(leafgrad, dtype))
    tv, ti = torch.sort(t, descending=True, stable=True)
    lv, li = leafgrad.sort(lg, descending=True, stable=True)
    _same(lv.numpy(), tv.numpy())
    _same(li.numpy(), ti.numpy())


def test_sort_gradient_with_nan():
    vals = [1.0, float("nan"), 3.0]
    for T in (torch, leafgrad):
        x = T.tensor(vals, requires_grad=True)
        v, _ = T.sort(x, descending=True)
        (v * T.tensor([10.0, 20.0, 30.0])).sum().backward()
        if T is torch:
            expected = x.grad.numpy()
        else:
            _same(x.grad.numpy(), expected)
