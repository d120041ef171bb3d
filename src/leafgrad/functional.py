"""``torch.functional``: the module PyTorch keeps its Python-level tensor functions in.

Most of them are leafgrad ops re-exported (``einsum``, ``meshgrid``, ``split``, ...);
the ones below are written with leafgrad ops, so they differentiate to any order.
Graph difference: ``block_diag`` records ``CatBackward0`` nodes where PyTorch has one
``BlockDiagBackward0``; the gradients are the same.
"""
import numpy as np

from ._tensor import creation as _C
from ._core import dtype as _dtype
from ._api import functions as _F
from ._tensor.tensor import Tensor
from ._core import errors as _errors

broadcast_shapes = _F.broadcast_shapes
broadcast_tensors = _F.broadcast_tensors
cdist = _F.cdist
einsum = _F.einsum
meshgrid = _F.meshgrid
norm = _F.norm
split = _F.split
stft = _F.stft
istft = _F.istft
tensordot = _F.tensordot
unique = _F.unique
unique_consecutive = _F.unique_consecutive

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "broadcast_tensors", "cartesian_prod", "cdist", "chain_matmul", "einsum", "meshgrid",
           "norm", "split", "stft", "istft", "tensordot", "unique", "unique_consecutive", "unravel_index"]


def _atleast(tensors, shape_of):
    if len(tensors) == 1:
        tensors = tensors[0]
        if isinstance(tensors, Tensor):
            new = shape_of(tensors.shape)
            return tensors if new is None else tensors.reshape(new)
    return tuple(_atleast((t,), shape_of) for t in tensors)


def atleast_1d(*tensors):
    """``tensors`` with at least 1 dim (a 0-d tensor becomes shape (1,)); one tensor in,
    one out; several (or a sequence) in, a tuple out."""
    return _atleast(tensors, lambda s: (1,) if len(s) == 0 else None)


def atleast_2d(*tensors):
    """At least 2 dims: () -> (1, 1), (n,) -> (1, n)."""
    return _atleast(tensors, lambda s: (1,) * (2 - len(s)) + tuple(s) if len(s) < 2 else None)


def atleast_3d(*tensors):
    """At least 3 dims: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1), as NumPy."""
    def shape(s):
        s = tuple(s)
        if len(s) == 0:
            return (1, 1, 1)
        if len(s) == 1:
            return (1, s[0], 1)
        if len(s) == 2:
            return s + (1,)
        return None
    return _atleast(tensors, shape)


def block_diag(*tensors):
    """The block-diagonal matrix of ``tensors`` (0-, 1- or 2-D; a 1-D tensor is one row).

    Returns a (sum of rows, sum of columns) tensor of the promoted dtype.

    Raises:
        RuntimeError: a tensor with more than 2 dims.
    """
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               "Input %d has %d dimensions. Fix: reshape it to 2-D first."
                               % (i, t.dim()))
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return _C.zeros(1, 0)
    dt = blocks[0].dtype
    for b in blocks[1:]:
        dt = _dtype.promote_types(dt, b.dtype)
    cols = sum(b.shape[1] for b in blocks)
    rows = []
    left = 0
    for b in blocks:
        r, c = b.shape
        parts = []
        if left:
            parts.append(_C.zeros(r, left, dtype=dt))
        parts.append(b.to(dt))
        if cols - left - c:
            parts.append(_C.zeros(r, cols - left - c, dtype=dt))
        rows.append(_F.cat(parts, 1) if len(parts) > 1 else parts[0])
        left += c
    from .ops._named import _named
    return _named(_F.cat(rows, 0), "BlockDiagBackward0")     # PyTorch's grad_fn name


def cartesian_prod(*tensors):
    """Every combination of the 1-D ``tensors``' elements, one per row (as itertools.product).

    One tensor in: that tensor. Raises RuntimeError for inputs that are not 1-D."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError("Expect a 1D vector, but got shape %s. Fix: flatten it first."
                               % list(t.shape))
    if len(tensors) == 1:
        return tensors[0]
    grids = _F.meshgrid(*tensors, indexing="ij")
    return _F.stack([g.flatten() for g in grids], 1)


def chain_matmul(*matrices):
    """The product of 2-D ``matrices`` (deprecated in PyTorch for ``linalg.multi_dot``)."""
    _errors.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                 "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                 "more tensors rather than multiple parameters.")
    out = matrices[0]
    for m in matrices[1:]:
        out = _F.matmul(out, m)
    return out


def unravel_index(indices, shape):
    """Flat ``indices`` (an int64 tensor or int) into a tuple of coordinate tensors for ``shape``.

    Raises:
        TypeError: non-integer indices. (Out-of-range indices wrap around, as in PyTorch.)
    """
    if isinstance(indices, int) and not isinstance(indices, bool):
        indices = _C.tensor(indices)
    if not isinstance(indices, Tensor):
        raise TypeError("expected 'indices' to be an integer tensor, but got %s. Fix: "
                        "torch.tensor(indices)" % type(indices).__name__)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype.name == "bool":
        raise TypeError("expected 'indices' to be integer dtype, but got %s. Fix: "
                        "indices.long()" % indices.dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    # PyTorch's arithmetic (floor division and modulo, last dim first): indices outside
    # the shape wrap around rather than raise
    rest = indices.numpy().astype(np.int64)
    coords = []
    for n in reversed(shape):
        coords.append(np.mod(rest, n))
        rest = np.floor_divide(rest, n)
    coords.reverse()
    return tuple(_C.tensor(c.astype(np.int64)) for c in coords)
