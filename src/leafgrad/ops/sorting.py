"""Sorting: sort, argsort, topk (values and int64 indices; the values' gradient is
scattered back to the positions they came from, as PyTorch's SortBackward0 / TopkBackward0).
"""
import numpy as np

from .._tensor import Tensor
from ._registry import defop
from .indexing import SortBackward0, TopkBackward0, _take_along
from .reduction import _return_type


@defop("sort")
def sort(input, dim=-1, descending=False, stable=False):
    x = input._data
    if x.ndim == 0:     # a 0-d tensor sorts as itself, index 0
        v, i = sort(input.reshape(1), 0, descending)
        return _return_type("sort")(v.reshape(()), i.reshape(()))
    idx = np.argsort(-x if descending else x, axis=dim, kind="stable").astype(np.int64)
    return _return_type("sort")(_take_along(SortBackward0, input, dim, idx),
                                Tensor._make_plain(idx))


@defop("argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending)[1]


@defop("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    n = input.shape[dim] if input.dim() else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range: k=%d but dim %d has %d elements. "
                           "Fix: k between 0 and %d (e.g. k=min(k, x.shape[dim]))" % (k, dim, n, n))
    if input.dim() == 0:
        return _return_type("topk")(*sort(input, dim, descending=largest))
    i = sort(input.detach(), dim, descending=largest)[1].narrow(dim, 0, k)
    idx = np.ascontiguousarray(i._data)
    return _return_type("topk")(_take_along(TopkBackward0, input, dim, idx),
                                Tensor._make_plain(idx))
