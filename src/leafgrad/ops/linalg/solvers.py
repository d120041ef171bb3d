"""``torch.linalg`` triangular and LU solvers, least squares, the tensor forms and the
``_ex`` variants: solve_triangular, lu_factor(_ex), lu, lu_solve, torch.lu_unpack,
lstsq, tensorinv, tensorsolve, inv_ex, cholesky_ex, solve_ex (``linalg.solve`` itself
is with inv in ``inverse_det.py``).

Backward formulas (PyTorch's tools/autograd/derivatives.yaml and FunctionsManual.cpp),
written with leafgrad ops so that they differentiate again (second order, forward AD):
  solve_triangular (A X = B):  gB = A⁻ᴴ g (a triangular solve), gA = -gB Xᴴ, kept on A's
                               triangle (off the diagonal too when unitriangular)
                               (linalg_solve_triangular)
  lu_factor (A = P L U, square): gA = P L⁻ᴴ (tril₋₁(Lᴴ gL) + triu(gU Uᴴ)) U⁻ᴴ
                               (linalg_lu_backward, m == n)
  lstsq:                       gA = pinv_backward(g Bᴴ), gB = pinv(A)ᴴ g
                               (linalg_lstsq_backward)
``lu`` and ``lu_solve`` are written with ``lu_factor``, triangular solves and
permutations, so their gradients follow from those rules. LU uses partial pivoting with
LAPACK's rule (the first largest magnitude in the column), so pivots match PyTorch's.
"""

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ...autograd.graph import Node
from .._dispatch import record, record_multi, to_tensor
from .._named import grad_fn_named, _named
from .._out import with_out
from .._registry import add_form, defop
from ..reduce.reduction import _return_type
from ._lapack import _float_matrices, _lapack_layout, _swap
from .inverse_det import inv, solve

__all__ = ["solve_triangular", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "lu_unpack",
           "lstsq", "inv_ex", "cholesky_ex", "solve_ex"]

_lu_factor_t = _return_type("linalg_lu_factor", ("LU", "pivots"))
_lu_factor_ex_t = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_lu_t = _return_type("linalg_lu", ("P", "L", "U"))
_lu_unpack_t = _return_type("lu_unpack", ("P", "L", "U"))
_lstsq_t = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_inv_ex_t = _return_type("linalg_inv_ex", ("inverse", "info"))
_cholesky_ex_t = _return_type("linalg_cholesky_ex", ("L", "info"))
_solve_ex_t = _return_type("linalg_solve_ex", ("result", "info"))


def _same_dtype(name, A, B):
    if A._data.dtype != B._data.dtype:
        raise RuntimeError("%s: Expected A and B to have the same dtype, but found A of type %s "
                           "and B of type %s instead. Fix: B.to(A.dtype)"
                           % (name, _errors.type_name(A.dtype), _errors.type_name(B.dtype)))


# ---------------------------------------------------------------- solve_triangular
def _trsolve(a, b, upper, unit):
    """X with A X = B for triangular A (substitution, row by row; batch dims broadcast)."""
    n = a.shape[-1]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    x = np.zeros(batch + b.shape[-2:], np.result_type(a, b))
    with _quiet():
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            s = b[..., i, :]
            if upper and i + 1 < n:
                s = s - (a[..., i:i + 1, i + 1:] @ x[..., i + 1:, :])[..., 0, :]
            elif not upper and i:
                s = s - (a[..., i:i + 1, :i] @ x[..., :i, :])[..., 0, :]
            x[..., i, :] = s if unit else s / a[..., i, i][..., None]
    return x


def _tri_mask(g, upper, unit):
    k = 1 if unit else 0
    return g.triu(k) if upper else g.tril(-k)


def _solve_tri_backward(ctx, g):
    A, = ctx._checked_saved[:1]
    X = ctx.result
    upper, left, unit = ctx.args
    nA, nB = ctx.needs_input_grad
    gB = solve_triangular(A.mT, g, upper=not upper, left=left, unitriangular=unit)
    gA = None
    if nA:
        gA = _tri_mask(-(gB @ X.mT) if left else -(X.mT @ gB), upper, unit)
    return gA, (gB if nB else None)


class LinalgSolveTriangularBackward0(Node):
    __slots__ = ()
    saves = True
    backward = _solve_tri_backward


@with_out("linalg_solve_triangular")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (``left=False``: X A = B) for a triangular A, reading only its
    ``upper`` (or lower) triangle (and taking its diagonal as 1 with ``unitriangular``).

    Shapes: A (*, n, n), B (*, n, k) (left) or (*, k, n); batch dims broadcast. A zero on
    the diagonal gives inf/nan, as PyTorch (no check).

    Raises:
        RuntimeError: non-square A, shapes that do not fit (B is cast to A's dtype, as
            PyTorch). NotImplementedError: an integer A.
    """
    if A._data.dtype.kind not in "fc":
        raise NotImplementedError("\"triangular_solve_cpu\" not implemented for '%s'. Fix: "
                                  "convert first, e.g. A.double()" % _errors.type_name(A.dtype))
    a = _float_matrices(A, "linalg.solve_triangular")
    B = to_tensor(B)
    if B._data.dtype != a.dtype:    # PyTorch computes in A's dtype
        B = B.to(A.dtype)
    b = B._data
    if b.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError("linalg.solve_triangular: Incompatible shapes of A and B for the "
                           "equation %s (%dx%d and %dx%d)" % ("AX = B" if left else "XA = B",
                                                               n, n, b.shape[-2], b.shape[-1]))
    try:
        x = _trsolve(a, b, upper, unitriangular) if left else \
            _swap(_trsolve(_swap(a), _swap(b), not upper, unitriangular))
    except ValueError:
        raise _errors.ShapeError("linalg.solve_triangular: the batch dimensions of A %s and B %s "
                                 "cannot be broadcast together"
                                 % (list(a.shape[:-2]), list(b.shape[:-2]))) from None
    return record(LinalgSolveTriangularBackward0, _lapack_layout(x), (A, B), saved=(A,),
                  save_result=True,
                  args=(upper, left, unitriangular))


# ---------------------------------------------------------------- LU
def _getrf(a):
    """LU with partial pivoting (LAPACK getrf's pivot rule) of a batch of (m, n) arrays:
    (LU, 1-based int32 pivots, info)."""
    lu = np.array(a, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    flat = lu.reshape((-1, m, n))
    piv = np.zeros((flat.shape[0], k), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    rows = np.arange(flat.shape[0])
    with _quiet():
        for j in range(k):
            p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
            piv[:, j] = p + 1
            swap = p != j
            if swap.any():
                r = rows[swap]
                tmp = flat[r, j, :].copy()
                flat[r, j, :] = flat[r, p[swap], :]
                flat[r, p[swap], :] = tmp
            d = flat[:, j, j]
            zero = d == 0
            info[(info == 0) & zero] = j + 1
            safe = np.where(zero, 1, d)
            col = np.where(zero[:, None], flat[:, j + 1:, j], flat[:, j + 1:, j] / safe[:, None])
            flat[:, j + 1:, j] = col
            flat[:, j + 1:, j + 1:] -= col[:, :, None] * flat[:, j, None, j + 1:]
    return lu, piv.reshape(a.shape[:-2] + (k,)), info.reshape(a.shape[:-2])


def _perm_matrix(piv, m, dtype):
    """P (as PyTorch's lu_unpack: A = P L U) from 1-based LAPACK pivots."""
    flat = piv.reshape((-1, piv.shape[-1]))
    P = np.zeros((flat.shape[0], m, m), dtype)
    for b in range(flat.shape[0]):
        perm = np.arange(m)
        for j, p in enumerate(flat[b] - 1):
            perm[[j, p]] = perm[[p, j]]
        P[b, perm, np.arange(m)] = 1
    return P.reshape(piv.shape[:-1] + (m, m))


def _lu_backward(ctx, gLU, gpiv=None, ginfo=None):
    from ..._tensor import creation as F
    A, = ctx._checked_saved
    piv, = ctx.args
    LU = lu_factor_ex(A).LU       # recorded under create_graph: differentiable again
    m, n = LU.shape[-2:]
    if m != n:
        raise NotImplementedError("linalg.lu_factor: the gradient of a non-square LU is not "
                                  "implemented in leafgrad. Fix: factor a square matrix")
    L = LU.tril(-1) + F.eye(n, dtype=LU.dtype)
    U = LU.triu()
    gR = (L.mT @ gLU.tril(-1)).tril(-1) + (gLU.triu() @ U.mT).triu()
    gA = solve_triangular(L.mT, gR, upper=True, unitriangular=True)
    gA = solve_triangular(U.mT, gA, upper=False, left=False)
    P = to_tensor(_perm_matrix(piv, m, LU._data.dtype))
    return (P @ gA,)


class LinalgLuFactorExBackward0(Node):
    __slots__ = ("out_metas",)
    n_outputs = 3
    saves = True
    backward = _lu_backward


@with_out("linalg_lu_factor_ex")
def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: the LU factors packed in one matrix (L below the diagonal,
    its unit diagonal implied; U on and above), LAPACK's 1-based int32 pivots, and info
    (0, or the 1-based index of the first zero pivot).

    Raises:
        RuntimeError: integer input; ``pivot=False`` (only CUDA has it in PyTorch).
        torch.linalg.LinAlgError: a singular matrix with ``check_errors=True``.
    """
    a = _float_matrices(A, "linalg.lu_factor", square=False)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU. Fix: use pivot=True")
    lu, piv, info = _getrf(a)
    if check_errors and info.any():
        raise _errors.LinAlgError("torch.linalg.lu_factor: U[%d,%d] is zero and using it on "
                                  "lu_solve would result in a division by zero. If you still "
                                  "want to perform the factorization, consider calling "
                                  "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
                                  % ((int(info.reshape(-1)[info.reshape(-1) > 0][0]),) * 2))
    lu = _lapack_layout(lu)
    res = record_multi(LinalgLuFactorExBackward0, (lu, piv, info), (A,), saved=(A,),
                       args=(piv,), differentiable=(True, False, False))
    return _lu_factor_ex_t(*res)


@with_out("linalg_lu_factor")
def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)`` of :func:`lu_factor_ex`; a singular matrix raises.

    Raises:
        torch.linalg.LinAlgError: a zero pivot (singular matrix).
    """
    LU, piv, _ = lu_factor_ex(A, pivot=pivot, check_errors=True)
    return _lu_factor_t(LU, piv)


@defop("lu_unpack", method=False)
@with_out("lu_unpack")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack``: ``(P, L, U)`` with A = P L U from packed factors."""
    from ..._tensor import creation as F
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    L = U = P = None
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + F.eye(m, k, dtype=LU_data.dtype)
        U = LU_data[..., :k, :].triu()
    if unpack_pivots:
        P = to_tensor(_perm_matrix(LU_pivots._data.astype(np.int64), m, LU_data._data.dtype))
    return _lu_unpack_t(P, L, U)


@with_out("linalg_lu")
@grad_fn_named("LinalgLuBackward0")
def lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with A = P L U (L unit lower, U upper); differentiable through
    :func:`lu_factor_ex`. Shapes: A (*, m, n) -> P (*, m, m), L (*, m, k), U (*, k, n)."""
    LU, piv, _ = lu_factor_ex(A, pivot=pivot)
    return _lu_t(*lu_unpack(LU, piv))


@with_out("linalg_lu_solve")
@grad_fn_named("LinalgLuSolveBackward0")
def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (``adjoint``: Aᴴ X = B; ``left=False``: X A = B) from A's
    ``lu_factor``; differentiable in LU and B (through triangular solves)."""
    P, L, U = lu_unpack(LU, pivots)
    B = to_tensor(B)
    _same_dtype("linalg.lu_solve", LU, B)
    if left and not adjoint:        # A = P L U: X = U⁻¹ L⁻¹ Pᵀ B
        Y = solve_triangular(L, P.mT @ B, upper=False, unitriangular=True)
        return solve_triangular(U, Y, upper=True)
    if left:                        # Aᴴ = Uᴴ Lᴴ Pᵀ: X = P L⁻ᴴ U⁻ᴴ B
        Y = solve_triangular(U.mT, B, upper=False)
        return P @ solve_triangular(L.mT, Y, upper=True, unitriangular=True)
    if not adjoint:                 # X P L U = B
        Y = solve_triangular(U, B, upper=True, left=False)
        return solve_triangular(L, Y, upper=False, left=False, unitriangular=True) @ P.mT
    Y = B @ P                       # X Uᴴ Lᴴ Pᵀ = B
    Y = solve_triangular(L.mT, Y, upper=True, left=False, unitriangular=True)
    return solve_triangular(U.mT, Y, upper=False, left=False)


# ---------------------------------------------------------------- lstsq
def _pinv_full_rank(A):
    m, n = A.shape[-2:]
    from .inverse_det import inv
    if m >= n:
        return solve(A.mT @ A, A.mT)
    return A.mT @ inv(A @ A.mT)


def _pinv_backward(g, pinvA, A):
    """PyTorch's pinv_backward (FunctionsManual.cpp), real matrices."""
    m, n = A.shape[-2:]
    pinvAh, gh = pinvA.mT, g.mT
    if m <= n:
        K = gh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mT + KpinvAh - (A @ pinvA) @ KpinvAh + \
            (pinvAh @ pinvA) @ (gh - K @ A)
    K = pinvA @ gh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mT + (gh - A @ K) @ pinvA @ pinvAh + pinvAhK - pinvAhK @ pinvA @ A


def _lstsq_backward(ctx, gX, *rest):
    A, B = ctx._checked_saved
    vector, = ctx.args
    nA, nB = ctx.needs_input_grad
    Bm = B.unsqueeze(-1) if vector else B
    g = gX.unsqueeze(-1) if vector else gX
    pinvA = _pinv_full_rank(A)
    gA = _pinv_backward(g @ Bm.mT, pinvA, A) if nA else None
    gB = None
    if nB:
        gB = pinvA.mT @ g
        gB = gB[..., 0] if vector else gB
    return gA, gB


class LinalgLstsqBackward0(Node):
    __slots__ = ("out_metas",)
    n_outputs = 4
    saves = True
    backward = _lstsq_backward


@with_out("linalg_lstsq")
def lstsq(A, B, rcond=None, *, driver=None):
    """``(solution, residuals, rank, singular_values)`` of min ‖A X - B‖ (PyTorch's CPU
    drivers: 'gelsy' (default: rank, no residuals or singular values), 'gelsd'/'gelss'
    (all four), 'gels' (full rank: residuals only)). residuals are the squared column
    norms of A X - B when m > n and A has full rank, else empty. The gradient (full-rank A)
    is PyTorch's, through the pseudo-inverse.

    Raises:
        RuntimeError: integer inputs, dtypes or shapes that do not fit, an unknown driver.
    """
    a = _float_matrices(A, "linalg.lstsq", square=False)
    B = to_tensor(B)
    _same_dtype("torch.linalg.lstsq", A, B)
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    if driver is None:
        driver = "gelsy"
    if driver not in drivers:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    b = B._data
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    m, n = a.shape[-2:]
    if bm.shape[-2] != m:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    af = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1, m, n))
    bf = np.broadcast_to(bm, batch + bm.shape[-2:]).reshape((-1, m, bm.shape[-1]))
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    xs, ranks, svs = [], [], []
    if not np.isfinite(af).all() or not np.isfinite(bf).all():
        # LAPACK refuses them (PyTorch: RuntimeError from the illegal-argument check; NumPy:
        # its own LinAlgError)
        raise RuntimeError("torch.linalg.lstsq: Argument 4 has illegal value: the input "
                           "contains inf or nan. Fix: check the inputs with torch.isfinite")
    with _quiet():
        for am, bmat in zip(af, bf):
            x, _, rank, sv = np.linalg.lstsq(am.astype(np.float64), bmat.astype(np.float64),
                                             rcond=rcond)
            xs.append(x.astype(a.dtype))
            ranks.append(rank)
            svs.append(sv.astype(a.dtype))
    k = bm.shape[-1]
    X = np.array(xs, a.dtype).reshape(batch + (n, k))
    rank = np.array(ranks, np.int64).reshape(batch)
    full = bool((rank == min(m, n)).all())
    if m > n and full and driver != "gelsy":
        with _quiet():
            r = (af @ X.reshape((-1, n, k)) - bf)
        residuals = (r * r).sum(-2).reshape(batch + (k,)).astype(a.dtype)
        if vector:
            residuals = residuals[..., 0]
    else:
        residuals = np.zeros((0,), a.dtype)
    sing = (np.array(svs, a.dtype).reshape(batch + (min(m, n),))
            if driver in ("gelsd", "gelss") else np.zeros((0,), a.dtype))
    if driver == "gels":
        rank = np.zeros((0,), np.int64)
    outs = (X[..., 0] if vector else _lapack_layout(X, max(m, n)), residuals, rank, sing)
    res = record_multi(LinalgLstsqBackward0, outs, (A, B), saved=(A, B), args=(vector,),
                       differentiable=(True, False, False, False))
    return _lstsq_t(*res)


# ---------------------------------------------------------------- _ex variants
def _info_of(a):
    _, _, info = _getrf(a)
    return info


@with_out("linalg_inv_ex")
def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: info 0, or (a singular matrix) the 1-based index of the first
    zero pivot of its LU, with a nan inverse (PyTorch returns LAPACK's partial result).

    Raises:
        torch.linalg.LinAlgError: a singular matrix with ``check_errors=True``.
    """
    from .inverse_det import inv
    a = _float_matrices(A, "linalg.inv_ex")
    info = _info_of(a)
    if not info.any():
        return _inv_ex_t(inv(A), to_tensor(np.zeros(a.shape[:-2], np.int32)))
    if check_errors:
        inv(A)      # raises LinAlgError with its message
    return _inv_ex_t(to_tensor(np.full(a.shape, np.nan, a.dtype)), to_tensor(info))


@with_out("linalg_cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``(L, info)``: info 0, or the order of the first leading minor that is not
    positive definite (then L is nan there).

    Raises:
        torch.linalg.LinAlgError: not positive definite with ``check_errors=True``.
    """
    from .decompositions import cholesky
    a = _float_matrices(A, "linalg.cholesky_ex")
    flat = a.reshape((-1,) + a.shape[-2:])
    info = np.zeros(flat.shape[0], np.int32)
    with _quiet():
        for i, mat in enumerate(flat):
            for k in range(1, mat.shape[-1] + 1):
                try:
                    np.linalg.cholesky(mat[:k, :k])
                except np.linalg.LinAlgError:
                    info[i] = k
                    break
    info = info.reshape(a.shape[:-2])
    if not info.any():
        return _cholesky_ex_t(cholesky(A, upper=upper), to_tensor(info))
    if check_errors:
        cholesky(A, upper=upper)
    return _cholesky_ex_t(to_tensor(np.full(a.shape, np.nan, a.dtype)), to_tensor(info))


@with_out("linalg_solve_ex")
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)`` of :func:`linalg.solve` (info: as :func:`inv_ex`)."""
    a = _float_matrices(A, "linalg.solve_ex")
    info = _info_of(a)
    if not info.any():
        return _solve_ex_t(solve(A, B, left=left), to_tensor(np.zeros(a.shape[:-2], np.int32)))
    if check_errors:
        solve(A, B, left=left)
    shape = np.broadcast_shapes(np.shape(to_tensor(B)._data), a.shape[:-1] + (1,)) \
        if to_tensor(B)._data.ndim > 1 else to_tensor(B)._data.shape
    return _solve_ex_t(to_tensor(np.full(shape, np.nan, a.dtype)), to_tensor(info))


# ---------------------------------------------------------------- torch.lu, torch.lu_solve
# PyTorch keeps these deprecated spellings (torch/functional.py, BatchLinearAlgebra.cpp)
_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
    "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
    "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
    "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
    "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")
_LU_SOLVE_DEPRECATED = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve("
    "LU, pivots, B)")
_lu_with_info_t = _return_type("_lu_with_info", ("LU", "pivots", "info"))


@defop("lu", method=False, grad_fn="LinalgLuFactorExBackward0")
def lu_legacy(A, pivot=True, get_infos=False):
    """``torch.lu`` (deprecated): ``(LU, pivots)`` of :func:`lu_factor_ex`, plus ``info``
    with ``get_infos=True`` (a named tuple then). A singular matrix does not raise (its
    info is > 0), as PyTorch. Warns UserWarning (use ``torch.linalg.lu_factor``)."""
    _errors.warn(_LU_DEPRECATED, UserWarning)
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return _lu_with_info_t(LU, piv, info) if get_infos else (LU, piv)


def _lu_method(self, pivot=True, get_infos=False):
    """``Tensor.lu``: as :func:`lu_legacy`, but a plain tuple (PyTorch's torch/_tensor.py)."""
    _errors.warn(_LU_DEPRECATED, UserWarning)
    LU, piv, info = lu_factor_ex(self, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


add_form("lu", method=_lu_method)


@defop("lu_solve", out=True, grad_fn="LinalgLuSolveBackward0")
def lu_solve_legacy(input, LU_data, LU_pivots):
    """``torch.lu_solve(b, LU_data, LU_pivots)`` (deprecated): ``linalg.lu_solve(LU_data,
    LU_pivots, b)``, the arguments reversed. Warns UserWarning."""
    _errors.warn(_LU_SOLVE_DEPRECATED, UserWarning)
    return lu_solve(LU_data, LU_pivots, input)


@with_out("linalg_tensorsolve")
def tensorsolve(A, B, dims=None):
    """X with ``tensordot(A, X, X.ndim) == B``: X's shape is ``A.shape[B.ndim:]``; ``dims``
    (A's dims moved to the end first). Gradient: that of ``linalg.solve``.

    Raises:
        RuntimeError: ``prod(A.shape[B.ndim:]) != prod(B.shape)``; LinAlgError: singular.
    """
    a = A
    nd = A.dim()
    if dims is not None:
        dims = list(dims)
        a = a.movedim(dims, list(range(nd - len(dims), nd)))
    res_shape = tuple(a.shape[B.dim():])
    rp, op = _prod(res_shape), _prod(B.shape)
    if rp != op:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           " == prod(self.shape[:other.ndim]), but got %d != %d. Fix: A's "
                           "leading dims are B's shape" % (rp, op))
    res = solve(a.reshape(rp, rp), B.flatten())
    return _named(res.reshape(res_shape), "ViewBackward0")


def _prod(shape):
    return int(np.prod(shape, dtype=np.int64))


# ------------------------------------------------------------ tensorinv / tensorsolve
@with_out("linalg_tensorinv")
def tensorinv(A, ind=2):
    """The inverse of A for ``tensordot(A, X, ind)``: A reshaped to
    (prod(A.shape[:ind]), prod(A.shape[ind:])), inverted, reshaped to
    ``A.shape[ind:] + A.shape[:ind]``. Gradient: that of ``linalg.inv``.

    Raises:
        RuntimeError: ``ind <= 0``, or the two products differ; LinAlgError: a singular
            reshaped A (as ``linalg.inv``).
    """
    if ind <= 0:
        raise RuntimeError("Expected a strictly positive integer for 'ind', but got %d. Fix: "
                           "ind >= 1 (the number of leading dims of the result's inverse)"
                           % ind)
    shape = tuple(A.shape)
    start, end = _prod(shape[:ind]), _prod(shape[ind:])
    if start != end:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           "prod(self.shape[:ind]), but got %d != %d. Fix: choose ind so that "
                           "the two products are equal" % (end, start))
    res = inv(A.reshape(start, end))
    return _named(res.reshape(shape[ind:] + shape[:ind]), "ReshapeAliasBackward0")
