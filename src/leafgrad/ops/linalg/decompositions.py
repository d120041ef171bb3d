"""``torch.linalg`` decompositions and matrix functions: eigh / eigvalsh, svd, cholesky,
slogdet, matrix_exp (their derivative rules, real inputs), and the ones written with
other leafgrad ops: multi_dot, matrix_power, cross, vecdot, pinv, logdet.

Backward formulas (PyTorch's tools/autograd/derivatives.yaml and FunctionsManual.cpp):
  eigh:     gA = V (skew(Vᵀ gV) / E + diag(gL)) Vᵀ, skew(X) = (X - Xᵀ)/2,
            E_ij = L_j - L_i                               (linalg_eig_backward, hermitian)
  eig:      gA = V⁻ᴴ ((Vᴴ gV - Vᴴ V diag(re diag(Vᴴ gV))) / E* + diag(gL)) Vᴴ,
            E*_ij = conj(L_j - L_i), 1 on the diagonal      (linalg_eig_backward);
            the real part for a real A
  svd:      gA = U ((skew(Uᵀ gU) S + S skew(Vᵀ gV)) / E + diag(gS)) Vᵀ
            + (I - UUᵀ) gU S⁻¹ Vᵀ + U S⁻¹ gVᵀ (I - VVᵀ), skew(X) = X - Xᵀ,
            E_ij = S_j² - S_i²                             (svd_backward)
  cholesky: gA = sym(L⁻ᵀ Φ(Lᵀ gL) L⁻¹), Φ: lower triangle, diagonal halved
                                                           (cholesky_backward)
  slogdet:  gA = g_logabsdet · A⁻ᵀ                          (slogdet_backward)
  matrix_exp: gA = the top-right block of exp([[Aᵀ, G], [0, Aᵀ]])
                                                           (Mathias 1996; PyTorch's
                                                            backward_analytic_function_of_a_matrix)
The first four rules run on arrays and are not differentiable twice here
(NotImplementedError under ``create_graph=True``); ``matrix_exp``'s is (it calls
``matrix_exp``). Results where the decomposition is not unique (repeated eigen- or
singular values, eigenvector signs) are LAPACK's, as in PyTorch.
"""

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor import creation as _C
from ...autograd.graph import Node
from .._dispatch import record, record_multi, to_tensor
from .._named import grad_fn_named
from .._out import with_out
from .._registry import defop
from ..reduce.reduction import _return_type
from ._lapack import _float_matrices, _lapack_layout, _svd, _swap

__all__ = ["eig", "eigvals", "eigh", "eigvalsh", "svd", "cholesky", "slogdet", "logdet", "matrix_exp",
           "multi_dot", "matrix_power", "cross", "vecdot", "pinv"]

_eigh_t = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_eig_t = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
_svd_t = _return_type("linalg_svd", ("U", "S", "Vh"))
_slogdet_t = _return_type("linalg_slogdet", ("sign", "logabsdet"))


def _no_second_order(name, grads):
    from ...autograd.grad_mode import mode
    if mode.enabled and any(g is not None and g.requires_grad for g in grads):
        raise NotImplementedError(
            "leafgrad does not differentiate %s twice. Fix: keep create_graph=False through "
            "this op, or move this computation to PyTorch (leafgrad.bridge)" % name)


def _arr(g, like):
    return np.zeros(like.shape, like.dtype) if g is None else g._data


def _plain(a):
    from ..._tensor.tensor import Tensor
    return Tensor._make_plain(np.ascontiguousarray(a))


class LinalgEighBackward0(Node):
    __slots__ = ("out_metas",)
    n_outputs = 2

    def backward(ctx, gL, gV):
        _no_second_order("linalg.eigh", (gL, gV))
        L, V = ctx.args
        gl, gv = _arr(gL, L), _arr(gV, V)
        VhgV = _swap(V).conj() @ gv              # conj: no-op on real matrices
        VhgV = 0.5 * (VhgV - _swap(VhgV).conj())
        E = L[..., None, :] - L[..., :, None]
        idx = np.arange(L.shape[-1])
        E[..., idx, idx] = 1
        inner = VhgV / E
        inner[..., idx, idx] = gl
        return (_plain(V @ inner @ _swap(V).conj()),)


@with_out("linalg_eigh")
def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix (or batch), reading
    the ``UPLO`` triangle. Shapes: (*, n, n) -> ((*, n), (*, n, n)).

    Raises:
        RuntimeError: a non-square or integer input; ``UPLO`` not 'L' or 'U'.
        torch.linalg.LinAlgError: LAPACK did not converge.
    """
    if UPLO not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % UPLO)
    a = _float_matrices(A, "linalg.eigh")
    try:
        with _quiet():
            L, V = np.linalg.eigh(a, UPLO=UPLO)
    except np.linalg.LinAlgError:
        raise _errors.LinAlgError("linalg.eigh: The algorithm failed to converge because the "
                                  "input matrix is ill-conditioned or has too many repeated "
                                  "eigenvalues. Fix: check the input for inf/nan") from None
    # eigenvalues of a Hermitian matrix are real: float64 for complex128 (as PyTorch)
    L, V = L.astype(np.empty(0, a.dtype).real.dtype), _lapack_layout(V.astype(a.dtype))
    return _eigh_t(*record_multi(LinalgEighBackward0, (L, V), (A,), args=(L, V)))


def _complex_of(dtype):
    return np.result_type(dtype, np.complex64)


class LinalgEigBackward0(Node):
    __slots__ = ("out_metas",)
    n_outputs = 2

    def backward(ctx, gL, gV):
        _no_second_order("linalg.eig", (gL, gV))
        L, V, real_input = ctx.args
        n = L.shape[-1]
        idx = np.arange(n)
        Vh = _swap(V).conj()
        if gV is None:
            inner = np.zeros(V.shape, V.dtype)
        else:
            VhgV = Vh @ gV._data
            # a loss that depends on the eigenvectors' phases is ill-defined (PyTorch checks
            # the imaginary part of diag(Vᴴ gV) with allclose(..., 0, 1e-2, 1e-2))
            if not np.allclose(VhgV[..., idx, idx].imag, 0, rtol=1e-2, atol=1e-2):
                raise RuntimeError(
                    "linalg_eig_backward: The eigenvectors in the complex case are specified up "
                    "to multiplication by e^{i phi}. The specified loss function depends on this "
                    "quantity, so it is ill-defined. (Each eigenvector may be multiplied by any "
                    "unit complex number and still be one. Fix: make the loss depend on the "
                    "eigenvectors only through phase-free quantities, e.g. V.abs() or V @ V.mH)")
            inner = VhgV - Vh @ (V * VhgV[..., idx, idx].real[..., None, :])
            Lc = L.conj()
            E = Lc[..., None, :] - Lc[..., :, None]
            E[..., idx, idx] = 1
            inner = inner / E
        if gL is not None:
            inner[..., idx, idx] = gL._data
        with _quiet():
            gA = np.linalg.solve(Vh, inner @ Vh)
        return (_plain(gA.real if real_input else gA),)


def _eig(A, name, vectors):
    a = _float_matrices(A, name)
    if a.dtype == np.float16:
        raise NotImplementedError('"linalg_eig_out_cpu" not implemented for \'Half\'')
    cdt = _complex_of(a.dtype)
    if a.size and not np.isfinite(a).all():
        if vectors:
            raise RuntimeError(
                "torch.linalg.eig: input tensor should not contain infs or NaNs. (LAPACK's "
                "geev cannot start from a non-finite matrix. Fix: check the input with "
                "torch.isfinite(A).all())")
        # eigvals: PyTorch hands the matrix to LAPACK and returns what comes back (nan
        # for most inputs); leafgrad gives nan for every eigenvalue of such a matrix
        bad = ~np.isfinite(a).all(axis=(-2, -1))
        a = np.where(bad[..., None, None], 0, a)
    else:
        bad = None
    if a.shape[-1] == 0:
        L, V = np.zeros(a.shape[:-1], cdt), np.zeros(a.shape, cdt)
    else:
        with _quiet():
            L, V = np.linalg.eig(a)
        L, V = L.astype(cdt), V.astype(cdt)
    if bad is not None and bad.any():
        L[bad] = complex("nan+nanj")
    V = _lapack_layout(V)
    real_input = a.dtype.kind == "f"
    return record_multi(LinalgEigBackward0, (L, V), (A,), args=(L, V, real_input))


@with_out("linalg_eig")
def eig(A, *, out=None):
    """Eigenvalues and right eigenvectors of a square matrix (or batch), LAPACK's geev as
    in PyTorch: (*, n, n) -> ((*, n), (*, n, n)), complex64 for float32 input, complex128
    for float64 (always complex, as PyTorch), each eigenvector of unit norm. Which multiple
    of an eigenvector comes back (its sign or phase) is LAPACK's, as in PyTorch.

    Raises:
        RuntimeError: a non-square or integer input; a non-finite input (PyTorch's message);
            in backward, a loss that depends on the eigenvectors' phases.
        NotImplementedError: float16 (as PyTorch); ``create_graph=True`` through it.
    """
    return _eig_t(*_eig(A, "linalg.eig", True))


@with_out("linalg_eigvals")
def eigvals(A, *, out=None):
    """Eigenvalues of a square matrix (see :func:`eig`), complex; the gradient is eig's with
    no eigenvector term (``LinalgEigBackward0``, as PyTorch). A matrix with inf or nan gives
    nan eigenvalues (PyTorch returns what LAPACK gives for it, mostly nan).

    Raises:
        RuntimeError: a non-square or integer input. NotImplementedError: float16.
    """
    return _eig(A, "linalg.eigvals", False)[0]


@with_out("linalg_eigvalsh")
def eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) of a symmetric matrix; gradient V diag(g) Vᵀ."""
    return eigh(A, UPLO).eigenvalues


class LinalgSvdBackward1(Node):
    __slots__ = ("out_metas",)
    n_outputs = 3

    def backward(ctx, gU, gS, gVh):
        _no_second_order("linalg.svd", (gU, gS, gVh))
        U, S, Vh = ctx.args
        m, n = U.shape[-2], Vh.shape[-1]
        k = S.shape[-1]
        V = _swap(Vh)
        gu = _arr(gU, U)
        gs = _arr(gS, S)
        gv = _swap(_arr(gVh, Vh))
        Ut_gU = _swap(U) @ gu
        Vt_gV = _swap(V) @ gv
        skewU = Ut_gU - _swap(Ut_gU)
        skewV = Vt_gV - _swap(Vt_gV)
        S2 = S * S
        E = S2[..., None, :] - S2[..., :, None]
        idx = np.arange(k)
        E[..., idx, idx] = 1
        inner = (skewU * S[..., None, :] + S[..., :, None] * skewV) / E
        inner[..., idx, idx] = gs
        gA = U @ inner @ Vh
        if m > k:
            gA = gA + ((gu - U @ Ut_gU) / S[..., None, :]) @ Vh
        if n > k:
            gA = gA + U @ _swap((gv - V @ Vt_gV) / S[..., None, :])
        return (_plain(gA),)


@with_out("linalg_svd")
def svd(A, full_matrices=True, *, driver=None, out=None):
    """``A = U diag(S) Vh`` (S descending). Shapes: (*, m, n) -> U (*, m, m) or (*, m, k),
    S (*, k), Vh (*, n, n) or (*, k, n), k = min(m, n). Gradients need
    ``full_matrices=False`` when m != n (PyTorch raises the same way).
    """
    a = _float_matrices(A, "linalg.svd", square=False)
    U, S, Vh = _svd(a, full_matrices=full_matrices)
    U, Vh = _lapack_layout(U.astype(a.dtype)), _lapack_layout(Vh.astype(a.dtype))
    S = S.astype(a.dtype)
    m, n = a.shape[-2:]
    if full_matrices and m != n and A.requires_grad:
        # PyTorch's rule: only the reduced SVD is differentiable for non-square inputs
        k = min(m, n)
        reduced = (U[..., :, :k], S, Vh[..., :k, :])
        outs = record_multi(LinalgSvdBackward1, reduced, (A,), args=reduced)
        from ..._tensor.tensor import Tensor
        return _svd_t(Tensor._make_plain(U), outs[1], Tensor._make_plain(Vh))
    return _svd_t(*record_multi(LinalgSvdBackward1, (U, S, Vh), (A,), args=(U, S, Vh)))


class LinalgCholeskyExBackward0(Node):
    __slots__ = ()

    def backward(ctx, gL):
        _no_second_order("linalg.cholesky", (gL,))
        L, upper = ctx.args
        if upper:
            L, g = _swap(L), _swap(gL._data)
        else:
            g = gL._data
        phi = np.tril(_swap(L) @ g)
        n = L.shape[-1]
        idx = np.arange(n)
        phi[..., idx, idx] *= 0.5
        Linv = np.linalg.inv(L)
        gA = _swap(Linv) @ phi @ Linv
        return (_plain(0.5 * (gA + _swap(gA))),)


@with_out("linalg_cholesky")
def cholesky(A, *, upper=False, out=None):
    """The lower (``upper=True``: upper) triangular L with A = L Lᵀ, for a symmetric
    positive-definite A (or batch).

    Raises:
        torch.linalg.LinAlgError: A is not positive-definite (with the order of the first
            minor that is not).
    """
    a = _float_matrices(A, "linalg.cholesky")
    try:
        with _quiet():
            L = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        flat = a.reshape((-1,) + a.shape[-2:])
        order = 1
        for m in flat:
            for k in range(1, m.shape[-1] + 1):
                try:
                    np.linalg.cholesky(m[:k, :k])
                except np.linalg.LinAlgError:
                    order = k
                    break
            else:
                continue
            break
        raise _errors.LinAlgError(
            "linalg.cholesky: The factorization could not be completed because the input is "
            "not positive-definite (the leading minor of order %d is not positive-definite). "
            "Fix: check that A is symmetric positive-definite, e.g. add eps * I" % order) from None
    L = _lapack_layout(L.astype(a.dtype))
    if upper:
        L = _lapack_layout(_swap(L))
    return record(LinalgCholeskyExBackward0, L, (A,), args=(L, upper))


class LinalgSlogdetBackward0(Node):
    __slots__ = ()
    saves = True

    def backward(ctx, glogabs):      # the sign carries no gradient
        (A,) = ctx._checked_saved
        from .inverse_det import inv
        return (glogabs.unsqueeze(-1).unsqueeze(-1) * inv(A).mT,)


def _torch_slogdet(A):
    """``torch.slogdet``: as ``linalg.slogdet``, PyTorch's ``return_types.slogdet``."""
    return _return_type("slogdet", ("sign", "logabsdet"))(*slogdet(A))


defop("slogdet", _torch_slogdet, grad_fn="LinalgSlogdetBackward0", out=True)


@with_out("linalg_slogdet")
def slogdet(A, *, out=None):
    """(sign, log|det A|) of a square matrix (or batch); differentiable through
    log|det| (gradient g · A⁻ᵀ, differentiable again)."""
    a = _float_matrices(A, "linalg.slogdet")
    with _quiet():
        sign, logabs = np.linalg.slogdet(a)
    sign = np.asarray(sign, a.dtype)
    logabs = np.asarray(logabs, a.dtype)
    res = record_multi(LinalgSlogdetBackward0, (sign, logabs), (A,), saved=(A,),
                       differentiable=(False, True))
    return _slogdet_t(*res)


@defop("logdet")
def logdet(A):
    """log det A (nan for a negative determinant, -inf for a singular A), as PyTorch."""
    sign, logabs = slogdet(A)
    from ..elementwise.pointwise import where
    if A.is_complex():
        return sign.log() + logabs
    # PyTorch's: where(sign == -1, nan, logabsdet) (WhereBackward0 on top)
    return where(sign == -1, _C.full_like(logabs, float("nan")), logabs)


# -------------------------------------------------------------- matrix_exp
# Padé approximants for scaling and squaring (Higham 2005, "The scaling and squaring
# method for the matrix exponential revisited", Table 2.3 / Algorithm 2.3)
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _expm(a):
    """exp of each matrix in ``a`` (float64 arithmetic, cast back)."""
    dt = a.dtype
    x = a.astype(np.float64)
    n = x.shape[-1]
    eye = np.broadcast_to(np.eye(n), x.shape)
    norm = np.abs(x).sum(axis=-2).max(axis=-1) if x.size else np.zeros(x.shape[:-2])
    s = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300) / _THETA13))).astype(int)
    s = np.where(norm == 0, 0, s)
    x = x / (2.0 ** s)[..., None, None]
    b = _PADE13
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2
             + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    smax = int(s.max()) if s.size else 0
    for i in range(smax):
        sq = r @ r
        r = np.where((s > i)[..., None, None], sq, r)
    return r.astype(dt)


class LinalgMatrixExpBackward0(Node):
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        (A,) = ctx._checked_saved
        from ..shape.joins import cat
        n = A.shape[-1]
        top = cat([A.mT, g], -1)
        bottom = cat([_C.zeros_like(g), A.mT], -1)
        big = matrix_exp(cat([top, bottom], -2))
        return (big[..., :n, n:],)


@defop("matrix_exp", grad_fn="LinalgMatrixExpBackward0")
def matrix_exp(A):
    """exp(A) of a square matrix (or batch), by scaling and squaring with a degree-13 Padé
    approximant; differentiable to any order."""
    a = _float_matrices(A, "linalg.matrix_exp")
    with _quiet():
        out = _expm(a)
    return record(LinalgMatrixExpBackward0, out, (A,), saved=(A,))


# ---------------------------------------------------- written with other ops
@with_out("linalg_multi_dot")
def multi_dot(tensors, *, out=None):
    """The product of a list of matrices (the first may be 1-D, as may the last).

    Raises:
        RuntimeError: fewer than two tensors; inner tensors that are not 2-D.
    """
    if len(tensors) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got %d" % len(tensors))
    for i, t in enumerate(tensors):
        if 0 < i < len(tensors) - 1 and t.dim() != 2:
            raise RuntimeError("multi_dot(): tensor %d must be 2D but got %dD" % (i, t.dim()))
    # PyTorch's multi_dot_impl (LinearAlgebra.cpp): 1-D ends as a row / a column, the
    # product in the cheapest order (two: one mm; three: the cheaper of (AB)C and A(BC);
    # more: the matrix-chain order, first split on ties), then a view to the result's
    # shape; so its graph (ViewBackward0 on top) and rounding are PyTorch's
    ts = list(tensors)
    first, last = ts[0].dim(), ts[-1].dim()
    for what, nd in (("first", first), ("last", last)):
        if nd not in (1, 2):
            raise RuntimeError("multi_dot(): the %s tensor must be 1D or 2D but got %dD"
                               % (what, nd))
    out_shape = ([ts[0].shape[0]] if first == 2 else []) + \
        ([ts[-1].shape[1]] if last == 2 else [])
    if first == 1:
        ts[0] = ts[0].unsqueeze(0)
    if last == 1:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i in range(len(ts) - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise RuntimeError("multi_dot(): tensors %d and %d with shapes %s and %s cannot be "
                               "multiplied" % (i, i + 1, list(tensors[i].shape),
                                               list(tensors[i + 1].shape)))
    if len(ts) == 2:
        res = ts[0].mm(ts[1])
    elif len(ts) == 3:
        a, b = ts[0].shape
        c, d = ts[2].shape
        cost_1 = (a * c) * (b + d)      # (AB)C
        cost_2 = (b * d) * (a + c)      # A(BC)
        res = ts[0].mm(ts[1].mm(ts[2])) if cost_1 > cost_2 else ts[0].mm(ts[1]).mm(ts[2])
    else:
        res = _chain(ts, _chain_order(ts), 0, len(ts) - 1)
    return res.view(out_shape)


def _chain_order(ts):
    """The split table of the cheapest parenthesisation (the classic O(n^3) matrix-chain
    order: cost of (i..k)(k+1..j) is p_i p_(k+1) p_(j+1); the first k wins ties)."""
    n = len(ts)
    p = [t.shape[0] for t in ts] + [ts[-1].shape[1]]
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = None
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if m[i][j] is None or q < m[i][j]:
                    m[i][j], s[i][j] = q, k
    return s


def _chain(ts, s, i, j):
    if i == j:
        return ts[i]
    return _chain(ts, s, i, s[i][j]).mm(_chain(ts, s, s[i][j] + 1, j))


@with_out("linalg_matrix_power")
def matrix_power(A, n, *, out=None):
    """A to the integer power n of a square matrix (or batch): ``torch.linalg.matrix_power``,
    ``torch.matrix_power``, ``Tensor.matrix_power``.

    As PyTorch's: n = 0 gives the identity copied into a clone of A (``CopyBackwards``, a
    zero gradient), n = 1 a clone, n < 0 powers of ``inv(A)``, else binary powering with
    matrix products. Integer matrices work for n >= 0.

    Raises:
        TypeError: n not an int. RuntimeError: A below 2-D or not square; n < 0 on an
        integer matrix. LinAlgError: n < 0 on a singular matrix.
    """
    from .inverse_det import inv
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError("matrix_power(): argument 'n' (position 2) must be int, not %s. Fix: "
                        "pass a Python int, e.g. int(n)" % type(n).__name__)
    _float_matrices(A, "linalg.matrix_power") if A._data.dtype.kind in "fc" else None
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices")
    if n == 0:
        eye = _C.eye(A.shape[-1], dtype=A.dtype)
        return A.clone().copy_(eye.expand(A.shape) if A.dim() > 2 else eye)
    if n == 1:
        return A.clone()
    base = inv(A) if n < 0 else A
    n = abs(n)
    result = None
    while n:                      # binary powering, as PyTorch
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


defop("matrix_power", matrix_power)


@with_out("linalg_cross")
@grad_fn_named("LinalgCrossBackward0")
def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along ``dim`` (broadcasting the other dims).

    Raises:
        RuntimeError: ``dim`` not of size 3 in both inputs.
    """
    from ..shape.views import broadcast_tensors
    a, b = broadcast_tensors(input, to_tensor(other))
    d = dim if dim >= 0 else dim + a.dim()
    if a.dim() == 0 or not 0 <= d < a.dim() or a.shape[d] != 3:
        raise RuntimeError("linalg.cross: inputs dimension %d must have length 3. Got %s and %s"
                           % (dim, input.shape[dim] if input.dim() else 0,
                              other.shape[dim] if other.dim() else 0))
    i1 = _C.tensor([1, 2, 0])
    i2 = _C.tensor([2, 0, 1])
    return a.index_select(d, i1) * b.index_select(d, i2) - \
        a.index_select(d, i2) * b.index_select(d, i1)


@with_out("linalg_vecdot")
def vecdot(x, y, *, dim=-1, out=None):
    """Σ x·y along ``dim`` (real inputs), broadcasting."""
    return (x * y).sum(dim)


@with_out("linalg_pinv")
@grad_fn_named("LinalgPinvBackward0")
def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None, rcond=None):
    """The Moore-Penrose pseudo-inverse, through the reduced SVD: singular values below
    max(atol, rtol · σ_max) (default rtol: eps · max(m, n)) count as 0."""
    from ..elementwise.pointwise import clamp, where
    m, n = A.shape[-2:]
    U, S, Vh = svd(A, full_matrices=False)
    if rcond is not None:
        rtol = rcond
    smax = S.max(-1, keepdim=True).values if S.shape[-1] else S
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(A._data.dtype).eps * max(m, n)
    cut = clamp(smax * rtol, min=atol or 0.0)
    keep = S > cut
    sinv = where(keep, 1 / where(keep, S, _C.ones_like(S)), _C.zeros_like(S))
    return (Vh.mT * sinv.unsqueeze(-2)) @ U.mT


_warned_cross = []


def _cross_method(self, other, dim=None):
    """``Tensor.cross``: ``torch.cross`` without ``out=`` (PyTorch's methods take none)."""
    return torch_cross(self, other, dim)


@defop("cross", method=_cross_method, numbers="none")
@with_out("cross")
def torch_cross(input, other, dim=None, *, out=None):
    """``torch.cross``: as ``linalg.cross``, but without ``dim`` it takes the first dim of
    size 3 (with PyTorch's deprecation warning)."""
    if dim is None:
        if not _warned_cross:       # PyTorch warns once per process (TORCH_WARN_ONCE)
            _warned_cross.append(True)
            _errors.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                         "Please either pass the dim explicitly or simply use "
                         "torch.linalg.cross.\nThe default value of dim will change to agree "
                         "with that of linalg.cross in a future release.")
        shape = input.shape if input.dim() >= other.dim() else other.shape
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return cross(input, other, dim=dim)


@defop("dist", numbers="none")
@grad_fn_named("DistBackward0")
def dist(input, other, p=2):
    """``torch.dist``: the p-norm of ``input - other`` (broadcast), a 0-d tensor."""
    from .norms import norm
    return norm(input - to_tensor(other), p)


@with_out("svd")
def _torch_svd(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd`` (deprecated in PyTorch for ``linalg.svd``): ``(U, S, V)`` with V, not
    Vh; ``some=False`` gives full U and V; ``compute_uv=False`` gives zero-filled U, V."""
    U, S, Vh = svd(input, full_matrices=not some)
    V = Vh.mT
    if not compute_uv:
        U, V = _C.zeros_like(U.detach()), _C.zeros_like(V.detach())
        S = S.detach() if not input.requires_grad else S
    return _return_type("svd", ("U", "S", "V"))(U, S, V)


defop("svd", _torch_svd, grad_fn="LinalgSvdBackward0")
