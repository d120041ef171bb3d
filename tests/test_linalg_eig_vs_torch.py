"""``torch.linalg.eig`` / ``eigvals`` against real torch 2.13: complex results
(complex64 for float32, complex128 for float64), eigenpairs, gradients of losses that
depend on the eigenvectors only through phase-free quantities (the others are ill-defined,
and both raise), finite differences in float64, and the errors. Eigenvalue order and the
eigenvectors' phases are LAPACK's (implementation-defined): eigenvalues are compared
sorted, eigenvectors through A V = V diag(L) and their norms."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def _loss(T, A, cL, W):
    L, V = T.linalg.eig(A)
    return ((L * T.tensor(cL).to(L.dtype)).real.sum()
            + (V.abs() ** 2 * T.tensor(W).to(V.real.dtype)).sum()
            + T.linalg.eigvals(A).abs().sum())


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5), batch=st.sampled_from([(), (2,), (2, 1)]),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**16))
def test_eig_values_and_gradients_match_torch(n, batch, dtype, seed):
    g = np.random.default_rng(seed)
    a = g.standard_normal(batch + (n, n))
    if dtype.startswith("complex"):
        a = a + 1j * g.standard_normal(batch + (n, n))
    a = a.astype(dtype)
    cL = g.standard_normal(batch + (n,)) + 1j * g.standard_normal(batch + (n,))
    W = g.standard_normal(batch + (n, n))
    out = {}
    for T in (torch, leafgrad):
        A = T.tensor(a, requires_grad=True)
        L, V = T.linalg.eig(A)
        (grad,) = T.autograd.grad(_loss(T, A, cL, W), A)
        out[T] = (L.dtype, L.detach().numpy(), V.detach().numpy(), grad.numpy(),
                  type(L.grad_fn).__name__, T.linalg.eigvals(A).dtype)
    t, lg = out[torch], out[leafgrad]
    assert str(lg[0]) == str(t[0]) and str(lg[5]) == str(t[5])
    assert lg[4] == t[4] == "LinalgEigBackward0"
    tol = TOL[dtype] * max(1.0, np.abs(a).max() * n)
    np.testing.assert_allclose(np.sort_complex(lg[1].ravel()), np.sort_complex(t[1].ravel()),
                               atol=tol, rtol=tol)
    L, V = lg[1], lg[2]
    np.testing.assert_allclose(a.astype(V.dtype) @ V, V * L[..., None, :], atol=tol * 10)
    np.testing.assert_allclose(np.linalg.norm(V, axis=-2), 1, atol=tol)
    # the gradient depends on the eigenvalues' order only through the pairing with cL, so
    # compare when LAPACK ordered them alike (it does for these well-separated draws)
    if np.allclose(lg[1], t[1], atol=tol, rtol=tol):
        np.testing.assert_allclose(lg[3], t[3], atol=tol * 50, rtol=tol * 50)


def test_eig_gradient_is_finite_differences_float64():
    g = np.random.default_rng(0)
    a = g.standard_normal((4, 4))
    cL = g.standard_normal(4) + 1j * g.standard_normal(4)
    W = g.standard_normal((4, 4))
    f = lambda x: _loss(leafgrad, leafgrad.tensor(x), cL, W).item()   # noqa: E731
    A = leafgrad.tensor(a, requires_grad=True)
    (grad,) = leafgrad.autograd.grad(_loss(leafgrad, A, cL, W), A)
    eps, num = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        num[i] = (f(a + d) - f(a - d)) / (2 * eps)
    np.testing.assert_allclose(grad.numpy(), num, rtol=1e-5, atol=1e-6)


def _raised(T, f):
    try:
        f(T)
    except Exception as e:          # noqa: BLE001 - compared by class and text
        return type(e), str(e)
    return None, ""


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.eig(T.ones(2, 3)),
    lambda T: T.linalg.eigvals(T.ones(2, 2, dtype=T.int64)),
    lambda T: T.linalg.eig(T.ones(3)),
    lambda T: T.linalg.eig(T.tensor([[1.0, float("inf")], [0.0, 1.0]])),
    lambda T: T.linalg.eig(T.tensor([[1.0, 2.0], [float("nan"), 1.0]], dtype=T.complex64)),
])
def test_errors_as_torch(call):
    t_cls, t_msg = _raised(torch, call)
    l_cls, l_msg = _raised(leafgrad, call)
    assert l_cls is t_cls is not None
    if t_cls is RuntimeError and "input tensor" in t_msg:
        assert l_msg.startswith(t_msg)


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_phase_dependent_loss_raises_torchs_error(dtype):
    for T in (torch, leafgrad):
        A = T.tensor([[1.0, 2.0, 0.5], [-3.0, 1.0, 2.0], [0.3, 0.1, 2.0]],
                     dtype=getattr(T, dtype), requires_grad=True)
        with pytest.raises(RuntimeError, match="specified up to multiplication by e"):
            T.autograd.grad(T.linalg.eig(A)[1].real.sum(), A)


def test_empty_and_out_as_torch():
    for T in (torch, leafgrad):
        L, V = T.linalg.eig(T.ones(0, 0))
        assert str(L.dtype).endswith("complex64") and tuple(V.shape) == (0, 0)
    lo = leafgrad.empty(2, dtype=leafgrad.complex64)
    leafgrad.linalg.eigvals(leafgrad.tensor([[2.0, 0.0], [0.0, 3.0]]), out=lo)
    assert sorted(lo.real.tolist()) == [2.0, 3.0]


def test_eigvals_of_a_non_finite_matrix_is_nan():
    L = leafgrad.linalg.eigvals(leafgrad.tensor([[[1.0, float("inf")], [0.0, 1.0]],
                                                 [[2.0, 0.0], [0.0, 3.0]]]))
    assert np.isnan(L[0].real.numpy()).all() and sorted(L[1].real.tolist()) == [2.0, 3.0]


def test_float16_not_implemented_as_torch():
    for T in (torch, leafgrad):
        with pytest.raises(NotImplementedError):
            T.linalg.eig(T.ones(2, 2, dtype=T.float16))
