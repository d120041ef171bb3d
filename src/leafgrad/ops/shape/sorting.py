"""Sorting and order statistics: sort, argsort, topk, median (values and int64 indices;
the values' gradient is scattered back to the positions they came from, as PyTorch's
SortBackward0 / TopkBackward0 / MedianBackward1), and unique / unique_consecutive
(not differentiable, as PyTorch's)."""

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record
from .._registry import defop, node
from ..reduce.reduction import (_empty_check, _evenly_distribute_backward, _index_backward,
                                _return_type)
from .indexing import SortBackward0, _take_along, TopkBackward0


def _argsort(x, dim, descending):
    """Stable argsort along ``dim`` in PyTorch's order: NaN is the largest value (last
    ascending, first descending); equal values keep their order both ways. Descending is
    the reversed stable ascending sort of the reversed array (no negation, which would
    wrap unsigned ints, fail on bool and leave NaN last)."""
    if not descending:
        return np.argsort(x, axis=dim, kind="stable").astype(np.int64)
    n = x.shape[dim]
    r = np.argsort(np.flip(x, dim), axis=dim, kind="stable")
    return (n - 1 - np.flip(r, dim)).astype(np.int64)


@defop("sort", out=True)
def sort(input, dim=-1, descending=False, stable=False):
    x = input._data
    if x.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU. Fix: sort .abs() or "
                           ".real")
    if x.ndim == 0:     # a 0-d tensor sorts as itself, index 0 (dim -1 or 0 only)
        _wrap_dim(dim, 0)
        v, i = sort(input.reshape(1), 0, descending)
        return _return_type("sort")(v.reshape(()), i.reshape(()))
    idx = _argsort(x, _wrap_dim(dim, x.ndim), descending)
    return _return_type("sort")(_take_along(SortBackward0, input, dim, idx),
                                Tensor._make_plain(idx))


@defop("argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending)[1]


@defop("topk", out=True)
def topk(input, k, dim=-1, largest=True, sorted=True):
    n = input.shape[dim] if input.dim() else (_wrap_dim(dim, 0) + 1)
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range: k=%d but dim %d has %d elements. "
                           "Fix: k between 0 and %d (e.g. k=min(k, x.shape[dim]))" % (k, dim, n, n))
    if input._data.dtype.kind == "c":
        raise RuntimeError(" topk does not support complex dtypes on CPU. Fix: use .abs() or "
                           ".real")
    if input._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU. Fix: convert first, e.g. "
                           "x.int()")
    if input.dim() == 0:
        return _return_type("topk")(*sort(input, dim, descending=largest))
    i = sort(input.detach(), dim, descending=largest)[1].narrow(dim, 0, k)
    idx = np.ascontiguousarray(i._data)
    return _return_type("topk")(_take_along(TopkBackward0, input, dim, idx),
                                Tensor._make_plain(idx))


# ------------------------------------------------------------------ median
MedianBackward0 = node("MedianBackward0", _evenly_distribute_backward, saves=True)
MedianBackward1 = node("MedianBackward1", _index_backward, saves=False)


def _lower_median_index(x, axis):
    """Index along ``axis`` of the lower median (NaN sorts last; a NaN anywhere gives the
    first NaN, as PyTorch)."""
    n = x.shape[axis]
    order = np.argsort(x, axis=axis, kind="stable")
    idx = np.take(order, [(n - 1) // 2], axis=axis)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        if nan.any():
            first = np.argmax(nan, axis=axis, keepdims=True)
            idx = np.where(np.any(nan, axis=axis, keepdims=True), first, idx)
    return idx.astype(np.int64)


@defop("median", out=True)
def median(input, dim=None, keepdim=False):
    """Lower median (the ``(n-1)//2``-th smallest value; NaN when any value is NaN).

    ``median()`` -> 0-d tensor, gradient split evenly among the elements equal to it
    (MedianBackward0, PyTorch's evenly_distribute_backward); ``median(dim)`` ->
    (values, indices) namedtuple, gradient to the chosen index (MedianBackward1).

    An empty input without ``dim`` gives NaN (as PyTorch).

    Raises:
        IndexError: an empty ``dim``. NotImplementedError: a bool input (as PyTorch).
    """
    x = input._data
    if x.dtype == np.bool_ and dim is None:
        raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'. Fix: convert "
                                  "first, e.g. x.int()")
    if dim is None:
        if x.size == 0:     # PyTorch: nan, no error
            return record(MedianBackward0, np.asarray(np.nan, dtype=x.dtype), (input,),
                          saved=(input,), save_result=True)
        flat = x.reshape(-1)
        out = flat[_lower_median_index(flat, 0)[0]]
        return record(MedianBackward0, np.asarray(out), (input,), saved=(input,),
                      save_result=True)
    d = _wrap_dim(dim, x.ndim)
    _empty_check(x, "median", d if x.ndim else None)
    if x.dtype == np.bool_:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool'. Fix: convert "
                                  "first, e.g. x.int()")
    if x.ndim == 0:
        values, idx = x.copy(), np.zeros((), np.int64)
    else:
        idx = _lower_median_index(x, d)
        values = np.take_along_axis(x, idx, axis=d)
        if not keepdim:
            idx, values = idx.squeeze(d), values.squeeze(d)
    v = record(MedianBackward1, values, (input,), args=(x.shape, d if x.ndim else 0, keepdim,
                                                         idx))
    return _return_type("median")(v, Tensor._make_plain(np.asarray(idx, dtype=np.int64)))


# ----------------------------------------------------------------- unique
def _no_derivative(op):
    def backward(ctx, g):
        raise NotImplementedError("the derivative for '%s' is not implemented. (unique is not "
                                  "differentiable: detach its input, or compute the gradient "
                                  "through the op that produced the values.)" % op)
    return backward


Unique2Backward0 = node("Unique2Backward0", _no_derivative("_unique2"), saves=False)


UniqueDimBackward0 = node("UniqueDimBackward0", _no_derivative("unique_dim"), saves=False)


UniqueConsecutiveBackward0 = node("UniqueConsecutiveBackward0",
                                  _no_derivative("unique_consecutive"), saves=False)


@defop("unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of ``input`` (of its slices along ``dim``), sorted.

    Returns the values (1-D, or ``input`` with ``dim`` shortened), plus the int64
    ``inverse`` (input's shape, or ``(input.shape[dim],)``; ``values[inverse]``
    rebuilds the input) and ``counts`` when asked, as a tuple. nan values are all
    distinct. The result is sorted also for ``sorted=False``, as PyTorch's CPU
    kernel. Not differentiable: backward through it raises NotImplementedError.

    Raises:
        IndexError: ``dim`` out of range.
        RuntimeError: a zero-sized dimension other than ``dim``.
    """
    x = input._data
    if dim is None:
        vals, inv, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True,
                                      equal_nan=False)
        inv = inv.reshape(x.shape)
        cls = Unique2Backward0
    else:
        if x.ndim == 0:
            raise IndexError("Dimension specified as %d but tensor has no dimensions" % dim)
        d = _wrap_dim(dim, x.ndim)
        if any(n == 0 for i, n in enumerate(x.shape) if i != d):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
        if x.shape[d] == 0:
            vals, inv, counts = x.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            vals, inv, counts = np.unique(x, axis=d, return_inverse=True, return_counts=True,
                                          equal_nan=False)
            inv = inv.reshape(-1)
        cls = UniqueDimBackward0
    out = record(cls, vals, (input,))
    if not (return_inverse or return_counts):
        return out
    res = (out,)
    if return_inverse:
        res += (Tensor._make_plain(inv.astype(np.int64)),)
    if return_counts:
        res += (Tensor._make_plain(counts.astype(np.int64)),)
    return res


@defop("unique_consecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (of slices along ``dim``): like
    ``unique`` without sorting. Returns the values, plus int64 ``inverse`` and
    ``counts`` when asked (a tuple). Not differentiable (as ``unique``).

    Raises:
        IndexError: ``dim`` out of range.
    """
    x = input._data
    if dim is None:
        flat = x.reshape(-1)
        start = np.ones(flat.shape[0], bool)
        start[1:] = flat[1:] != flat[:-1]
        vals = flat[start]
        ishape = x.shape
    else:
        if x.ndim == 0:
            raise IndexError("Dimension specified as %d but tensor has no dimensions" % dim)
        d = _wrap_dim(dim, x.ndim)
        m = np.moveaxis(x, d, 0).reshape(x.shape[d], -1)
        start = np.ones(m.shape[0], bool)
        start[1:] = (m[1:] != m[:-1]).any(axis=1)
        vals = np.compress(start, x, axis=d)
        ishape = (x.shape[d],)
    out = record(UniqueConsecutiveBackward0, vals, (input,))
    if not (return_inverse or return_counts):
        return out
    res = (out,)
    if return_inverse:
        res += (Tensor._make_plain((np.cumsum(start) - 1).reshape(ishape).astype(np.int64)),)
    if return_counts:
        res += (Tensor._make_plain(np.diff(np.append(np.flatnonzero(start), start.size))
                                   .astype(np.int64)),)
    return res
