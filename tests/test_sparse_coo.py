"""Sparse COO tensors against real PyTorch: construction, repr, coalesce, to_dense,
transpose, sparse @ dense with gradients for the values and the dense operand (hypothesis
over random patterns, duplicates included), errors."""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import leafgrad

warnings.filterwarnings("ignore", message="Sparse invariant checks")


@st.composite
def patterns(draw):
    n, m, k = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    nnz = draw(st.integers(0, 6))
    rows = draw(st.lists(st.integers(0, n - 1), min_size=nnz, max_size=nnz))
    cols = draw(st.lists(st.integers(0, m - 1), min_size=nnz, max_size=nnz))
    return n, m, k, np.array([rows, cols], dtype=np.int64).reshape(2, nnz)


@given(patterns())
def test_mm_values_and_grads(p):
    n, m, k, idx = p
    rng = np.random.default_rng(0)
    vals = rng.normal(size=idx.shape[1])
    dense = rng.normal(size=(m, k))
    res = []
    for T in (leafgrad, torch):
        v = T.tensor(vals, requires_grad=True)
        d = T.tensor(dense, requires_grad=True)
        s = T.sparse_coo_tensor(T.tensor(idx), v, (n, m))
        out = T.sparse.mm(s, d)
        (out * T.arange(float(n * k), dtype=T.float64).reshape(n, k)).sum().backward()
        res.append((out.detach().numpy(), v.grad.numpy() if v.grad is not None else
                    np.zeros(idx.shape[1]), d.grad.numpy(), s.to_dense().detach().numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_construction_repr_and_views():
    def case(T):
        i = T.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
        s = T.sparse_coo_tensor(i, T.tensor([3., 4., 5., 1.]), (2, 3))
        c = s.coalesce()
        return (repr(s), repr(c), repr(s.t()), repr(s * 2), tuple(s.shape), s.dim(),
                s.sparse_dim(), s.dense_dim(), s._nnz(), c._nnz(), s.is_coalesced(),
                c.is_coalesced(), s.is_sparse, str(s.dtype), s.to_dense().tolist(),
                c.indices().tolist(), c.values().tolist(),
                repr(T.sparse_coo_tensor(i, T.tensor([1, 2, 3, 4]))),
                T.sparse.sum(s).item(), T.spmm(s, T.ones(3, 1)).tolist(),
                (s @ T.ones(3, 2)).tolist())
    a, b = case(leafgrad), case(torch)
    assert a == b


def test_leaf_sparse_gets_sparse_grad():
    res = []
    for T in (leafgrad, torch):
        s = T.sparse_coo_tensor(T.tensor([[0, 1], [1, 0]]), T.tensor([2.0, 3.0]), (2, 2),
                                requires_grad=True)
        T.sparse.mm(s, T.ones(2, 2)).sum().backward()
        res.append((s.requires_grad, s.is_leaf, repr(s.grad)))
    assert res[0] == res[1]


def test_errors():
    for T in (leafgrad, torch):
        i = T.tensor([[0, 1, 1], [2, 0, 2]])
        with pytest.raises(RuntimeError):
            T.sparse_coo_tensor(i, T.tensor([3.0, 4.0]), (2, 3))
        with pytest.raises(RuntimeError):
            T.sparse.mm(T.sparse_coo_tensor(i, T.tensor([3.0, 4.0, 5.0]), (2, 3)), T.ones(2, 2))
        with pytest.raises(RuntimeError):
            T.sparse_coo_tensor(i, T.tensor([3.0, 4.0, 5.0]), (2, 3)).indices()
    # PyTorch leaves its invariant checks off by default (undefined behaviour later);
    # leafgrad always checks
    with pytest.raises(RuntimeError, match="inconsistent with indices"):
        leafgrad.sparse_coo_tensor(leafgrad.tensor([[0, 1], [2, 3]]), leafgrad.ones(2), (2, 3))
