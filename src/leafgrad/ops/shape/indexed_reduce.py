"""Indexed writes that reduce or address the flat tensor: ``torch.index_put`` (the
out-of-place ``index_put_``), ``index_reduce`` (prod / mean / amax / amin along a dim),
``put`` (writes at flat indices, the adjoint of ``take``) and ``Tensor.fill_diagonal_``.

Gradients follow PyTorch's derivatives.yaml / FunctionsManual (``index_reduce_backward``)
and are written with recorded ops, so they differentiate again.
"""
import warnings

import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record
from .._registry import defop, node
from ..inplace import writes as IW
from ..inplace.arithmetic import apply
from .indexed_writes import _scatter_reduce_backward, _reduce_into
from .indexing import _flat_positions, _long_index, take

_REDUCES = ("prod", "mean", "amax", "amin")
_warned = []


def _tensor_args(fname, pairs):
    for name, pos, a in pairs:
        if not isinstance(a, Tensor):
            raise _errors.not_a_tensor(fname, name, pos, a)


# ------------------------------------------------------------------ index_put
@defop("index_put", method=False)
def index_put(input, indices, values, accumulate=False):
    """Copy of ``input`` with ``values`` written at ``indices`` (a tuple of index tensors,
    as ``input[indices] = values``); with ``accumulate`` repeated positions add up.
    IndexPutBackward0 (``Tensor.index_put_`` in place).

    Raises:
        TypeError: indices not a tuple/list of tensors, values not a tensor.
        RuntimeError/IndexError: as ``index_put_`` (shapes, dtypes, range).
    """
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' (position 2) must be tuple of Tensors, "
                        "not %s. Fix: pass a tuple, e.g. (idx,)" % _errors.arg_type(indices))
    _tensor_args("index_put", (("input", 1, input), ("values", 3, values)))
    return input.index_put(tuple(indices), values, accumulate)


# --------------------------------------------------------------- index_reduce
def _reduce_args(input, dim, index, source, reduce):
    _tensor_args("index_reduce", (("input", 1, input), ("index", 2, index),
                                  ("source", 3, source)))
    if reduce not in _REDUCES:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           "amin but got %s. Fix: pass one of those (index_add for sums)"
                           % (reduce,))
    x, s, idx = input._data, source._data, index._data
    d = _wrap_dim(dim, max(x.ndim, 1))
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: %s. "
                           "Fix: index.long()" % _errors.type_name(idx.dtype))
    if idx.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector, but got dim: %d "
                         "with type: %s and size: %s. Fix: index.reshape(-1)"
                         % (idx.ndim, _errors.type_name(idx.dtype), list(idx.shape)))
    if s.dtype != x.dtype:
        raise RuntimeError("index_reduce_(): self (%s) and source (%s) must have the same scalar "
                           "type. Fix: source.to(self.dtype)" % (_errors.type_name(x.dtype),
                                                                 _errors.type_name(s.dtype)))
    if s.ndim != x.ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, s.shape)) if i != d):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           "specified dimension. Got self.shape = %s source.shape = %s. Fix: give source "
                           "self's sizes outside dim"
                           % (list(x.shape), list(s.shape)))
    ns = s.shape[d] if s.ndim else 1
    if idx.size != ns:
        raise RuntimeError("index_reduce_(): Number of indices (%d) should be equal to "
                           "source.size(dim): (%d), for dim: %d. Fix: one index per slice of source "
                           "along dim" % (idx.size, ns, d))
    n = x.shape[d] if x.ndim else 1
    idx = idx.reshape(-1).astype(np.int64)
    if idx.size and (idx.max() >= n or idx.min() < 0):   # no negative indices, as PyTorch
        raise IndexError("index out of range in self. Fix: indices in [0, %d)" % n)
    return d, idx


IndexReduceBackward0 = node("IndexReduceBackward0", _scatter_reduce_backward, saves=True)


def _as_scatter_index(x, s, d, idx):
    """index_reduce's 1-D ``idx`` along ``d`` as scatter_reduce's index of ``s``'s shape."""
    if x.ndim == 0:
        return idx, s.reshape(1)
    shape = [1] * s.ndim
    shape[d] = idx.size
    return np.broadcast_to(idx.reshape(shape), s.shape).copy(), s


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce``; returns self."""
    return apply(self, "index_reduce_", lambda a, s: index_reduce(
        a, dim, index, s, reduce, include_self=include_self), source)


@defop("index_reduce", out=True, inplace=index_reduce_)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with the rows ``source`` (along ``dim``) reduced into the positions
    ``index`` names by ``reduce`` (``prod``, ``mean``, ``amax``, ``amin``); with
    ``include_self=False`` the indexed positions of ``input`` take no part. Integer
    ``mean`` floors, as PyTorch. Warns once that the API is in beta (as PyTorch).
    IndexReduceBackward0: scatter_reduce's rule (index_reduce_backward of FunctionsManual
    is the same with index_select for gather).

    Raises:
        RuntimeError: an unknown reduce, an index not int32/int64, source of another
        dtype or shape. IndexError: an index out of range or of more than 1 dim.
    """
    d, idx = _reduce_args(input, dim, index, source, reduce)
    if not _warned:
        _warned.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=2)
    it, sd = _as_scatter_index(input._data, source._data, d, idx)
    return _reduce_into(IndexReduceBackward0, input, source, d, it, sd, reduce, include_self)


# ------------------------------------------------------------------------ put
def _put_backward(ctx, g):
    index, accumulate, sshape = ctx.args
    ns, nsrc = ctx.needs_input_grad
    gs = gsrc = None
    if ns:
        gs = g if accumulate else put(g, index, g.new_zeros(sshape))
    if nsrc:
        gsrc = take(g, index).reshape(sshape)
    return gs, gsrc


PutBackward0 = node("PutBackward0", _put_backward, saves=False)


def put_(self, index, source, accumulate=False):
    """In-place ``put``; returns self."""
    return apply(self, "put_", lambda a, s: put(a, index, s, accumulate), source)


@defop("put", inplace=put_)
def put(input, index, source, accumulate=False):
    """Copy of ``input`` with ``source``'s values written at the flat indices ``index``
    (int64, any shape, negative counting from the end; the adjoint of ``take``); with
    ``accumulate`` repeated indices add up. PutBackward0 (input: the gradient, zeroed at
    ``index`` unless accumulating; source: ``grad.take(index)``).

    Raises:
        TypeError: a non-tensor argument. RuntimeError: an index not int64, source of
        another dtype. IndexError: index and source of different numel, an index out of
        range.
    """
    _tensor_args("put", (("input", 1, input), ("index", 2, index), ("source", 3, source)))
    idx = _long_index(index, "put_")
    x, s = input._data, source._data
    if s.dtype != x.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           "self.dtype = %s and source.dtype = %s. Fix: source.to(self.dtype)"
                           % (_errors.type_name(x.dtype), _errors.type_name(s.dtype)))
    if s.size != idx.size:
        raise IndexError("put_(): Expected source and index to have the same number of "
                         "elements, but got source.numel() = %d, index.numel() = %d. Fix: give "
                         "source one value per index" % (s.size, idx.size))
    flat = _flat_positions(idx, x.size)
    out = x.copy()
    if accumulate:
        with np.errstate(all="ignore"):   # inf + -inf is a quiet nan, as in PyTorch
            np.add.at(out.reshape(-1), flat, s.reshape(-1))
    else:
        out.reshape(-1)[flat] = s.reshape(-1)
    return record(PutBackward0, out, (input, source),
                  args=(Tensor._make_plain(flat), accumulate, s.shape))


# ------------------------------------------------------------- fill_diagonal_
def fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal of ``self`` (2 or more dims, all of one
    length beyond 2), in place, as PyTorch: a strided view filled (CopySlices); ``wrap``
    continues a tall matrix's diagonal after every ``width + 1`` rows.

    Raises:
        RuntimeError: fewer than 2 dims, dims of unequal length (beyond 2), a value the
        dtype cannot hold; in-place on a leaf that requires grad.
    """
    shape = self.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1. Fix: fill_diagonal_ needs a "
                           "matrix (or more dims)")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length. Fix: use "
                           "x.diagonal(...).fill_(v) for other shapes")
    stride = sum(self.stride())
    size = min(shape)
    self.as_strided((size,), (stride,), self.storage_offset()).fill_(fill_value)
    height, width = shape[0], shape[1]
    if wrap and len(shape) == 2 and height > width + 1:
        step = width + 1
        n_wrap = (self.numel() + step - 1) // step - size
        self.as_strided((n_wrap,), (stride,), self.storage_offset()
                        + self.stride(0) * (width + 1)).fill_(fill_value)
    return self
