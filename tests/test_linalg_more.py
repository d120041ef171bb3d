"""torch.linalg.tensorinv, tensorsolve, diagonal, ldl_factor(_ex), ldl_solve against
PyTorch 2.13: values, gradients (tensorinv/tensorsolve: second order too, and float64
central differences), LDL's exact pivots and info (Bunch-Kaufman as LAPACK), errors of
the same class, out=, the refusing backward of the LDL ops (no derivative in PyTorch).
"""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad


def _t(T, a, grad=False):
    return T.tensor(a, requires_grad=grad)


def _grads(T, fn, arrays):
    xs = [_t(T, a, True) for a in arrays]
    y = fn(T, *xs)
    w = _t(T, np.linspace(-1, 1, int(np.prod(y.shape))).reshape(tuple(y.shape)))
    gs = T.autograd.grad((y * w).sum(), xs, create_graph=True)
    # a linear op's second order is unconnected (None, or no graph at all): zeros
    gsum = sum((g * g).sum() for g in gs)
    ggs = (T.autograd.grad(gsum, xs, allow_unused=True) if gsum.requires_grad
           else [None] * len(xs))
    return [y.detach().numpy()] + [g.detach().numpy() for g in gs] + [
        np.zeros(x.shape) if g is None else g.numpy() for g, x in zip(ggs, xs)]


_CASES = {
    "tensorinv": (lambda T, a: T.linalg.tensorinv(a, ind=2), [(2, 3, 6)]),
    "tensorinv_ind1": (lambda T, a: T.linalg.tensorinv(a, ind=1), [(6, 2, 3)]),
    "tensorsolve": (lambda T, a, b: T.linalg.tensorsolve(a, b), [(2, 3, 6), (2, 3)]),
    "tensorsolve_dims": (lambda T, a, b: T.linalg.tensorsolve(a, b, dims=(0,)),
                         [(6, 2, 3), (2, 3)]),
    "diagonal": (lambda T, a: T.linalg.diagonal(a, offset=1, dim1=0, dim2=2), [(3, 4, 5)]),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_values_and_grads_match_torch(name):
    fn, shapes = _CASES[name]
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) + (3 * np.eye(6).reshape(s) if i == 0 and np.prod(s) == 36
                                        else 0) for i, s in enumerate(shapes)]
    for a, b in zip(_grads(leafgrad, fn, arrays), _grads(torch, fn, arrays)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    y_l = fn(leafgrad, *[_t(leafgrad, a, True) for a in arrays])
    y_t = fn(torch, *[_t(torch, a, True) for a in arrays])
    assert type(y_l.grad_fn).__name__ == type(y_t.grad_fn).__name__


def test_tensorsolve_float64_central_differences():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 6)) + 2 * np.eye(6).reshape(2, 3, 6)
    b = rng.standard_normal((2, 3))
    A, B = leafgrad.tensor(a, requires_grad=True), leafgrad.tensor(b, requires_grad=True)
    ga, gb = leafgrad.autograd.grad(leafgrad.linalg.tensorsolve(A, B).pow(3).sum(), (A, B))
    f = lambda a_, b_: (np.linalg.solve(a_.reshape(6, 6), b_.reshape(6)) ** 3).sum()  # noqa: E731
    eps = 1e-6
    for arr, g in ((a, ga), (b, gb)):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            d = np.zeros_like(arr)
            d[i] = eps
            hi = f(a + d, b) if arr is a else f(a, b + d)
            lo = f(a - d, b) if arr is a else f(a, b - d)
            num[i] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-7)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 7), batch=st.sampled_from([(), (2,), (2, 1)]),
       zeros=st.floats(0, 0.6), seed=st.integers(0, 2 ** 32 - 1),
       f64=st.booleans(), hermitian=st.booleans())
def test_ldl_factor_and_solve_match_torch(n, batch, zeros, seed, f64, hermitian):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (n, n))
    a[rng.random(a.shape) < zeros] = 0
    s = (a + np.swapaxes(a, -1, -2)).astype(np.float64 if f64 else np.float32)
    res_t = torch.linalg.ldl_factor_ex(torch.tensor(s), hermitian=hermitian)
    res_l = leafgrad.linalg.ldl_factor_ex(leafgrad.tensor(s), hermitian=hermitian)
    # the pivot choices and info are exact (LAPACK's comparisons); LD up to rounding
    np.testing.assert_array_equal(res_l.pivots.numpy(), res_t.pivots.numpy())
    np.testing.assert_array_equal(res_l.info.numpy(), res_t.info.numpy())
    assert res_l.pivots.dtype == leafgrad.int32 and res_l.info.dtype == leafgrad.int32
    tol = dict(rtol=1e-9, atol=1e-9) if f64 else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(res_l.LD.numpy(), res_t.LD.numpy(), **tol)
    if res_t.info.any():
        return
    if np.linalg.cond(s.astype(np.float64)).max() > 1e4:
        return          # an ill-conditioned solve differs by its rounding, not its method
    b = rng.standard_normal(batch + (n, 2)).astype(s.dtype)
    x_t = torch.linalg.ldl_solve(res_t.LD, res_t.pivots, torch.tensor(b), hermitian=hermitian)
    x_l = leafgrad.linalg.ldl_solve(res_l.LD, res_l.pivots, leafgrad.tensor(b),
                                    hermitian=hermitian)
    np.testing.assert_allclose(x_l.numpy(), x_t.numpy(), **tol)
    np.testing.assert_allclose(s.astype(np.float64) @ x_l.numpy(), b, rtol=1e-3, atol=1e-3)


def test_ldl_factor_namedtuples_and_out():
    s = np.array([[1.0, 2.0, 0.5], [2.0, -1.0, 0.3], [0.5, 0.3, 4.0]], np.float32)
    r = leafgrad.linalg.ldl_factor(leafgrad.tensor(s))
    t = torch.linalg.ldl_factor(torch.tensor(s))
    assert type(r).__name__ == type(t).__name__ == "linalg_ldl_factor"
    np.testing.assert_array_equal(r.pivots.numpy(), t.pivots.numpy())
    ld, piv = leafgrad.empty(3, 3), leafgrad.empty(3, dtype=leafgrad.int32)
    out = leafgrad.linalg.ldl_factor(leafgrad.tensor(s), out=(ld, piv))
    assert out.LD is ld and out.pivots is piv
    np.testing.assert_allclose(ld.numpy(), t.LD.numpy(), rtol=1e-6)
    o = leafgrad.empty(3, 1)
    b = np.ones((3, 1), np.float32)
    x64 = leafgrad.linalg.ldl_solve(r.LD, r.pivots.long(), leafgrad.tensor(b))   # as torch
    np.testing.assert_allclose(x64.numpy(), torch.linalg.ldl_solve(
        t.LD, t.pivots.long(), torch.tensor(b)).numpy(), rtol=1e-5)
    leafgrad.linalg.ldl_solve(r.LD, r.pivots, leafgrad.tensor(b), out=o)
    np.testing.assert_allclose(o.numpy(), torch.linalg.ldl_solve(t.LD, t.pivots,
                                                                 torch.tensor(b)).numpy(),
                               rtol=1e-5)
    o = leafgrad.empty(6, 2, 3)
    leafgrad.linalg.tensorinv(leafgrad.eye(6).reshape(2, 3, 6), ind=2, out=o)
    assert tuple(o.shape) == (6, 2, 3)


def test_ldl_backward_refuses_as_torch():
    s = np.array([[2.0, 1.0], [1.0, 3.0]])
    for T in (torch, leafgrad):
        a = T.tensor(s, requires_grad=True)
        ld, piv = T.linalg.ldl_factor(a)
        assert type(ld.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="not implemented"):
            ld.sum().backward()
        b = T.ones(2, 1, dtype=T.float64, requires_grad=True)
        x = T.linalg.ldl_solve(ld.detach(), piv, b)
        with pytest.raises(RuntimeError, match="not implemented"):
            x.sum().backward()


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.tensorinv(T.ones(4, 6, 8, 3), ind=0),
    lambda T: T.linalg.tensorinv(T.ones(4, 6, 8, 2), ind=2),
    lambda T: T.linalg.tensorinv(T.zeros(2, 2, 4), ind=2),
    lambda T: T.linalg.tensorinv(T.ones(4, 4).int(), ind=1),
    lambda T: T.linalg.tensorsolve(T.ones(2, 3, 6), T.ones(2, 2)),
    lambda T: T.linalg.diagonal(T.ones(3, 4, 5), 1),
    lambda T: T.linalg.ldl_factor(T.ones(3, 4)),
    lambda T: T.linalg.ldl_factor(T.zeros(3, 3)),
    lambda T: T.linalg.ldl_factor_ex(T.zeros(3, 3), check_errors=True),
    lambda T: T.linalg.ldl_factor(T.ones(3, 3).int()),
    lambda T: T.linalg.ldl_solve(T.eye(3), T.ones(3), T.ones(3, 1)),
    lambda T: T.linalg.ldl_solve(T.eye(3), T.ones(3, dtype=T.int32), T.ones(3, 1).double()),
    lambda T: T.linalg.ldl_solve(T.eye(3), T.ones(3, dtype=T.int32), T.ones(2, 1)),
    lambda T: T.linalg.ldl_solve(T.eye(3), T.ones(3, dtype=T.int32), T.ones(3)),
])
def test_errors_match_torch(call):
    try:
        call(torch)
    except Exception as e:      # noqa: BLE001 (leafgrad's class must be the same)
        cls = leafgrad.linalg.LinAlgError if isinstance(e, torch.linalg.LinAlgError) else type(e)
        with pytest.raises(cls):
            call(leafgrad)
        return
    raise AssertionError("torch did not raise")
