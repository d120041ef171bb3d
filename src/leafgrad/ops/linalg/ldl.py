"""``torch.linalg``'s LDL factorisation: ``ldl_factor``, ``ldl_factor_ex``, ``ldl_solve``.

``tensorinv`` / ``tensorsolve``: PyTorch's composites (ATen's LinearAlgebra.cpp): a
reshape to a square matrix, ``linalg.inv`` / ``linalg.solve``, a reshape back; their
gradients are those ops'.

``ldl_factor``: LAPACK's ``sytf2`` (lower, Bunch-Kaufman partial pivoting with
alpha = (1 + sqrt(17)) / 8; Bunch & Kaufman 1977, Anderson et al., LAPACK Users'
Guide), which gives ``A = P L D L^T P^T`` with 1x1 and 2x2 diagonal blocks; ``LD``
holds L's strict lower part and D, ``pivots`` LAPACK's 1-based interchanges (negative
for a 2x2 block), as PyTorch returns them. ``ldl_solve``: LAPACK's ``sytrs``. Neither
has a derivative in PyTorch (their nodes raise in backward, as there).
"""

import math

import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor
from .._dispatch import record
from .._out import with_out
from .._registry import no_derivative
from ._lapack import _float_matrices

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


# ------------------------------------------------------------ no derivative
def _no_grad_result(aten, arr, inputs):
    if any(t._requires_grad for t in inputs):
        return record(no_derivative(aten, "compute the gradient through linalg.solve / "
                                         "linalg.inv, which have one"), arr, tuple(inputs))
    return Tensor._make_plain(arr)


# ------------------------------------------------------------ LDL (sytf2 / sytrs)
def _sytf2(a):
    """LAPACK dsytf2, lower, on one matrix (a copy): (LD, ipiv 1-based, info)."""
    a = a.copy()
    n = a.shape[0]
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(np.abs(a[k + 1:, k])))
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                # the largest off-diagonal in row/column imax
                rowmax = np.max(np.abs(a[imax, k:imax]))
                if imax < n - 1:
                    rowmax = max(rowmax, np.max(np.abs(a[imax + 1:, imax])))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                # interchange rows and columns kk and kp of the trailing lower triangle
                if kp < n - 1:
                    a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
                seg = a[kk + 1:kp, kk].copy()
                a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
                a[kp, kk + 1:kp] = seg
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / a[k, k]
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] -= np.tril(d11 * np.outer(x, x))
                    a[k + 1:, k] *= d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                ak, ak1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                wk = d21 * (d11 * ak - ak1)
                wkp1 = d21 * (d22 * ak1 - ak)
                a[k + 2:, k + 2:] -= np.tril(np.outer(ak, wk) + np.outer(ak1, wkp1))
                a[k + 2:, k] = wk
                a[k + 2:, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return np.tril(a), ipiv, info


def _sytrs(ld, ipiv, b):
    """LAPACK dsytrs, lower: X with A X = b from sytf2's (LD, ipiv)."""
    b = b.copy()
    n = ld.shape[0]
    k = 0
    while k < n:                        # L D Y = P^T b
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
            b[k] /= ld[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            if k < n - 2:
                b[k + 2:] -= np.outer(ld[k + 2:, k], b[k]) + np.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / akm1k
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:                       # L^T P^T X = Y
        if ipiv[k] > 0:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= ld[k + 1:, k - 1] @ b[k + 1:]
            kp = -ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _real_only(x, name):
    if x.dtype.kind == "c":
        raise NotImplementedError("%s: complex inputs are not supported by leafgrad. Fix: "
                                  "factor the real and imaginary parts with linalg.solve"
                                  % name)


def _ldl(A, name):
    x = _float_matrices(A, name)
    _real_only(x, name)
    lead = x.shape[:-2]
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    ld = np.zeros_like(flat)
    piv = np.zeros(flat.shape[:2], np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    for i, m in enumerate(flat):
        ld[i], piv[i], info[i] = _sytf2(m)
    ld = ld.reshape(x.shape)
    ld = np.swapaxes(np.ascontiguousarray(np.swapaxes(ld, -1, -2)), -1, -2)  # LAPACK layout
    return ld, piv.reshape(lead + (n,)), info.reshape(lead)


def _ldl_types():
    from ..reduce.reduction import _return_type
    return (_return_type("linalg_ldl_factor", ("LD", "pivots")),
            _return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info")))


@with_out("linalg_ldl_factor_ex")
def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """LDL^T factorization with Bunch-Kaufman pivoting of symmetric A (*, n, n) (only its
    lower triangle is read): ``(LD, pivots, info)``; LD (*, n, n) in A's dtype with the
    upper triangle zero, pivots int32 (*, n), info int32 (*) (k > 0: D's k-th diagonal
    block is exactly singular). ``hermitian`` is the same for real inputs.

    Raises:
        RuntimeError: non-floating or non-square A; with ``check_errors``, a singular D.
        NotImplementedError: complex A (not supported here).
    """
    ld, piv, info = _ldl(A, "torch.linalg.ldl_factor_ex")
    if check_errors and info.any():
        raise RuntimeError(_singular_ldl("torch.linalg.ldl_factor_ex", info))
    _, ex_t = _ldl_types()
    return ex_t(_no_grad_result("linalg_ldl_factor_ex", ld, (A,)), Tensor._make_plain(piv),
                Tensor._make_plain(info))


def _singular_ldl(name, info):
    return ("%s: The factorization could not be completed because the input is not invertible "
            "(D's diagonal element %d is zero; LAPACK sytrf info=%d). Fix: use "
            "linalg.ldl_factor_ex to get info without raising, or linalg.lstsq"
            % (name, int(info[info != 0].flat[0]), int(info[info != 0].flat[0])))


@with_out("linalg_ldl_factor")
def ldl_factor(A, *, hermitian=False):
    """``ldl_factor_ex`` without ``info``: ``(LD, pivots)``.

    Raises:
        RuntimeError: a singular D (PyTorch raises RuntimeError too), non-floating or
            non-square A.
    """
    ld, piv, info = _ldl(A, "torch.linalg.ldl_factor")
    if info.any():
        raise RuntimeError(_singular_ldl("torch.linalg.ldl_factor", info))
    t, _ = _ldl_types()
    return t(_no_grad_result("linalg_ldl_factor_ex", ld, (A,)), Tensor._make_plain(piv))


@with_out("linalg_ldl_solve")
def ldl_solve(LD, pivots, B, *, hermitian=False):
    """X with A X = B from ``ldl_factor``'s ``(LD, pivots)`` (LAPACK sytrs). Shapes: LD
    (*, n, n), pivots (*, n) int32, B (*, n, k) (batch dims broadcast) -> (*, n, k).

    Raises:
        RuntimeError: pivots not integers, B's rows not n, dtypes that differ.
    """
    ld = _float_matrices(LD, "torch.linalg.ldl_solve")
    _real_only(ld, "torch.linalg.ldl_solve")
    p, b = pivots._data, B._data
    if B.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "-2). Fix: B is (*, n, k); a vector b is b.unsqueeze(-1)")
    if p.dtype.kind not in "iu":
        raise RuntimeError("torch.linalg.ldl_solve: Expected pivots to be integers. Got %s. "
                           "Fix: pass the int32 pivots of ldl_factor" % _errors.type_name(p.dtype))
    if b.dtype != ld.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type %s "
                           "and A of type %s instead. Fix: convert one, e.g. B.to(LD.dtype)"
                           % (_errors.type_name(b.dtype), _errors.type_name(ld.dtype)))
    n = ld.shape[-1]
    if b.shape[-2] != n:
        raise RuntimeError("Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix "
                           "is %d by %d but each b matrix is %d by %d. Fix: B has n rows"
                           % (n, n, b.shape[-2], b.shape[-1]))
    lead = np.broadcast_shapes(ld.shape[:-2], p.shape[:-1], b.shape[:-2])
    ldb = np.broadcast_to(ld, lead + ld.shape[-2:]).reshape((-1, n, n))
    pb = np.broadcast_to(p, lead + (n,)).reshape((-1, n)).astype(np.int64)
    bb = np.broadcast_to(b, lead + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    out = np.empty_like(bb)
    for i in range(bb.shape[0]):
        out[i] = _sytrs(ldb[i], pb[i], bb[i])
    return _no_grad_result("linalg_ldl_solve", out.reshape(lead + b.shape[-2:]), (LD, B))
