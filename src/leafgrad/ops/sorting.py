"""Sorting: sort, argsort, topk (values and int64 indices; the values' gradient is
scattered back to the positions they came from, as PyTorch's SortBackward0 / TopkBackward0).
"""
import numpy as np

from .._tensor import Tensor, _wrap_dim
from ._registry import defop
from .indexing import SortBackward0, TopkBackward0, _take_along
from .reduction import _return_type


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


@defop("sort")
def sort(input, dim=-1, descending=False, stable=False):
    x = input._data
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


@defop("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    n = input.shape[dim] if input.dim() else (_wrap_dim(dim, 0) + 1)
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range: k=%d but dim %d has %d elements. "
                           "Fix: k between 0 and %d (e.g. k=min(k, x.shape[dim]))" % (k, dim, n, n))
    if input.dim() == 0:
        return _return_type("topk")(*sort(input, dim, descending=largest))
    i = sort(input.detach(), dim, descending=largest)[1].narrow(dim, 0, k)
    idx = np.ascontiguousarray(i._data)
    return _return_type("topk")(_take_along(TopkBackward0, input, dim, idx),
                                Tensor._make_plain(idx))
