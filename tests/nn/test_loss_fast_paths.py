"""The losses' fast paths (issue 14, small training steps): softmax / log_softmax over a
short last dim (their row max is not NumPy's ``x.max``) give the bits of the ``x.max``
formula with nan, inf and signed zeros; cross_entropy, binary_cross_entropy (range checks
as min / max reductions) and embedding as PyTorch's."""
import numpy as np
import pytest
import torch

import leafgrad


def _data(n, c, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c)) * rng.choice([1.0, 30.0, 1e4], (n, 1))).astype(np.float32)
    x[rng.random((n, c)) < 0.03] = np.nan
    x[rng.random((n, c)) < 0.03] = np.inf
    x[rng.random((n, c)) < 0.03] = -np.inf
    x[rng.random((n, c)) < 0.05] = -0.0
    x[rng.random((n, c)) < 0.05] = 0.0
    x[0] = -np.inf
    return x


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("n,c", [(16, 2), (64, 27), (512, 10)])
def test_softmax_as_before_and_torch(fn, n, c):
    x = _data(n, c, 7)
    x[1:] = np.nan_to_num(x[1:], nan=0.5, posinf=3.0, neginf=-3.0)
    lf = getattr(leafgrad.nn.functional, fn)(leafgrad.tensor(x), 1).numpy()
    # the formula with NumPy's own max (what the op computed before)
    with np.errstate(all="ignore"):
        s = x - x.max(axis=1, keepdims=True)
        want = (s - np.log(np.exp(s).sum(axis=1, keepdims=True)) if fn == "log_softmax"
                else np.exp(s) / np.exp(s).sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(lf, want)
    th = getattr(torch.nn.functional, fn)(torch.tensor(x), 1).numpy()
    np.testing.assert_allclose(lf[1:], th[1:], rtol=2e-6, atol=1e-6)
    assert np.isnan(lf[0]).all() and np.isnan(th[0]).all()


def test_cross_entropy_as_torch():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 27)).astype(np.float32)
    y = rng.integers(0, 27, 64)
    out = []
    for m in (leafgrad, torch):
        xt = m.tensor(x, requires_grad=True)
        loss = m.nn.functional.cross_entropy(xt, m.tensor(y))
        loss.backward()
        out.append((loss.item(), xt.grad.numpy()))
    assert out[0][0] == pytest.approx(out[1][0], rel=1e-6)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("bad", ["p_neg", "p_big", "p_nan", "y_neg", "y_big", "y_nan"])
def test_bce_range_errors_as_torch(bad):
    """binary_cross_entropy refuses inputs / targets outside [0, 1] and nan (its checks
    are two min / max reductions each)."""
    p = np.full((4, 1), 0.5, np.float32)
    y = np.ones((4, 1), np.float32)
    arr = p if bad[0] == "p" else y
    arr[2, 0] = {"neg": -0.25, "big": 1.5, "nan": np.nan}[bad[2:]]
    for m in (leafgrad, torch):
        with pytest.raises(RuntimeError, match="should be between 0 and 1"):
            m.nn.functional.binary_cross_entropy(m.tensor(p), m.tensor(y))


def test_bce_in_range_as_torch():
    p = np.array([[0.0], [1.0], [0.25], [0.999]], np.float32)
    y = np.array([[0.0], [1.0], [1.0], [0.5]], np.float32)
    out = [m.nn.functional.binary_cross_entropy(m.tensor(p), m.tensor(y)).item()
           for m in (leafgrad, torch)]
    assert out[0] == pytest.approx(out[1], rel=1e-6)


@pytest.mark.parametrize("ix", [[-1], [0, -5], [5], [[1, 2], [7, 0]]])
def test_embedding_refuses_out_of_range_as_torch(ix):
    """Negative indices are out of range in PyTorch's embedding (index_select), as are
    indices >= num_embeddings."""
    w = np.ones((5, 3), np.float32)
    for m in (leafgrad, torch):
        with pytest.raises(IndexError, match="index out of range in self"):
            m.nn.functional.embedding(m.tensor(ix), m.tensor(w))


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_grad_bits_as_torch(padding_idx):
    """Repeated rows summed in index order (np.add.at, PyTorch's index_add_): the same
    float32 bits as PyTorch's."""
    rng = np.random.default_rng(5)
    ix = rng.integers(0, 6, (64, 3))
    w = rng.standard_normal((6, 4)).astype(np.float32)
    g = (rng.standard_normal((64, 3, 4)) * 10).astype(np.float32)
    grads = []
    for m in (leafgrad, torch):
        wt = m.tensor(w, requires_grad=True)
        ixt = m.tensor(ix)
        out = m.nn.functional.embedding(ixt, wt, padding_idx)
        out.backward(m.tensor(g))
        grads.append(wt.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
