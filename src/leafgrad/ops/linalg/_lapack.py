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


def _svd(a, **kw):
    """``np.linalg.svd(a, **kw)`` (quiet); a non-converging gesdd (inf/nan input) raises
    PyTorch's ``torch.linalg.LinAlgError``, as every SVD-based op of PyTorch does, not
    NumPy's class."""
    from ..._core.quiet import quiet
    try:
        with quiet():
            return np.linalg.svd(a, **kw)
    except np.linalg.LinAlgError:
        raise _errors.LinAlgError(
            "linalg.svd: The algorithm failed to converge because the input matrix contained "
            "non-finite values. Fix: check the input for inf/nan (torch.isfinite(A).all())"
        ) from None


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
