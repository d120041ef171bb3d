"""searchsorted, bucketize, isin (ops/shape/search.py) against real PyTorch: integer and bool
results (no gradient), drawn by hypothesis; errors of the same class."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

_vals = st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, float("nan")]), min_size=0,
                 max_size=6)


def _same(f):
    t, lg = f(torch), f(leafgrad)
    assert str(t.dtype) == str(lg.dtype)
    assert tuple(t.shape) == tuple(lg.shape)
    np.testing.assert_array_equal(t.numpy(), lg.numpy())


@settings(max_examples=60, deadline=None)
@given(seq=st.lists(st.sampled_from([-1.0, 0.0, 1.0, 1.0, 2.0, 5.0]), min_size=1, max_size=6),
       vals=_vals, right=st.booleans(), i32=st.booleans(), dtype=st.sampled_from(["f", "i"]))
def test_searchsorted_bucketize_1d(seq, vals, right, i32, dtype):
    seq = np.sort(np.array(seq))
    v = np.array(vals)
    if dtype == "i":
        seq, v = seq.astype(np.int64), np.nan_to_num(v).astype(np.int64)
    _same(lambda T: T.searchsorted(T.tensor(seq), T.tensor(v), right=right, out_int32=i32))
    _same(lambda T: T.searchsorted(T.tensor(seq), T.tensor(v),
                                   side="right" if right else "left"))
    _same(lambda T: T.bucketize(T.tensor(v), T.tensor(seq), right=right, out_int32=i32))
    _same(lambda T: T.searchsorted(T.tensor(seq), 1.0, right=right))
    _same(lambda T: T.bucketize(1, T.tensor(seq), right=right))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_searchsorted_nd_and_sorter(data):
    rows, n, m = (data.draw(st.integers(1, 3)) for _ in range(3))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    seq = np.sort(rng.integers(-3, 4, (rows, n)).astype(np.float64), axis=-1)
    v = rng.integers(-4, 5, (rows, m)).astype(np.float64)
    right = data.draw(st.booleans())
    _same(lambda T: T.searchsorted(T.tensor(seq), T.tensor(v), right=right))
    flat = rng.permutation(rng.integers(-3, 4, n).astype(np.float64))
    order = np.argsort(flat, kind="stable")
    _same(lambda T: T.searchsorted(T.tensor(flat), T.tensor(v[0]), right=right,
                                   sorter=T.tensor(order)))


@settings(max_examples=40, deadline=None)
@given(e=_vals, t=_vals, invert=st.booleans())
def test_isin(e, t, invert):
    _same(lambda T: T.isin(T.tensor(e), T.tensor(t), invert=invert))
    _same(lambda T: T.isin(T.tensor(e), 1.0, invert=invert))
    _same(lambda T: T.isin(2.0, T.tensor(t)))
    _same(lambda T: T.isin(T.tensor(e).reshape(-1, 1) if e else T.tensor(e),
                           T.tensor(t).long() if t and not np.isnan(t).any() else T.tensor(t)))


@pytest.mark.parametrize("call", [
    lambda T: T.searchsorted(T.tensor([[1, 3], [2, 4]]), T.tensor([[2], [3], [4]])),
    lambda T: T.bucketize(T.tensor([1.0]), T.ones(2, 2)),
    lambda T: T.searchsorted(T.tensor([1.0]), T.tensor([1.0]), side="x"),
    lambda T: T.searchsorted(T.tensor([1.0]), T.tensor([1.0]), side="left", right=True),
    lambda T: T.searchsorted(T.tensor(1.0), T.tensor([1.0])),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value), match="Fix:"):
        call(leafgrad)
