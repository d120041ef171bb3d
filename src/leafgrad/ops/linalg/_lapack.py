"""The helpers every ``ops/linalg`` file shares: the float-matrix argument check
(``_float_matrices``: PyTorch's dtype and shape errors), the singular-input error, and
LAPACK's column-major layout (``_swap``, ``_lapack_layout``).
"""

import numpy as np

from ..._core import errors as _errors


def _float_matrices(A, name, square=True):
    """A's array, after PyTorch's checks of linalg inputs."""
    x = A._data
    if x.dtype.kind not in "fc":
        raise RuntimeError("%s: Expected a floating point or complex tensor as input. Got %s. "
                           "Fix: convert it first, e.g. A.float()"
                           % (name, _errors.type_name(A.dtype)))
    if x.ndim < 2:
        raise RuntimeError("%s: The input tensor A must have at least 2 dimensions." % name)
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError("%s: A must be batches of square matrices, but they are %d by %d "
                           "matrices" % (name, x.shape[-2], x.shape[-1]))
    return x


_SVD_NONFINITE = ("linalg.svd: %sThe algorithm failed to converge because the input matrix "
                  "contained non-finite values. Fix: check the input for inf/nan "
                  "(torch.isfinite(A).all())")


def _svd(a, **kw):
    """``np.linalg.svd(a, **kw)`` (quiet). Non-finite input is settled before LAPACK, whose
    gesdd in NumPy's OpenBLAS never returns on an inf: a nan raises PyTorch's
    ``torch.linalg.LinAlgError`` (naming the batch element, as PyTorch); an inf without nan
    gives PyTorch's nan singular values (with identity singular vectors, so pinv, rank and
    cond come out as PyTorch's: zeros, 0, nan)."""
    from ..._core.quiet import quiet
    if a.size and not np.isfinite(a).all():
        return _svd_nonfinite(a, **kw)
    try:
        with quiet():
            return np.linalg.svd(a, **kw)
    except np.linalg.LinAlgError:
        raise _errors.LinAlgError(_SVD_NONFINITE % "") from None


def _svd_nonfinite(a, full_matrices=True, compute_uv=True, hermitian=False):
    nan_at = np.isnan(a).reshape((-1,) + a.shape[-2:]).any(axis=(1, 2))
    if nan_at.any():
        where = "(Batch element %d): " % int(np.argmax(nan_at)) if a.ndim > 2 else ""
        raise _errors.LinAlgError(_SVD_NONFINITE % where)
    from ..._core.quiet import quiet
    m, n = a.shape[-2:]
    k = min(m, n)
    real = np.zeros(0, a.dtype).real.dtype
    batch = a.shape[:-2]
    finite = np.isfinite(a).reshape((-1,) + a.shape[-2:]).all(axis=(1, 2))
    s = np.full(batch + (k,), np.nan, real)
    ku, kv = (m, n) if full_matrices else (k, k)
    u = np.broadcast_to(np.eye(m, ku, dtype=a.dtype), batch + (m, ku)).copy()
    vh = np.broadcast_to(np.eye(kv, n, dtype=a.dtype), batch + (kv, n)).copy()
    flat = a.reshape((-1, m, n))
    for i in np.flatnonzero(finite):      # the finite matrices of a batch as usual
        with quiet():
            r = np.linalg.svd(flat[i], full_matrices=full_matrices, compute_uv=compute_uv)
        idx = np.unravel_index(i, batch) if batch else ()
        if compute_uv:
            u[idx], s[idx], vh[idx] = r
        else:
            s[idx] = r
    return (u, s, vh) if compute_uv else s


def _singular(name, x, what):
    # which matrix of the batch (PyTorch names it for batches)
    flat = x.reshape((-1,) + x.shape[-2:])
    bad = next((i for i, m in enumerate(flat) if np.linalg.matrix_rank(m) < m.shape[-1]), 0)
    where = " (Batch element %d)" % bad if x.ndim > 2 else ""
    return _errors.LinAlgError(
        "%s%s: %s because the input matrix is singular. Fix: check the matrix (a zero row or "
        "column, linearly dependent rows), or regularise it, e.g. A + eps * torch.eye(n)."
        % (name, where, what))


def _swap(a):
    return np.swapaxes(a, -1, -2)


def _lapack_layout(a, ld=None):
    """``a`` laid out as PyTorch's LAPACK-backed results are: each matrix column-major
    (strides (1, ld) in the last two dims, batches C-ordered), so ``stride()``,
    ``is_contiguous()`` and which ``view`` calls work match PyTorch. ``ld``: the leading
    dimension when PyTorch returns a slice of a taller buffer (``lstsq``)."""
    rows = a.shape[-2] if a.ndim >= 2 else 0
    if a.ndim < 2:
        return a
    if ld is None or ld == rows:
        return _swap(np.ascontiguousarray(_swap(a)))
    buf = np.zeros(a.shape[:-2] + (a.shape[-1], ld), a.dtype)
    buf[..., :rows] = _swap(a)
    return _swap(buf[..., :rows])
