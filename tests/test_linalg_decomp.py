"""torch.linalg decompositions and matrix functions against real PyTorch (float64): values
of the unique parts, and gradients of losses that do not depend on the decomposition's
free choices (eigenvector / singular vector signs): random well-conditioned inputs with
distinct eigen-/singular values."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad
from _outcome import builtin_name


def _spd(rng, n, batch=()):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _both(fn, arrays, second_order=False):
    out = []
    for T in (leafgrad, torch):
        xs = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays]
        val = fn(T, *xs)
        grads = T.autograd.grad(val, xs, create_graph=second_order)
        if second_order:
            gg = T.autograd.grad(sum((g * g).sum() for g in grads), xs)
            grads = list(grads) + list(gg)
        out.append((val.detach().numpy(), [g.detach().numpy() for g in grads]))
    return out


def _close(res, rtol=1e-7, atol=1e-9):
    (lv, lg), (tv, tg) = res
    np.testing.assert_allclose(lv, tv, rtol=rtol, atol=atol)
    for a, b in zip(lg, tg):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


sizes = st.integers(1, 4)
batches = st.sampled_from([(), (2,)])
seeds = st.integers(0, 10 ** 6)


@given(sizes, batches, seeds)
def test_eigh_and_eigvalsh(n, batch, seed):
    rng = np.random.default_rng(seed)
    A = _spd(rng, n, batch)
    w = rng.normal(size=(n,))

    def loss(T, a):
        a = (a + a.mT) / 2
        L, V = T.linalg.eigh(a)
        # V⁴ and V diag(w) Vᵀ do not depend on the signs of the eigenvectors (and, unlike
        # ||V diag(w) Vᵀ|| or Σ V², they do depend on V)
        M = T.tensor(np.arange(n * n, dtype=np.float64).reshape(n, n))
        return (L * L).sum() + (V ** 4 * T.tensor(w)).sum() + \
            ((V * T.tensor(w)) @ V.mT * M).sum() + T.linalg.eigvalsh(a).exp().sum()
    _close(_both(loss, [A]), rtol=1e-6, atol=1e-8)


@given(st.integers(1, 4), st.integers(1, 4), batches, seeds)
def test_svd_reduced(m, n, batch, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=batch + (m, n))
    k = min(m, n)
    w = rng.normal(size=(k,))

    def loss(T, a):
        U, S, Vh = T.linalg.svd(a, full_matrices=False)
        M = T.tensor(np.arange(m * n, dtype=np.float64).reshape(m, n))
        Mu = T.tensor(np.arange(m * m, dtype=np.float64).reshape(m, m))
        return (S ** 3).sum() + ((U * T.tensor(w)) @ Vh * M).sum() + (U ** 4).sum() \
            + (Vh ** 4 * 0.5).sum() + (U @ U.mT * Mu).sum()
    _close(_both(loss, [A]), rtol=1e-6, atol=1e-8)


@given(sizes, batches, seeds, st.booleans())
def test_cholesky(n, batch, seed, upper):
    rng = np.random.default_rng(seed)
    A = _spd(rng, n, batch)

    def loss(T, a):
        L = T.linalg.cholesky((a + a.mT) / 2, upper=upper)
        return (L * T.arange(float(n * n), dtype=T.float64).reshape(n, n)).sum()
    _close(_both(loss, [A]))


@given(sizes, batches, seeds)
def test_slogdet_logdet_second_order(n, batch, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=batch + (n, n)) + 3 * np.eye(n)
    _close(_both(lambda T, a: T.linalg.slogdet(a).logabsdet.sum() * 1.5 + T.logdet(
        a @ a.mT).sum() if hasattr(T, "logdet") else 0, [A], second_order=True))


@given(sizes, batches, seeds)
def test_matrix_exp_to_second_order(n, batch, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=batch + (n, n))
    _close(_both(lambda T, a: (T.linalg.matrix_exp(a) * T.arange(float(n * n), dtype=T.float64)
                               .reshape(n, n)).sum(), [A], second_order=True),
           rtol=1e-6, atol=1e-8)


@settings(max_examples=4)
@given(seeds)
def test_matrix_exp_large_norm_float32(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(5, 5)) * 6
    a = leafgrad.linalg.matrix_exp(leafgrad.tensor(A, dtype=leafgrad.float32)).numpy()
    b = torch.linalg.matrix_exp(torch.tensor(A, dtype=torch.float32)).numpy()
    np.testing.assert_allclose(a, b, rtol=2e-4, atol=1e-3 * np.abs(b).max())


@given(sizes, sizes, seeds)
def test_pinv_multi_dot_matrix_power_cross_vecdot(m, n, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, n))
    B = rng.normal(size=(n, 3))
    C = rng.normal(size=(3, 2))
    M = rng.normal(size=(n, n)) + 2 * np.eye(n)
    a3 = rng.normal(size=(4, 3))
    b3 = rng.normal(size=(4, 3))

    def loss(T, a, b, c, mm, x, y):
        return (T.linalg.pinv(a).pow(2).sum() + T.linalg.multi_dot([a, b, c]).sum()
                + T.linalg.matrix_power(mm, 3).sum() + T.linalg.matrix_power(mm, -2).sum()
                + T.linalg.matrix_power(mm, 0).sum() + T.linalg.cross(x, y).pow(2).sum()
                + T.linalg.vecdot(x, y).sum())
    _close(_both(loss, [A, B, C, M, a3, b3]), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", [
    lambda T: T.linalg.cholesky(T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda T: T.linalg.eigh(T.ones(2, 3)),
    lambda T: T.linalg.eigh(T.eye(2), UPLO="X"),
    lambda T: T.linalg.svd(T.tensor([1.0, 2.0])),
    lambda T: T.linalg.multi_dot([T.ones(2, 2)]),
    lambda T: T.linalg.cross(T.ones(2, 2), T.ones(2, 2)),
    lambda T: T.linalg.matrix_exp(T.ones(2, 3)),
    lambda T: T.linalg.matrix_power(T.ones(2, 3), 2),
])
def test_errors_like_torch(case):
    def run(T):
        try:
            case(T)
        except Exception as e:      # noqa: BLE001 - compared with torch
            return builtin_name(type(e))
        return "no error"
    assert run(leafgrad) == run(torch)


def test_full_svd_values_and_named_fields():
    A = np.random.default_rng(1).normal(size=(4, 3))
    for full in (True, False):
        a = leafgrad.linalg.svd(leafgrad.tensor(A), full_matrices=full)
        b = torch.linalg.svd(torch.tensor(A), full_matrices=full)
        assert [tuple(t.shape) for t in a] == [tuple(t.shape) for t in b]
        np.testing.assert_allclose(a.S.numpy(), b.S.numpy(), rtol=1e-10)
        # U diag(S) Vh reconstructs A whatever the signs
        k = 3
        np.testing.assert_allclose((a.U[:, :k] * a.S) @ a.Vh[:k], A, atol=1e-10)


@pytest.mark.parametrize("case", [
    lambda T: T.cross(T.tensor([1.0, 0.0, 0.0]), T.tensor([0.0, 1.0, 0.0])),
    lambda T: T.cross(T.arange(6.0).reshape(2, 3), T.ones(2, 3), dim=1),
    lambda T: T.cross(T.arange(9.0).reshape(3, 3), T.eye(3)),
    lambda T: T.dist(T.tensor([1.0, 2.0]), T.tensor([4.0, 6.0])),
    lambda T: T.dist(T.ones(2, 3), T.zeros(3), p=1),
    lambda T: T.dist(T.ones(2, 3), T.zeros(3), p=float("inf")),
])
def test_torch_cross_and_dist(case):
    import warnings

    def run(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            v = case(T)
        return v.tolist(), sorted({c.category.__name__ for c in w})
    assert run(leafgrad) == run(torch)


def test_cudnn_flags_context_restores():
    for T in (leafgrad, torch):
        before = T.backends.cudnn.allow_tf32
        with T.backends.cudnn.flags(allow_tf32=False):
            assert T.backends.cudnn.allow_tf32 is False
        assert T.backends.cudnn.allow_tf32 == before


def test_torch_svd_old_api():
    A = np.random.default_rng(2).normal(size=(4, 3))
    for some in (True, False):
        a = leafgrad.svd(leafgrad.tensor(A), some=some)
        b = torch.svd(torch.tensor(A), some=some)
        assert type(a).__name__ == type(b).__name__ == "svd"
        assert [tuple(t.shape) for t in a] == [tuple(t.shape) for t in b]
        np.testing.assert_allclose(a.S.numpy(), b.S.numpy(), rtol=1e-10)
        np.testing.assert_allclose((a.U[:, :3] * a.S) @ a.V[:, :3].T, A, atol=1e-10)
    x = leafgrad.tensor(A, requires_grad=True)
    leafgrad.svd(x).S.sum().backward()
    y = torch.tensor(A, requires_grad=True)
    torch.svd(y).S.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-8, atol=1e-10)
