"""Diagonals and triangles: diagonal, diag, diag_embed, diagflat, tril, triu.

``diagonal`` is a strided view (DiagonalBackward0: the gradient written back on the
diagonal of zeros); ``diag_embed`` writes the diagonal into zeros (DiagEmbedBackward0:
the gradient's diagonal); ``diag`` is either, by the input's rank; ``tril``/``triu``
mask the gradient with the same triangle. (``torch.linalg.diagonal``:
``ops/linalg/diagonal.py``.)
"""

import numpy as np

from ..._tensor.tensor import _wrap_dim
from .._dispatch import record
from .._registry import defop, node
from .views import _as_view


def _diag_view(a, offset, d1, d2):
    # NumPy's diagonal is a view flagged read-only; it shares a's memory, so it
    # may be written when a may (PyTorch's diagonal is a writable view)
    v = np.diagonal(a, offset, d1, d2)
    if a.flags.writeable and not v.flags.writeable and type(v) is np.ndarray:
        v.flags.writeable = True   # (a meta tensor's array has no memory and fixed flags)
    return v


def _diagonal_backward(ctx, g):
    shape, offset, d1, d2 = ctx.args
    return (_diagonal_scatter(g, shape, offset, d1, d2),)


DiagonalBackward0 = node("DiagonalBackward0", _diagonal_backward, saves=False)


def _diagonal_np(ctx, g):
    shape, offset, d1, d2 = ctx.args
    out = np.zeros(shape, g.dtype)
    _diag_view(out, offset, d1, d2)[...] = g
    return (out,)


DiagonalBackward0.np_backward = _diagonal_np


def _scatter_backward(ctx, g):
    offset, d1, d2 = ctx.args
    return (diagonal(g, offset, d1, d2),)


DiagonalScatterBackward0 = node("DiagonalBackwardBackward0", _scatter_backward, saves=False)


DiagonalScatterBackward0.np_backward = lambda ctx, g: (np.diagonal(g, *ctx.args).copy(),)


def _diagonal_scatter(g, shape, offset, d1, d2):
    """zeros of ``shape`` with g on the diagonal: the adjoint of ``diagonal``."""
    out = np.zeros(shape, g._data.dtype)
    _diag_view(out, offset, d1, d2)[...] = g._data
    return record(DiagonalScatterBackward0, out, (g,), args=(offset, d1, d2))


@defop("diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal ``offset`` of the matrices spanned by ``dim1`` and ``dim2``, as a
    view whose last dim is the diagonal (``torch.diagonal``; DiagonalBackward0).

    Raises:
        RuntimeError: when dim1 and dim2 are the same dim.
    """
    x = input._data
    d1, d2 = _wrap_dim(dim1, x.ndim), _wrap_dim(dim2, x.ndim)
    if d1 == d2:
        raise RuntimeError("diagonal dimensions cannot be identical %d, %d" % (dim1, dim2))
    out = _diag_view(x, offset, d1, d2)
    return _as_view(record(DiagonalBackward0, out, (input,), args=(x.shape, offset, d1, d2)),
                    input)


# -------------------------------------------------------------------- diag
def _diag_len(shape, k):
    m, n = shape
    return max(0, min(m, n - k) if k >= 0 else min(m + k, n))


def _diag_index(shape, k):
    """Row and column indices of diagonal ``k`` of a matrix of ``shape``."""
    i = np.arange(_diag_len(shape, k))
    return (i, i + k) if k >= 0 else (i - k, i)


def _embed(v, k, shape):
    """Differentiable: a ``shape`` matrix of zeros with ``v`` on diagonal ``k``."""
    out = np.zeros(shape, v._data.dtype)
    out[_diag_index(shape, k)] = v._data
    return record(_DiagOfVectorBackward0, out, (v,), args=k)


def _extract(m, k):
    """Differentiable: diagonal ``k`` of the matrix ``m`` (a copy)."""
    x = m._data
    return record(DiagonalBackward0_copy, x[_diag_index(x.shape, k)], (m,),
                  args=(x.shape, k))


_DiagOfVectorBackward0 = node("DiagEmbedBackward0", lambda ctx, g: (_extract(g, ctx.args),), saves=False)


DiagonalBackward0_copy = node("DiagonalBackward0_copy",
                               lambda ctx, g: (_embed(g, ctx.args[1], ctx.args[0]),), saves=False)


@defop("diag", out=True)
def diag(input, diagonal=0):
    """1-D (n,) -> 2-D (n+|k|, n+|k|) with the vector on diagonal ``k``; 2-D (m, n) ->
    1-D diagonal ``k`` (empty when off the matrix). Same dtype as the input.

    The gradient of one is the other (PyTorch: DiagEmbedBackward0 /
    DiagonalBackward0_copy).

    Raises:
        RuntimeError: for an input that is not 1-D or 2-D.
    """
    nd = input._data.ndim
    k = int(diagonal)
    if nd == 1:
        n = input._data.shape[0] + abs(k)
        return _embed(input, k, (n, n))
    if nd == 2:
        return _extract(input, k)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % nd)


# --------------------------------------------------------------- diagonals
def _diag_embed_backward(ctx, g):
    offset, d1, d2 = ctx.args
    return (diagonal(g, offset, d1, d2),)


DiagEmbedBackward0 = node("DiagEmbedBackward0", _diag_embed_backward, saves=False)


@defop("diag_embed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonals (``offset``, in the planes of ``dim1``, ``dim2`` of the
    output, which has one dim more) are ``input``'s last dim; zeros elsewhere.

    Raises:
        RuntimeError: ``dim1`` and ``dim2`` the same dim.
    """
    x = input._data
    nd = x.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError("diagonal dimensions cannot be identical %d, %d. Fix: two "
                           "different dims" % (dim1, dim2))
    n = x.shape[-1] if x.ndim else 1
    m = n + abs(offset)
    batch = x.shape[:-1]
    z = np.zeros(batch + (m, m), x.dtype)
    i = np.arange(n)
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    z[..., r, c] = x if x.ndim else x.reshape(1)
    # the two matrix dims go to d1, d2 (the batch dims keep their order)
    rest = [a for a in range(nd) if a not in (d1, d2)]
    perm = [0] * nd
    for src, dst in zip(range(len(batch)), rest):
        perm[dst] = src
    perm[d1], perm[d2] = len(batch), len(batch) + 1
    out = np.ascontiguousarray(np.transpose(z, perm))
    return record(DiagEmbedBackward0, out, (input,), args=(offset, d1, d2))


@defop("diagflat")
def diagflat(input, offset=0):
    """A square matrix with the flattened input on diagonal ``offset``."""
    return diag_embed(input.reshape(-1), offset, 0, 1)


def _tril_backward(ctx, g):
    k, upper = ctx.args
    return (g.triu(k) if upper else g.tril(k),)


TrilBackward0 = node("TrilBackward0", _tril_backward, saves=False)


TriuBackward0 = node("TriuBackward0", _tril_backward, saves=False)


def _check_matrix(input, name):
    if input._data.ndim < 2:
        raise RuntimeError("%s: input tensor must have at least 2 dimensions (got %d). Fix: "
                           "reshape it to a matrix first (x.reshape(1, -1)), or build one with "
                           "torch.diag(x)" % (name, input._data.ndim))


@defop("tril", out=True, inplace=True)
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (others zeroed). Raises RuntimeError below 2-D."""
    _check_matrix(input, "tril")
    return record(TrilBackward0, np.tril(input._data, diagonal), (input,), args=(diagonal, False))


@defop("triu", out=True, inplace=True)
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (others zeroed). Raises RuntimeError below 2-D."""
    _check_matrix(input, "triu")
    return record(TriuBackward0, np.triu(input._data, diagonal), (input,), args=(diagonal, True))
