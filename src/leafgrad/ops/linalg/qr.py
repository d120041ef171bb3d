"""``torch.linalg`` QR and the functions around it: qr, householder_product (torch.orgqr),
matrix_rank, cond, vander.

Backward formula of qr (PyTorch's FunctionsManual.cpp, linalg_qr_backward; Walter and
Lehmann 2018), m >= n, reduced: with M = R gRᵀ - gQᵀ Q and copyltu(M) = tril(M) +
tril(M, -1)ᵀ,  gA = (gQ + Q copyltu(M)) R⁻ᵀ; m < n: A = [X | Y], R = [U | V]:
gY = Q gV and gX is the square rule with gQ + Y gVᵀ and gU. Written with leafgrad ops
(the backward recomputes Q and R on the recorded graph), so it differentiates again.
householder_product, cond and vander are written with other leafgrad ops (their
gradients follow). Q and R are LAPACK's (numpy's geqrf/orgqr, as PyTorch's CPU build):
column signs are implementation-defined.
"""

import numpy as np

from ..._tensor import creation as _C
from ..._core.quiet import quiet as _quiet
from ...autograd.graph import Node
from .._dispatch import record_multi, to_tensor
from .._registry import defop
from ._lapack import _float_matrices, _lapack_layout, _svd
from ..reduce.reduction import _return_type
from .._named import _named
from .._out import with_out

__all__ = ["qr", "geqrf", "householder_product", "matrix_rank", "cond", "vander"]

_qr_t = _return_type("linalg_qr", ("Q", "R"))


def _copyltu(M):
    return M.tril() + M.tril(-1).mT


def _qr_square_backward(gQ, gR, Q, R):
    from .solvers import solve_triangular
    M = R @ gR.mT - gQ.mT @ Q
    b = gQ + Q @ _copyltu(M)
    return solve_triangular(R.mT, b, upper=False, left=False)


def _qr_backward(ctx, gQ, gR):
    from ..shape.joins import cat
    A, = ctx._checked_saved
    mode, = ctx.args
    m, n = A.shape[-2:]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going "
                           "to differentiate through linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    Q, R = qr(A, mode)          # recorded under create_graph: differentiable again
    gQ = _C.zeros_like(Q) if gQ is None else gQ
    gR = _C.zeros_like(R) if gR is None else gR
    if m >= n:
        return (_qr_square_backward(gQ, gR, Q, R),)
    Y = A[..., :, m:]
    U, gU, gV = R[..., :, :m], gR[..., :, :m], gR[..., :, m:]
    gX = _qr_square_backward(gQ + Y @ gV.mT, gU, Q, U)
    return (cat([gX, Q @ gV], -1),)


class LinalgQrBackward0(Node):
    __slots__ = ("out_metas",)
    n_outputs = 2
    saves = True
    backward = _qr_backward


@with_out("linalg_qr")
def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` with A = Q R, Q with orthonormal columns, R upper triangular.

    Shapes: A (*, m, n), k = min(m, n): 'reduced' Q (*, m, k), R (*, k, n); 'complete'
    Q (*, m, m), R (*, m, n); 'r': Q empty, R (*, k, n).

    Raises:
        RuntimeError: integer input, an unknown mode; in backward: mode 'r', or mode
            'complete' with m > n (as PyTorch).
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError("qr received unrecognized mode '%s' but expected one of 'reduced' "
                           "(default), 'r', or 'complete'" % mode)
    a = _float_matrices(A, "linalg.qr", square=False)
    with _quiet():
        if mode == "r":
            r = np.linalg.qr(a, mode="r")
            q = np.zeros((0,), a.dtype)
        else:
            q, r = np.linalg.qr(a, mode=mode)
    q, r = (_lapack_layout(m.astype(a.dtype, copy=False)) for m in (q, r))
    return _qr_t(*record_multi(LinalgQrBackward0, (q, r), (A,), saved=(A,), args=(mode,)))


_qr_old_t = _return_type("qr", ("Q", "R"))


@defop("qr")
@with_out("qr")
def torch_qr(input, some=True, *, out=None):
    """``torch.qr`` / ``Tensor.qr`` (the older API): :func:`linalg.qr` with mode 'reduced'
    (``some=True``) or 'complete'."""
    return _qr_old_t(*qr(input, "reduced" if some else "complete"))


_geqrf_t = _return_type("geqrf", ("a", "tau"))


def _geqrf_np(a):
    """Householder QR in LAPACK's storage (dgeqr2 with dlarfg's conventions): R on and above
    the diagonal, the reflectors' vectors below it (implicit leading 1), and tau."""
    a = np.array(a, copy=True)
    m, n = a.shape[-2:]
    k = min(m, n)
    flat = a.reshape((-1, m, n))
    tau = np.zeros((flat.shape[0], k), a.dtype)
    with _quiet():
        for b in range(flat.shape[0]):
            M = flat[b]
            for j in range(k):
                alpha = M[j, j]
                x = M[j + 1:, j]
                xnorm = np.sqrt(np.dot(x, x))
                if xnorm == 0:
                    continue            # H = I (tau = 0), as dlarfg
                beta = -np.copysign(np.hypot(alpha, xnorm), alpha)
                tau[b, j] = (beta - alpha) / beta
                M[j + 1:, j] = x / (alpha - beta)
                M[j, j] = beta
                v = np.concatenate(([1.0], M[j + 1:, j])).astype(a.dtype)
                M[j:, j + 1:] -= tau[b, j] * np.outer(v, v @ M[j:, j + 1:])
    return a, tau.reshape(a.shape[:-2] + (k,))


@defop("geqrf")
@with_out("geqrf")
def geqrf(input, *, out=None):
    """``torch.geqrf``: ``(a, tau)``, A's QR in LAPACK's format (R on and above the
    diagonal, Householder vectors below it; :func:`householder_product` rebuilds Q). Not
    differentiable, as PyTorch.

    Raises:
        RuntimeError: integer input, fewer than 2 dims.
    """
    x = _float_matrices(input, "torch.geqrf", square=False)
    a, tau = _geqrf_np(x)
    return _geqrf_t(to_tensor(_lapack_layout(a)), to_tensor(tau))


@defop("orgqr", out=True)
def orgqr(input, tau):
    """``torch.orgqr``: :func:`householder_product`."""
    return householder_product(input, tau)


@with_out("linalg_householder_product")
def householder_product(A, tau, *, out=None):
    """The first n columns of H₁ ⋯ H_k, Hᵢ = I - τᵢ vᵢ vᵢᵀ, vᵢ = (0, …, 0, 1, A[i+1:, i])
    (LAPACK's orgqr; with ``A, tau = geqrf(X)`` it is X's Q). Shapes: A (*, m, n), tau
    (*, k), k <= n <= m -> (*, m, n). Differentiable in A and tau (written with leafgrad
    ops).

    Raises:
        RuntimeError: shapes that do not fit, dtypes that differ.
    """
    a = _float_matrices(A, "torch.linalg.householder_product", square=False)
    tau = to_tensor(tau)
    m, n = a.shape[-2:]
    k = tau.shape[-1] if tau.dim() else 0
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    if tau._data.dtype != a.dtype:
        raise RuntimeError("torch.linalg.householder_product: tau dtype %s does not match input "
                           "dtype %s" % (tau.dtype, A.dtype))
    V = A.tril(-1) + _C.eye(m, n, dtype=A.dtype)
    Q = _C.eye(m, dtype=A.dtype)
    if a.ndim > 2:
        Q = Q.expand(a.shape[:-2] + (m, m))
    for i in range(k - 1, -1, -1):      # H_i applied from the left, last reflector first
        v = V[..., :, i:i + 1]
        Q = Q - (tau[..., i, None, None] * v) @ (v.mT @ Q)
    # PyTorch has one node for it (its own backward): its name, on the composite's result
    return _named(Q[..., :, :n], "LinalgHouseholderProductBackward0")


@with_out("linalg_matrix_rank")
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None, tol=None):
    """The number of singular values (eigenvalue magnitudes when ``hermitian``) above
    max(atol, rtol · σ_max); default rtol eps · max(m, n) (0 when atol > 0), as PyTorch.
    Returns int64 of shape A.shape[:-2]; no gradient."""
    a = _float_matrices(A, "torch.linalg.matrix_rank", square=False)
    if tol is not None:
        atol = tol
    with _quiet():
        s = np.abs(np.linalg.eigvalsh(a)) if hermitian else _svd(a, compute_uv=False)
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = 0.0 if atol is not None and np.any(np.asarray(atol) > 0) else \
            np.finfo(a.dtype).eps * max(m, n)
    smax = s.max(-1) if s.shape[-1] else np.zeros(s.shape[:-1], s.dtype)
    at = np.asarray(0.0 if atol is None else getattr(atol, "_data", atol))
    cut = np.maximum(at, smax * np.asarray(getattr(rtol, "_data", rtol)))[..., None]
    return to_tensor((s > cut).sum(-1).astype(np.int64))


@with_out("linalg_cond")
def cond(A, p=None, *, out=None):
    """The condition number of A in norm ``p`` (None/2: σ_max/σ_min, -2: σ_min/σ_max;
    'fro', 'nuc', inf, -inf, 1, -1: ‖A‖ ‖A⁻¹‖). Differentiable (leafgrad ops).

    Raises:
        RuntimeError: a non-square A for the norms other than 2 / -2; an unknown p.
    """
    # PyTorch's linalg_cond (LinearAlgebra.cpp), op for op: its graph, its values at a
    # singular A (inf, not an error) and its result for empty matrices (zeros)
    from .norms import matrix_norm
    from .norms import svdvals
    from .solvers import inv_ex
    a = _float_matrices(A, "linalg.cond", square=False)
    if p is not None and p not in (2, -2, "fro", "nuc", float("inf"), float("-inf"), 1, -1):
        raise RuntimeError("linalg.cond got an invalid norm type: %s" % (p,))
    if p is not None and p not in (2, -2):
        _float_matrices(A, "linalg.cond", square=True)
    if a.size == 0:
        return _C.zeros(a.shape[:-2], dtype=A.dtype.to_real())
    if p is None or p in (2, -2):
        s = svdvals(A)
        s_max, s_min = s.narrow(-1, 0, 1), s.narrow(-1, -1, 1)
        return (s_min / s_max if p == -2 else s_max / s_min).squeeze(-1)
    if p == "nuc":
        # the definition, not matrix_norm: PyTorch's (an inf in A would raise there)
        s = svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    inverse, info = inv_ex(A)
    inverse = inverse.masked_fill(to_tensor(info._data[..., None, None] > 0), float("inf"))
    res = matrix_norm(A, p) * matrix_norm(inverse, p)
    # 0 * inf: inf, as PyTorch (and NumPy)
    return res.nan_to_num_(float("inf"), float("inf"), float("-inf"))


def vander(x, *, N=None):
    """``torch.linalg.vander``: (*, n) -> (*, n, N), columns x⁰, x¹, …, x^(N-1) (as
    PyTorch, by a cumulative product of x, so the gradient at 0 is finite).

    Raises:
        RuntimeError: a 0-d input; N < 1 (N = 0 gives an empty result only for empty x).
    """
    from ..shape.joins import cat
    x = to_tensor(x)
    if x.dim() == 0:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = N if N is not None else x.shape[-1]
    if n < 1:
        raise RuntimeError("N must be greater than 1.")
    dt = x.dtype if x.dtype.is_floating_point or x.dtype.is_complex else None
    ones = _C.ones(tuple(x.shape) + (1,), dtype=x.dtype)
    if n == 1:
        return ones
    rest = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,))
    out = cat([ones, rest], -1).cumprod(-1)
    return out if dt is not None else out.to(x.dtype)
