"""Splits: split, split_with_sizes, chunk, unbind, tensor_split, hsplit, vsplit, dsplit.

Each returns views of the input (PyTorch's SplitBackward0 / SplitWithSizesBackward0 /
UnbindBackward0: the pieces' gradients joined back, missing ones as zeros);
``tensor_split`` and ``h/v/dsplit`` are PyTorch's compositions of ``narrow``.
"""

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from ...autograd.graph import Node
from .._dispatch import record_multi
from .._registry import defop, node
from .joins import cat, stack
from .views import _as_view, narrow, _no_0d


def _split_backward(ctx, *grads):
    return (cat(list(grads), ctx.args),)


class SplitBackward0(Node):
    __slots__ = ("n_outputs", "out_metas")
    backward = _split_backward


class SplitWithSizesBackward0(SplitBackward0):
    __slots__ = ()


class UnbindBackward0(Node):
    __slots__ = ("n_outputs", "out_metas")

    def backward(ctx, *grads):
        return (stack(list(grads), ctx.args),)

    def np_backward(ctx, *grads):
        # the slices' gradients stacked back; an output that got none contributes zeros
        if all(g is None for g in grads):
            return (None,)
        dt = next(g for g in grads if g is not None).dtype
        return (np.stack([np.zeros(m[0], dt) if g is None else g
                          for g, m in zip(grads, ctx.out_metas)], ctx.args),)


def _multi(cls, outs, input, dim):
    res = record_multi(cls, outs, (input,), args=dim)
    node = res[0]._grad_fn if res else None
    if node is not None:
        node.n_outputs = len(outs)
    # views of the input with or without a graph: in-place changes reach the base and
    # share its version counter (PyTorch's multi-output views)
    multi = cls.__name__[:-len("Backward0")]
    for r in res:
        _as_view(r, input, multi)
    return res


@defop("split")
def split(input, split_size_or_sections, dim=0):
    """Split into chunks of a size (last may be smaller) or of given sizes; views."""
    x = input._data
    _no_0d(x, "split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    cls = SplitBackward0
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        sizes = [min(s, n - i) for i in range(0, n, s)] if n else [0]
    else:
        sizes, cls = list(split_size_or_sections), SplitWithSizesBackward0
        if sum(sizes) != n:
            raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to %d (input "
                               "tensor's size at dimension %d), but got split_sizes=%s"
                               % (n, d, sizes))
    outs, start = [], 0
    for s in sizes:
        outs.append(x[(slice(None),) * d + (slice(start, start + s),)])
        start += s
    return _multi(cls, outs, input, d)


@defop("chunk")
def chunk(input, chunks, dim=0):
    _no_0d(input._data, "chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: %d" % chunks)
    n = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    size = -(-n // chunks) if n else 1
    return split(input, max(size, 1), dim)


@defop("unbind")
def unbind(input, dim=0):
    """Remove ``dim``, returning a tuple of its slices (views)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    # the trailing ... keeps a 0-d slice a view (x[i] of a 1-d array is a NumPy scalar copy)
    outs = [x[(slice(None),) * d + (i, Ellipsis)] for i in range(x.shape[d])]
    return _multi(UnbindBackward0, outs, input, d)


# ----------------------------------------------------------------- splitting
@defop("split_with_sizes")
def split_with_sizes(input, split_sizes, dim=0):
    """Pieces of the given sizes along ``dim`` (views).

    Raises:
        RuntimeError: sizes that do not sum to ``input.size(dim)``.
    """
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    sizes = [int(s) for s in split_sizes]
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to %d (input "
                           "tensor's size at dimension %d), but got split_sizes=%s. Fix: "
                           "sizes that add up to the dim" % (n, d, sizes))
    return input.split(sizes, d)


def _pieces(input, bounds, d):
    """input[b[k-1]:b[k]] along d for consecutive bounds (Python slice rules: clamped,
    negative from the end, empty when decreasing), the last piece to the end."""
    n = input.shape[d]

    def clamp(b):
        b = int(b)
        return min(max(b + n if b < 0 else b, 0), n)
    edges = [0] + [clamp(b) for b in bounds] + [n]
    return tuple(narrow(input, d, a, max(b - a, 0)) for a, b in zip(edges, edges[1:]))


@defop("tensor_split")
def tensor_split(input, indices_or_sections, dim=0):
    """Split along ``dim`` into ``sections`` pieces (an int: the first ``n % sections``
    get one more element) or at the ``indices`` (a list, or a 1-D int tensor; indices past
    the end give empty pieces). The pieces are views.

    Raises:
        RuntimeError: zero sections, a 0-d input, or a float tensor of indices.
    """
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims. Fix: x.reshape(1)")
    d = _wrap_dim(dim, input.dim())
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have "
                               "integer dtype, but got %s. Fix: .long()" % ios.dtype)
        if ios.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               "with %d dims. Fix: .flatten()" % ios.dim())
        ios = int(ios._data) if ios.dim() == 0 else [int(i) for i in ios._data]
    if isinstance(ios, (list, tuple)):
        return _pieces(input, ios, d)
    k = int(ios)
    if k <= 0:
        raise RuntimeError("number of sections must be larger than 0, got %d. Fix: a "
                           "positive number of sections" % k)
    n = input.shape[d]
    q, r = divmod(n, k)
    bounds, at = [], 0
    for i in range(k - 1):
        at += q + (1 if i < r else 0)
        bounds.append(at)
    return _pieces(input, bounds, d)


def _split_along(name, input, ios, d, need):
    if input.dim() < need:
        raise RuntimeError("torch.%s requires a tensor with at least %d dimension, but got a "
                           "tensor with %d dimensions! Fix: add dims first" % (
                               name, need, input.dim()))
    if not isinstance(ios, (list, tuple)):
        k = int(ios)
        n = input.shape[d]
        if k == 0 or n % k:
            raise RuntimeError("torch.%s attempted to split along dimension %d, but the size "
                               "of the dimension %d is not divisible by the split_size %d! "
                               "Fix: a section count that divides the size, or "
                               "tensor_split" % (name, d, n, k))
    return tensor_split(input, ios, d)


@defop("hsplit")
def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 for 1-D); an int must divide the size."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


@defop("vsplit")
def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


@defop("dsplit")
def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)
