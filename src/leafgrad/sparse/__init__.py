"""Sparse COO tensors: ``torch.sparse_coo_tensor``, ``torch.sparse.mm`` / ``torch.spmm``,
``torch.sparse.sum`` (the part graph-network code such as pygcn uses).

A :class:`SparseCooTensor` holds ``indices`` (int64, shape (sparse_dim, nnz)) and
``values`` (a leafgrad tensor, shape (nnz, *dense_dims)). Products with dense
matrices are written with differentiable leafgrad ops (gather the dense rows of each
stored entry, scale them by the values, ``index_add`` them into the output rows), so
gradients flow to the values and to the dense operand, to any order. Unlike PyTorch,
whose invariant checks are off by default, the indices are always checked against the
size (an out-of-range index is an error here, not undefined behaviour).
"""
import numpy as np

from .._tensor import creation as _creation
from .._tensor.tensor import Size, Tensor

__all__ = ["SparseCooTensor", "sparse_coo_tensor", "mm", "spmm", "sum", "addmm"]

sparse_coo = "torch.sparse_coo"


class SparseCooTensor:
    """A sparse tensor in coordinate format (see the module docstring)."""

    is_sparse = True
    layout = sparse_coo

    def __init__(self, indices, values, size, coalesced=False):
        self._idx = indices          # ndarray int64 (sparse_dim, nnz)
        self._vals = values          # Tensor (nnz, *dense)
        self._size = Size(size)
        self._coalesced = coalesced

    # -- metadata ------------------------------------------------------------
    @property
    def shape(self):
        return self._size

    def size(self, dim=None):
        return self._size if dim is None else self._size[dim]

    def dim(self):
        return len(self._size)

    ndim = property(dim)

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return self._vals.dim() - 1

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def device(self):
        return self._vals.device

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    def requires_grad_(self, requires_grad=True):
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self._vals.is_leaf

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def grad(self):
        g = self._vals.grad
        return None if g is None else SparseCooTensor(self._idx, g, self._size, self._coalesced)

    def _nnz(self):
        return self._idx.shape[1]

    def is_coalesced(self):
        return self._coalesced

    def _indices(self):
        return _creation.tensor(self._idx)

    def _values(self):
        return self._vals

    def indices(self):
        """The indices of a coalesced tensor (RuntimeError otherwise, as PyTorch)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._indices()

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._vals

    # -- conversions -----------------------------------------------------------
    def coalesce(self):
        """Sorted, duplicate-free indices; duplicates' values summed (differentiably)."""
        if self._coalesced:
            return self
        if self._nnz() == 0:
            return SparseCooTensor(self._idx, self._vals, self._size, True)
        flat = np.ravel_multi_index(tuple(self._idx), self._size[:self.sparse_dim()])
        uniq, inverse = np.unique(flat, return_inverse=True)
        vals = _creation.zeros((len(uniq),) + tuple(self._vals.shape[1:]),
                               dtype=self._vals.dtype).index_add(
            0, _creation.tensor(inverse.reshape(-1).astype(np.int64)), self._vals)
        idx = np.stack(np.unravel_index(uniq, self._size[:self.sparse_dim()])).astype(np.int64)
        return SparseCooTensor(idx.reshape(self.sparse_dim(), -1), vals, self._size, True)

    def to_dense(self):
        """The dense tensor (duplicates summed), differentiable with respect to the values."""
        out = _creation.zeros(tuple(self._size), dtype=self._vals.dtype)
        if self._nnz() == 0:
            return out
        key = tuple(_creation.tensor(r) for r in self._idx)
        return out.index_put(key, self._vals, accumulate=True)

    def t(self):
        if self.sparse_dim() != 2 or self.dense_dim() != 0:
            raise RuntimeError("t() expects a 2-D sparse tensor. Fix: use transpose(0, 1) on "
                               "a matrix")
        return SparseCooTensor(self._idx[::-1].copy(), self._vals,
                               (self._size[1], self._size[0]))

    def detach(self):
        return SparseCooTensor(self._idx, self._vals.detach(), self._size, self._coalesced)

    def to(self, *args, **kwargs):
        for a in list(args) + list(kwargs.values()):
            if not hasattr(a, "is_floating_point") and a is not None and not isinstance(
                    a, bool):
                _creation._require_cpu(a) if isinstance(a, (str, _creation.device)) else None
        dtype = kwargs.get("dtype") or next((a for a in args if hasattr(a, "is_floating_point")),
                                            None)
        if dtype is None:
            return self
        return SparseCooTensor(self._idx, self._vals.to(dtype), self._size, self._coalesced)

    def cpu(self):
        return self

    def __mul__(self, other):
        if isinstance(other, (int, float)) or (isinstance(other, Tensor) and other.dim() == 0):
            return SparseCooTensor(self._idx, self._vals * other, self._size, self._coalesced)
        raise NotImplementedError("sparse * tensor: only a number or a 0-d tensor is supported "
                                  "here. Fix: multiply the dense form, x.to_dense() * other")

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __matmul__(self, other):
        return mm(self, other)

    def __repr__(self):
        pad = " " * len("tensor(indices=")
        ind = repr(self._indices()).replace("\n", "\n" + pad)
        vpad = " " * len("       values=")
        vals = repr(self._vals.detach()).replace("\n", "\n" + vpad)
        size = "(%s)" % (", ".join(str(s) for s in self._size) + ("," if self.dim() == 1
                                                                  else ""))
        tail = ("size=%s, nnz=%d, layout=torch.sparse_coo" % (size, self._nnz()))
        if self._vals.grad_fn is not None:
            tail += ",\n       grad_fn=<%s>" % self._vals.grad_fn.name()
        elif self._vals.requires_grad:
            tail += ", requires_grad=True"
        return "tensor(indices=%s,\n       values=%s,\n       %s)" % (ind, vals, tail)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """``torch.sparse_coo_tensor(indices, values, size=None, ...)``.

    Args:
        indices: int tensor (or nested list) of shape (sparse_dim, nnz).
        values: tensor (or list) of shape (nnz, *dense_dims).
        size: the full size; by default max index + 1 per sparse dim.

    Raises:
        RuntimeError: indices and values with different nnz, indices not 2-D, an index
            negative or beyond ``size``.
    """
    _creation._require_cpu(device)
    idx = indices.detach().numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.ndim != 2:
        raise RuntimeError("indices must be sparse_dim x nnz, but got: %s. Fix: one row per "
                           "sparse dim, one column per stored value" % list(idx.shape))
    if idx.dtype.kind not in "iu":
        raise RuntimeError("indices must be an int64 tensor")
    idx = idx.astype(np.int64)
    vals = values if isinstance(values, Tensor) else _creation.tensor(values)
    if dtype is not None:
        vals = vals.to(dtype)
    if vals.dim() == 0:
        raise RuntimeError("values must have at least 1 dim (nnz, ...). Fix: "
                           "torch.tensor([v])")
    if vals.shape[0] != idx.shape[1]:
        raise RuntimeError("indices and values must have same nnz, but got nnz from indices: "
                           "%d, nnz from values: %d" % (idx.shape[1], vals.shape[0]))
    sparse_dim = idx.shape[0]
    if size is None:
        size = tuple(int(r.max()) + 1 if r.size else 0 for r in idx) + tuple(vals.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + vals.dim() - 1:
        raise RuntimeError("number of dimensions must be sparse_dim (%d) + dense_dim (%d), but "
                           "got %d" % (sparse_dim, vals.dim() - 1, len(size)))
    if idx.size:
        lo, hi = idx.min(axis=1), idx.max(axis=1)
        for d in range(sparse_dim):
            if lo[d] < 0 or hi[d] >= size[d]:
                raise RuntimeError("size is inconsistent with indices: for dim %d, size is %d but "
                                   "found index %d. Fix: a larger size, or check the indices"
                                   % (d, size[d], hi[d] if hi[d] >= size[d] else lo[d]))
    if requires_grad:
        vals = vals.detach().requires_grad_(True)
    return SparseCooTensor(idx, vals, size, bool(is_coalesced) or idx.shape[1] <= 1)


def mm(sparse, dense):
    """``sparse @ dense`` for a 2-D sparse (n, m) and a dense (m, k) tensor: dense (n, k),
    differentiable with respect to the sparse values and the dense operand.

    Raises:
        RuntimeError: shapes that do not chain; a sparse tensor with dense dims.
    """
    if not isinstance(sparse, SparseCooTensor):
        from .._api import functions as _functions
        return _functions.mm(sparse, dense)
    if sparse.sparse_dim() != 2 or sparse.dense_dim() != 0:
        raise RuntimeError("sparse.mm expects a 2-D sparse matrix (no dense dims). Fix: "
                           "to_dense() first")
    n, m = sparse.shape
    if dense.dim() not in (1, 2) or dense.shape[0] != m:
        raise RuntimeError("addmm: Argument #3 (dense): Expected dim 0 size %d, got %d. Fix: "
                           "the dense operand needs %d rows" % (m, dense.shape[0], m))
    rows = _creation.tensor(sparse._idx[0])
    cols = _creation.tensor(sparse._idx[1])
    vec = dense.dim() == 1
    d = dense.unsqueeze(1) if vec else dense
    contrib = d.index_select(0, cols) * sparse._vals.to(d.dtype).unsqueeze(1)
    out = _creation.zeros(n, d.shape[1], dtype=d.dtype).index_add(0, rows, contrib)
    return out.squeeze(1) if vec else out


spmm = mm


def addmm(mat, sparse, dense, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (sparse @ dense)``."""
    return mat * beta + mm(sparse, dense) * alpha


def sum(input, dim=None, dtype=None):
    """The sum of a sparse tensor's values (``dim=None``: a dense 0-d tensor), or over
    ``dim`` (returned dense here, where PyTorch returns sparse)."""
    dense = input.to_dense()
    if dtype is not None:
        dense = dense.to(dtype)
    return dense.sum() if dim is None else dense.sum(dim)


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse``: the COO tensor (coalesced) of ``self``'s entries whose first
    ``sparse_dim`` (default: all) dims hold a nonzero; values are gathered with indexing,
    so gradients flow back to ``self``. Only the COO layout exists here.

    Raises:
        RuntimeError: for a layout other than torch.sparse_coo, or sparse_dim > dim.
    """
    if layout not in (None, sparse_coo) or blocksize is not None:
        raise RuntimeError("to_sparse: leafgrad has only the COO layout (torch.sparse_coo). "
                           "Fix: call to_sparse() without layout/blocksize")
    k = self.dim() if sparse_dim is None else int(sparse_dim)
    if not 0 <= k <= self.dim():
        raise RuntimeError("sparse_dim %d is out of range for a %d-d tensor" % (k, self.dim()))
    arr = self._data.reshape(self._data.shape[:k] + (-1,))
    nz = np.nonzero(np.any(arr != 0, axis=-1))
    idx = np.stack(nz).astype(np.int64) if k else np.zeros((0, 1), np.int64)
    vals = self[tuple(_creation.tensor(i.astype(np.int64)) for i in nz)] if k else self.unsqueeze(0)
    return SparseCooTensor(idx, vals, self.shape, coalesced=True)
