"""torch.linalg.solve_triangular, lu_factor(_ex), lu, lu_solve, torch.lu_unpack, lstsq,
inv_ex, cholesky_ex, solve_ex against real torch 2.13: values, gradients, second order
(float64), errors. Inputs are chosen so that every answer is unique (well-conditioned
matrices, distinct pivots)."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _outcome import raised

R = np.random.RandomState(3)
SQ = R.randn(4, 4) + 3 * np.eye(4)
BATCH = R.randn(2, 3, 3) + 2 * np.eye(3)
RHS = R.randn(4, 2)
RHS_B = R.randn(2, 3, 2)
TALL = R.randn(5, 3)
WIDE = R.randn(3, 5)
RHS5 = R.randn(5, 2)
W = R.randn(4, 4)


def _run(T, fn, arrays, order=2):
    """Values, gradients of a weighted sum, and the gradient of the gradients' sum."""
    xs = [T.tensor(a, requires_grad=True) for a in arrays]
    out = fn(T, *xs)
    outs = out if isinstance(out, tuple) else (out,)
    outs = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    vals = [o.detach().numpy().copy() for o in outs]
    loss = sum((o * T.tensor(np.cos(np.arange(o.numel())).reshape(o.shape))).sum()
               for o in outs)
    gs = T.autograd.grad(loss, xs, create_graph=order > 1, allow_unused=True)
    res = [vals, [None if g is None else g.detach().numpy().copy() for g in gs]]
    if order > 1:
        live = [g for g in gs if g is not None and g.requires_grad]
        gg = T.autograd.grad(sum((g * g).sum() for g in live), xs, allow_unused=True)
        res.append([None if g is None else g.numpy().copy() for g in gg])
    return res


def _close(got, want, rtol=1e-8, atol=1e-10):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w, rtol, atol)
    elif want is None:
        assert got is None or not np.any(got)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


CASES = {
    "tri_upper": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True), (SQ, RHS)),
    "tri_lower_unit": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False,
                                                                 unitriangular=True),
                       (SQ, RHS)),
    "tri_right": (lambda T, a, b: T.linalg.solve_triangular(a, b.mT, upper=False, left=False),
                  (SQ, RHS)),
    "tri_batch": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True), (BATCH, RHS_B)),
    "lu_factor": (lambda T, a: T.linalg.lu_factor(a).LU, (SQ,)),
    "lu_factor_batch": (lambda T, a: T.linalg.lu_factor(a).LU, (BATCH,)),
    "lu": (lambda T, a: T.linalg.lu(a)[1:], (SQ,)),
    "lu_solve": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b), (SQ, RHS)),
    "lu_solve_adjoint": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b,
                                                           adjoint=True), (SQ, RHS)),
    "lu_solve_right": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b.mT,
                                                         left=False), (SQ, RHS)),
    "lu_solve_right_adj": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b.mT,
                                                             left=False, adjoint=True),
                           (SQ, RHS)),
    "lstsq_tall": (lambda T, a, b: T.linalg.lstsq(a, b).solution, (TALL, RHS5)),
    "lstsq_wide": (lambda T, a, b: T.linalg.lstsq(a, b[:3]).solution, (WIDE, RHS5)),
    "inv_ex": (lambda T, a: T.linalg.inv_ex(a).inverse, (SQ,)),
    "solve_ex": (lambda T, a, b: T.linalg.solve_ex(a, b).result, (SQ, RHS)),
    "cholesky_ex": (lambda T, a: T.linalg.cholesky_ex(a @ a.mT + T.eye(4)).L, (SQ,)),
}
FIRST_ORDER_ONLY = {"cholesky_ex"}       # leafgrad's cholesky is not differentiable twice


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    fn, arrays = CASES[name]
    order = 1 if name in FIRST_ORDER_ONLY else 2
    _close(_run(leafgrad, fn, arrays, order), _run(torch, fn, arrays, order))


def _extras(T):
    a = T.tensor(SQ)
    out = {}
    LU, piv, info = T.linalg.lu_factor_ex(a)
    out["piv"] = (piv.dtype == T.int32, piv.tolist(), info.tolist())
    P, L, U = T.lu_unpack(LU, piv)
    out["unpack"] = [P.numpy(), L.numpy(), U.numpy()]
    s = T.linalg.lstsq(T.tensor(TALL), T.tensor(RHS5), driver="gelsd")
    out["gelsd"] = [s.residuals.numpy(), s.singular_values.numpy(), int(s.rank)]
    s = T.linalg.lstsq(T.tensor(TALL), T.tensor(RHS5))
    out["gelsy"] = (tuple(s.residuals.shape), int(s.rank), tuple(s.singular_values.shape))
    sing = T.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=T.float64)
    out["inv_ex_info"] = T.linalg.inv_ex(sing).info.tolist()
    out["chol_info"] = T.linalg.cholesky_ex(T.tensor([[1.0, 0.0], [0.0, -1.0]])).info.tolist()
    out["lu_sing"] = T.linalg.lu_factor_ex(sing).info.tolist()
    out["names"] = (type(T.linalg.lu(a)).__name__, type(T.linalg.lstsq(a, a)).__name__,
                    [hasattr(T.linalg.lu(a), k) for k in ("P", "L", "U")],
                    [hasattr(T.linalg.lstsq(a, a), k) for k in ("solution", "residuals", "rank",
                                                                "singular_values")],
                    [hasattr(T.linalg.inv_ex(a), k) for k in ("inverse", "info")])
    return out


def test_pivots_info_and_drivers_match_torch():
    got, want = _extras(leafgrad), _extras(torch)
    assert got["piv"] == want["piv"]
    for k in ("unpack", "gelsd"):
        _close(got[k][:2] if k == "gelsd" else got[k], want[k][:2] if k == "gelsd" else want[k])
    assert got["gelsd"][2] == want["gelsd"][2]
    for k in ("gelsy", "inv_ex_info", "chol_info", "lu_sing", "names"):
        assert got[k] == want[k], k


def _errors(T):
    calls = [
        lambda: T.linalg.solve_triangular(T.ones(3, 3), T.ones(2, 2), upper=True),
        lambda: T.linalg.solve_triangular(T.ones(3, 3), T.ones(3, 2, dtype=T.float64),
                                          upper=True),
        lambda: T.linalg.solve_triangular(T.ones(3, 3, dtype=T.int64),
                                          T.ones(3, 2, dtype=T.int64), upper=True),
        lambda: T.linalg.lu_factor(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
        lambda: T.linalg.lstsq(T.ones(3, 2), T.ones(4, 2)),
        lambda: T.linalg.lstsq(T.ones(3, 2), T.ones(3, 2), driver="bad"),
        lambda: T.linalg.inv_ex(T.zeros(2, 2), check_errors=True),
    ]
    return raised(calls)


def test_errors_match_torch():
    assert _errors(leafgrad) == _errors(torch)


# cholesky_solve / cholesky_inverse (ops/linalg/cholesky.py): the factor's other triangle
# holds values, so the test sees that the value ignores it and that the gradient (PyTorch's
# closed form) does not
CHOL = {
    "cholesky_solve": (lambda T, f, b: T.cholesky_solve(b, f), (SQ, RHS)),
    "cholesky_solve_upper": (lambda T, f, b: T.cholesky_solve(b, f, upper=True), (SQ, RHS)),
    "cholesky_solve_method": (lambda T, f, b: b.cholesky_solve(f), (SQ, RHS)),
    "cholesky_solve_batch": (lambda T, f, b: T.cholesky_solve(b, f), (BATCH, RHS_B)),
    "cholesky_inverse": (lambda T, f: T.cholesky_inverse(f), (SQ,)),
    "cholesky_inverse_upper": (lambda T, f: f.cholesky_inverse(upper=True), (SQ,)),
}


@pytest.mark.parametrize("name", sorted(CHOL))
def test_cholesky_solve_and_inverse_match_torch(name):
    fn, arrays = CHOL[name]
    _close(_run(leafgrad, fn, arrays, 2), _run(torch, fn, arrays, 2), rtol=1e-7, atol=1e-9)


def test_cholesky_solve_grad_fn_names_and_layout():
    for T in (torch, leafgrad):
        f = T.tensor(SQ, requires_grad=True)
        x = T.cholesky_solve(T.tensor(RHS), f)
        assert type(x.grad_fn).__name__ == "CholeskySolveBackward0"
        assert type(T.cholesky_inverse(f).grad_fn).__name__ == "CholeskyInverseBackward0"
    t = torch.cholesky_solve(torch.tensor(RHS), torch.tensor(SQ))
    lg = leafgrad.cholesky_solve(leafgrad.tensor(RHS), leafgrad.tensor(SQ))
    assert tuple(lg.stride()) == tuple(t.stride())


@pytest.mark.parametrize("call", [
    lambda T: T.cholesky_solve(T.ones(2), T.eye(2)),
    lambda T: T.cholesky_solve(T.ones(2, 1, dtype=T.float64), T.eye(2)),
    lambda T: T.cholesky_solve(T.ones(3, 1), T.eye(2)),
    lambda T: T.cholesky_inverse(T.ones(2, 3)),
    lambda T: T.cholesky_inverse(T.eye(2, dtype=T.long)),
    lambda T: T.cholesky_solve(T.ones(2, 1, dtype=T.long), T.eye(2, dtype=T.long)),
])
def test_cholesky_solve_and_inverse_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)):
        call(leafgrad)


def test_deprecated_lu_and_lu_solve_as_torch():
    """torch.lu / torch.lu_solve / Tensor.lu / Tensor.lu_solve: PyTorch's values, pivots,
    info, result types, grad_fn names, gradients and deprecation warnings."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 3))
    b = rng.standard_normal((2, 3, 2))
    got = []
    for T in (torch, leafgrad):
        A = T.tensor(a, requires_grad=True)
        B = T.tensor(b, requires_grad=True)
        with pytest.warns(UserWarning, match="torch.lu is deprecated"):
            LU, piv = T.lu(A)
        with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
            X = T.lu_solve(B, LU, piv)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r3 = T.lu(A, get_infos=True)
            m3 = A.lu(get_infos=True)
            X2 = B.lu_solve(*A.lu())
            sing = T.lu(T.zeros(2, 2), get_infos=True)
        gA, gB = T.autograd.grad((X * X).sum(), (A, B))
        got.append([LU.detach().numpy(), piv.numpy(), type(LU.grad_fn).__name__,
                    type(X.grad_fn).__name__, X.detach().numpy(), X2.detach().numpy(),
                    type(r3).__name__, r3.pivots.dtype is piv.dtype, type(m3).__name__, len(m3), r3.info.numpy(), sing.info.numpy(),
                    gA.numpy(), gB.numpy()])
    for u, v in zip(*got):
        if isinstance(u, np.ndarray):
            assert u.dtype == v.dtype
            np.testing.assert_allclose(v, u, rtol=1e-10, atol=1e-12)
        else:
            assert v == u
