"""Indexing that reads: ``x[key]`` (basic and advanced), index_select, gather, take,
take_along_dim, masked_select, nonzero, argwhere, and the scatter-add that is gather's
gradient. The indexed writes (scatter, index_add, masked_fill, ...) are in
``indexed_writes.py``.

Basic indexing (ints, slices, None, ...) returns a view; advanced indexing
(integer/bool tensors or lists) returns a copy. The gradient of a gather is
a scatter-add into zeros of the input's shape, so repeated indices
accumulate (``np.add.at``); that scatter is itself an op whose gradient is
the gather again, so second derivatives work.
"""

import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import mark_view, record
from ._index_rule import Index, of_arrays, parse
from ..inplace.arithmetic import _bind_ops
from .._named import grad_fn_named
from .._out import out_call
from .._registry import defop, node
from ..inplace import writes as IW


def _parse_key(input, key):
    """``key`` for ``input`` as PyTorch reads it: an ``_index.Index``."""
    if type(key) is Index:
        return key
    return parse(input._data.shape, key, Tensor)


def _index_backward(ctx, g):
    shape, key, dtype = ctx.args
    return (index_put_zeros(g, shape, key),)


SelectBackward0 = node("SelectBackward0", _index_backward, saves=False)
SliceBackward0 = node("SliceBackward0", _index_backward, saves=False)
IndexBackward0 = node("IndexBackward0", _index_backward, saves=False)
# a view regenerated over its base's new graph (inplace._refresh_view): key is the
# view's elements as an index into the base
AsStridedBackward0 = node("AsStridedBackward0", _index_backward, saves=False)
UnsqueezeBackward0 = node("UnsqueezeBackward0", _index_backward, saves=False)
AliasBackward0 = node("AliasBackward0", _index_backward, saves=False)


_NODES = {"SelectBackward0": SelectBackward0, "SliceBackward0": SliceBackward0,
          "UnsqueezeBackward0": UnsqueezeBackward0, "AliasBackward0": AliasBackward0,
          "IndexBackward0": IndexBackward0}


def getitem(input, key):
    """``input[key]`` with PyTorch's indexing rule (``ops/shape/_index_rule.py``): ints, slices
    (positive steps), None, ``...`` and bools give a view; tensor and list entries a copy.

    Raises:
        IndexError: an index out of range, too many indices, an entry PyTorch refuses.
        ValueError: a zero or negative slice step.
    """
    x = input._data
    if type(key) is slice and x.ndim and key.step is None:
        # x[i:j], the minibatch slice of every training loop: nothing to check
        # (PyTorch records a bare slice as a slice even when it takes the whole dim)
        idx = Index((key, Ellipsis), None, "SliceBackward0")
    else:
        idx = _parse_key(input, key)
    out = idx.get(x)
    res = record(_NODES[idx.node], out, (input,), args=(x.shape, idx, x.dtype))
    if idx.adv is None:
        mark_view(res, input)
    return res


def _put_backward(ctx, g):
    shape, key = ctx.args
    return (getitem(g, key),)


IndexPutBackward0 = node("IndexPutBackward0", _put_backward, saves=False)


def index_put_zeros(g, shape, key):
    """Zeros of ``shape`` with ``g`` added at ``key`` (repeats accumulate)."""
    gd = g._data
    z = np.zeros(shape, gd.dtype)
    if type(key) is not Index:
        key = of_arrays(key)
    key.add_at(z, gd)
    return record(IndexPutBackward0, z, (g,), args=(shape, key))


def setitem(input, key, value):
    """``input[key] = value`` in place (see ``Tensor.__setitem__``)."""
    IW.index_put_(input, key, value)


def _index_select_backward(ctx, g):
    shape, dim, idx = ctx.args
    if dim is None:     # a 0-d input: its one element, picked len(idx) times
        return (g.sum(),)
    key = (slice(None),) * dim + (idx,)
    return (index_put_zeros(g, shape, key),)


IndexSelectBackward0 = node("IndexSelectBackward0", _index_select_backward, saves=False)


@defop("index_select", out=True)
def index_select(input, dim, index):
    """Rows (along ``dim``) picked by a 1-D int64 ``index``.

    Raises:
        IndexError: for an index out of range.
    """
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype.kind not in "iu" or idx.dtype.itemsize < 4:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index. Fix: "
                           "index.long()")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector (got %d dims). Fix: "
                         "index.flatten(), or x[idx] for an index of any shape" % idx.ndim)
    idx = idx.reshape(-1)
    n = x.shape[d] if x.ndim else 1
    if idx.size and not n and x.ndim > 1:
        raise RuntimeError("index_select(): self indexing axis dim should be positive: dim %d "
                           "has size 0, so no index can pick from it. Fix: an empty index, or "
                           "check the tensor's shape" % d)
    if idx.size and (idx.max() >= n or idx.min() < 0):
        raise IndexError("index out of range in self: index_select takes indices in [0, %d) "
                         "(no negative ones). Fix: idx %% %d, or clamp the indices" % (n, n))
    if x.ndim == 0:
        return record(IndexSelectBackward0, x.copy(), (input,), args=(x.shape, None, idx))
    out = np.take(x, idx, axis=d)
    return record(IndexSelectBackward0, out, (input,), args=(x.shape, d, idx))


def _gather_backward(ctx, g):
    shape, dim, idx = ctx.args
    return (scatter_add_zeros(g, shape, dim, idx),)


GatherBackward0 = node("GatherBackward0", _gather_backward, saves=False)
SortBackward0 = node("SortBackward0", _gather_backward, saves=False)
TopkBackward0 = node("TopkBackward0", _gather_backward, saves=False)


def _take_along(cls, input, dim, idx):
    """``input`` gathered at ``idx`` (an int64 array, in range) along ``dim``, recorded as
    ``cls`` (a node with gather's gradient: sort and topk values)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    return record(cls, np.take_along_axis(x, idx, axis=d), (input,), args=(x.shape, d, idx))


@defop("gather", out=True)
def gather(input, dim, index, *, sparse_grad=False):
    """out[i][j] = input[i][index[i][j]] (for dim=1); the gradient scatters back."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    idx = index._data
    if x.ndim == 0 and idx.ndim == 0:   # the one element (index 0), through a 1-d gather
        return gather(input.reshape(1), 0, index.reshape(1)).reshape(())
    if idx.ndim != x.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if idx.size and (idx.max() >= x.shape[d] or idx.min() < 0):
        raise RuntimeError("index %d is out of bounds for dimension %d with size %d"
                           % (idx.max(), d, x.shape[d]))
    for i in range(x.ndim):
        if i != d and idx.shape[i] > x.shape[i]:
            raise RuntimeError("Size does not match at dimension %d expected index %s to be no "
                               "larger than self %s apart from dimension %d"
                               % (i, list(idx.shape), list(x.shape), d))
    # the index may be smaller than the input outside ``dim``: gather from that corner
    sl = tuple(slice(None) if i == d else slice(0, idx.shape[i]) for i in range(x.ndim))
    out = np.take_along_axis(x[sl], idx, axis=d)
    return record(GatherBackward0, out, (input,), args=(x.shape, d, idx))


@defop("take_along_dim", out=True)
def take_along_dim(input, indices, dim=None):
    if dim is None:
        return getitem(input.reshape(-1), indices.reshape(-1))
    # unlike gather, input and indices broadcast against each other outside ``dim``
    x, idx = input._data, indices._data
    d = _wrap_dim(dim, x.ndim)
    if idx.ndim != x.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           "number of dimensions, but got %d dimensions for input, and %d "
                           "dimensions for indices" % (x.ndim, idx.ndim))
    try:
        shape = list(np.broadcast_shapes(x.shape[:d] + (1,) + x.shape[d + 1:],
                                         idx.shape[:d] + (1,) + idx.shape[d + 1:]))
    except ValueError:
        raise RuntimeError("The size of tensor a must match the size of tensor b at a "
                           "non-singleton dimension: shapes %s and %s"
                           % (list(x.shape), list(idx.shape))) from None
    xs, ids = list(shape), list(shape)
    xs[d], ids[d] = x.shape[d], idx.shape[d]
    if tuple(xs) != x.shape:
        input = input.expand(xs)
    return gather(input, d, Tensor._make_plain(np.broadcast_to(idx, ids)))


@defop("masked_select", out=True)
@grad_fn_named("MaskedSelectBackward0")
def masked_select(input, mask):
    """The elements of ``input`` where the bool ``mask`` (broadcast with it) holds, as 1-D.

    Raises:
        RuntimeError: a mask that is not bool (PyTorch takes no uint8 / integer / float mask
            here), or shapes that do not broadcast.
    """
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask. Fix: pass a "
                           "comparison (e.g. x > 0) or mask.bool()")
    try:
        shape = np.broadcast_shapes(input._data.shape, m.shape)
    except ValueError:
        from .._dispatch import broadcast_error
        raise broadcast_error(input._data, m) from None
    x = input.expand(shape) if input._data.shape != shape else input
    return getitem(x, Tensor._make_plain(np.broadcast_to(m, shape)))


@defop("nonzero", out=True)
def nonzero(input, *, as_tuple=False):
    x = input._data
    if x.ndim == 0:   # NumPy refuses 0-d; PyTorch treats it as one element with no dims
        hit = bool(x)
        if as_tuple:
            return (Tensor._make_plain(np.zeros(int(hit), np.int64)),)
        return Tensor._make_plain(np.zeros((int(hit), 0), np.int64))
    idx = np.nonzero(x)
    if as_tuple:
        return tuple(Tensor._make_plain(i.astype(np.int64)) for i in idx)
    return Tensor._make_plain(np.stack(idx, axis=1).astype(np.int64) if idx else
                              np.zeros((0, 0), np.int64))


@defop("argwhere")
def argwhere(input):
    return nonzero(input)


def _long_index(index, name):
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype != np.int64:
        raise RuntimeError("%s(): Expected a long tensor for index, but got %s. Fix: "
                           "index.long()" % (name, _errors.type_name(idx.dtype)))
    return idx


def _flat_positions(idx, n):
    """``idx`` (int64, negative from the end) as positions in ``[0, n)`` of the flat tensor,
    1-D; take's and put's IndexError for one out of range."""
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = int(idx.max() if idx.max() >= n else idx.min())
        raise IndexError("out of range: tried to access index %d on a tensor of %d elements. "
                         "Fix: indices in [-%d, %d)" % (bad, n, n, n))
    return np.where(idx < 0, idx + n, idx).reshape(-1)


def _take_backward(ctx, g):
    shape, flat = ctx.args
    n = int(np.prod(shape))
    return (index_put_zeros(g.reshape(-1), (n,), (flat,)).reshape(shape),)


TakeBackward0 = node("TakeBackward0", _take_backward, saves=False)


@defop("take", out=True)
def take(input, index, *, out=None):
    """``input.flatten()[index]``, shaped as ``index`` (int64; negative indices count from
    the end).

    Raises:
        RuntimeError: a non-int64 index. IndexError: an index out of range.
    """
    if out is not None:
        return out_call("take", take, (input, index), {}, out)
    idx = _long_index(index, "take")
    x = input._data
    flat = _flat_positions(idx, x.size)
    out = x.reshape(-1)[flat].reshape(idx.shape)
    return record(TakeBackward0, out, (input,), args=(x.shape, flat))


# ------------------------------------------- scatter-add (gather's gradient)
def _scatter_grid(dim, idx):
    """Index arrays addressing, for every position of ``idx``, the element
    ``idx[pos]`` along ``dim`` (the other coordinates as in ``pos``)."""
    grid = list(np.indices(idx.shape, sparse=True))
    grid[dim] = idx
    return tuple(grid)


def _src_grad(g, dim, idx, src_shape, name):
    # derivatives.yaml: src: grad.gather(dim, index); a src larger than the index
    # gets an index-shaped gradient, which PyTorch's engine refuses
    if tuple(idx.shape) != (tuple(src_shape) or (1,) * idx.ndim):
        raise RuntimeError("Function %s returned an invalid gradient at index 1 - got %s but "
                           "expected shape compatible with %s. (src larger than index: only "
                           "the first index.shape elements of src are used, so pass "
                           "src[:index.shape] to backpropagate.)"
                           % (name, list(idx.shape), list(src_shape)))
    gs = gather(g, dim, Tensor._make_plain(idx))
    return gs.reshape(()) if not src_shape else gs       # a 0-d src


def _scatter_add_backward(ctx, g):
    # self: grad; src: grad.gather(dim, index)
    dim, idx, src_shape = ctx.args
    ns, nsrc = ctx.needs_input_grad
    return (g if ns else None,
            _src_grad(g, dim, idx, src_shape, "ScatterAddBackward0") if nsrc else None)


ScatterAddBackward0 = node("ScatterAddBackward0", _scatter_add_backward, saves=False)


def scatter_add_zeros(g, shape, dim, idx):
    """Zeros of ``shape`` with ``g`` added at ``idx`` along ``dim`` (gather's backward)."""
    z = np.zeros(shape, g._data.dtype)
    np.add.at(z, _scatter_grid(dim, idx), g._data)
    return record(ScatterAddBackward0, z, (None, g), args=(dim, idx, g._data.shape))


# the in-place forms and CopySlices run these
_bind_ops(getitem=getitem, AsStridedBackward0=AsStridedBackward0)
