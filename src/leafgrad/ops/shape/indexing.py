"""Indexing: ``x[key]`` (basic and advanced), index_select, gather, masked ops.

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
from ..inplace import writes as IW
from ..inplace.arithmetic import _bind_ops
from .._registry import defop, node
from .._named import grad_fn_named
from .._select import select




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


# ---------------------------------------------------------------- scatter
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


def _scatter_src_backward(ctx, g):
    # self: grad.scatter(dim, index, 0); src: grad.gather(dim, index)
    dim, idx, src_shape = ctx.args
    ns, nsrc = ctx.needs_input_grad
    return (_scatter_value(g, dim, idx, 0) if ns else None,
            _src_grad(g, dim, idx, src_shape, "ScatterBackward0") if nsrc else None)


def _scatter_value_backward(ctx, g):
    dim, idx = ctx.args
    return (_scatter_value(g, dim, idx, 0),)


ScatterAddBackward0 = node("ScatterAddBackward0", _scatter_add_backward, saves=False)
ScatterBackward0 = node("ScatterBackward0", _scatter_src_backward, saves=False)
ScatterBackward1 = node("ScatterBackward1", _scatter_value_backward, saves=False)


def scatter_add_zeros(g, shape, dim, idx):
    """Zeros of ``shape`` with ``g`` added at ``idx`` along ``dim`` (gather's backward)."""
    z = np.zeros(shape, g._data.dtype)
    np.add.at(z, _scatter_grid(dim, idx), g._data)
    return record(ScatterAddBackward0, z, (None, g), args=(dim, idx, g._data.shape))


def _scatter_args(input, dim, index, src, name):
    """Checked (x, dim, index array, src array) for scatter/scatter_add, with PyTorch's
    errors; a 0-d input or index counts as one element."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype.kind not in "iu":
        raise RuntimeError("%s(): Expected dtype int32/int64 for index (got %s). Fix: "
                           "index.long()" % (name, idx.dtype))
    nd = max(x.ndim, 1)
    if idx.ndim == 0:
        idx = idx.reshape((1,) * nd)
    if idx.ndim != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self "
                           "tensor (%d vs %d)" % (idx.ndim, nd))
    if src is not None:
        sd = src._data
        if sd.dtype != x.dtype:
            raise RuntimeError("%s(): Expected self.dtype to be equal to src.dtype (%s vs %s). "
                               "Fix: src.to(self.dtype)" % (name, x.dtype, sd.dtype))
        if sd.ndim == 0:
            sd = sd.reshape((1,) * nd)
        if sd.ndim != nd:
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
    xs = x.shape if x.ndim else (1,)
    too_big = any(idx.shape[i] > xs[i] for i in range(nd) if i != d) or (
        src is not None and any(i > s for i, s in zip(idx.shape, sd.shape)))
    if too_big:
        raise RuntimeError("Expected index %s to be no larger than self %s apart from dimension "
                           "%d%s" % (list(idx.shape), list(x.shape), d,
                                     "" if src is None else " and to be no larger size than "
                                     "src %s" % list(src._data.shape)))
    if idx.size and (idx.max() >= xs[d] or idx.min() < 0):
        bad = idx.max() if idx.max() >= xs[d] else idx.min()
        raise RuntimeError("index %d is out of bounds for dimension %d with size %d"
                           % (bad, d, xs[d]))
    if src is not None:
        sd = sd[tuple(slice(0, n) for n in idx.shape)]
    return x, d, idx, (sd if src is not None else None)


def _scatter_value(input, dim, idx, value):
    x = input._data
    out = x.copy()
    out.reshape(x.shape if x.ndim else (1,))[_scatter_grid(dim, idx)] = value
    return record(ScatterBackward1, out, (input,), args=(dim, idx))


@defop("scatter", out=True, inplace=IW.scatter_)
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """Copy of ``input`` with ``src`` (a tensor) or ``value`` (a number) written at
    ``index`` along ``dim``: ``out[i][index[i][j]] = src[i][j]`` for dim=1.

    Shapes: ``index`` has input's number of dims and is no larger than ``src``
    (only ``src[:index.shape]`` is used), nor than ``input`` outside ``dim``.
    Where ``index`` repeats a position, one of the writes wins (as PyTorch: use
    scatter_add to sum). Gradients (derivatives.yaml): input gets
    ``grad.scatter(dim, index, 0)``, src gets ``grad.gather(dim, index)``.

    Raises:
        RuntimeError: an index out of bounds or of a non-integer dtype, mismatched
            dims or sizes, src of another dtype.
        NotImplementedError: ``reduce`` (use scatter_add for sums).
    """
    if reduce is not None:
        raise NotImplementedError("scatter(reduce=%r) is not supported in leafgrad. Fix: use "
                                  "scatter_add for 'add'." % (reduce,))
    if src is None:
        src = value
    if not isinstance(src, Tensor):
        x, d, idx, _ = _scatter_args(input, dim, index, None, "scatter")
        return _scatter_value(input, d, idx, src)
    x, d, idx, sd = _scatter_args(input, dim, index, src, "scatter")
    out = x.copy()
    out.reshape(x.shape if x.ndim else (1,))[_scatter_grid(d, idx)] = sd
    return record(ScatterBackward0, out, (input, src), args=(d, idx, src._data.shape))


@defop("scatter_add", out=True, inplace=IW.scatter_add_)
def scatter_add(input, dim, index, src):
    """Copy of ``input`` with ``src`` added at ``index`` along ``dim``; repeated
    positions accumulate. Shapes and errors as ``scatter``. Gradients: input gets
    ``grad``, src gets ``grad.gather(dim, index)``."""
    x, d, idx, sd = _scatter_args(input, dim, index, src, "scatter_add")
    out = x.copy()
    np.add.at(out.reshape(x.shape if x.ndim else (1,)), _scatter_grid(d, idx), sd)
    return record(ScatterAddBackward0, out, (input, src), args=(d, idx, src._data.shape))


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


def _masked_fill_backward(ctx, g):
    mask, value_is_tensor = ctx.args
    ni, nv = ctx.needs_input_grad
    gi = g.masked_fill(mask, 0.0) if ni else None
    gv = select(mask, g).sum() if nv else None     # where(mask, grad, 0).sum(), as PyTorch
    return gi, gv


MaskedFillBackward0 = node("MaskedFillBackward0", _masked_fill_backward, saves=False)
# a tensor value: PyTorch's masked_fill.Tensor overload (the same rule)
MaskedFillBackward1 = type("MaskedFillBackward1", (MaskedFillBackward0,), {"__slots__": ()})


@defop("masked_fill", inplace=IW.masked_fill_)
def masked_fill(input, mask, value):
    """Copy of ``input`` with ``value`` where ``mask`` is True (mask broadcasts)."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype %s"
                           % m.dtype)
    x = input._data
    vt = value if isinstance(value, Tensor) else None
    v = value._data if vt is not None else value
    try:
        np.broadcast_shapes(m.shape, x.shape)
    except ValueError:
        raise _errors.broadcast(x.shape, m.shape) from None
    out = np.where(m, np.asarray(v, dtype=x.dtype), x)
    if out.shape != x.shape:
        raise RuntimeError("The size of the mask %s must be broadcastable to the input %s"
                           % (tuple(m.shape), tuple(x.shape)))
    return record(MaskedFillBackward0 if vt is None else MaskedFillBackward1, out, (input, vt),
                  args=(Tensor._make_plain(m), vt is not None))


@defop("masked_select", out=True)
@grad_fn_named("MaskedSelectBackward0")
def masked_select(input, mask):
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    shape = np.broadcast_shapes(input._data.shape, m.shape)
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



# ------------------------------------------------------ index_add, unique_consecutive
def _index_add_backward(ctx, g):
    dim, idx, alpha, sshape = ctx.args
    ns, nsrc = ctx.needs_input_grad
    gsrc = None
    if nsrc:
        gsrc = index_select(g, dim, idx) if len(sshape) else index_select(g, dim, idx).reshape(())
        if alpha != 1:
            gsrc = gsrc * alpha
    return (g if ns else None), gsrc


IndexAddBackward0 = node("IndexAddBackward0", _index_add_backward, saves=False)


@defop("index_add", out=True, inplace=IW.index_add_)
def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added at ``index`` (1-D int) along ``dim``;
    repeated indices accumulate (``np.add.at``). ``source`` has ``input``'s shape
    with ``dim`` of size ``len(index)``; the result has ``input``'s dtype.

    Gradients: ``g`` for ``input``; ``alpha * g.index_select(dim, index)`` for
    ``source`` (PyTorch's derivatives.yaml).

    Raises:
        IndexError: an index out of range; RuntimeError: wrong index or source shape,
        or source and input dtypes that differ (as PyTorch).
    """
    from .._dispatch import to_tensor
    from ..._core.errors import type_name
    x = input._data
    src = to_tensor(source)
    s = src._data
    d = _wrap_dim(dim, x.ndim) if x.ndim else 0
    idx = np.asarray(index._data if isinstance(index, Tensor) else index)
    if idx.ndim > 1 or idx.dtype.kind not in "iu":
        raise RuntimeError("index_add_(): Index is supposed to be a vector of Long or Int")
    idx = idx.reshape(-1).astype(np.int64)
    if s.dtype != x.dtype:
        raise RuntimeError("index_add_(): self (%s) and source (%s) must have the same scalar "
                           "type" % (type_name(x.dtype), type_name(s.dtype)))
    n = x.shape[d] if x.ndim else 1
    if idx.size and (idx.max() >= n or idx.min() < -n):
        raise IndexError("index out of range in self")
    want = x.shape[:d] + (idx.size,) + x.shape[d + 1:] if x.ndim else ()
    if s.shape != want and not (x.ndim == 0 and s.size == 1):
        raise RuntimeError("index_add_(): Source/destination tensor must have same slice "
                           "shapes. Destination slice shape: %s at dimension %d and source "
                           "slice shape: %s at dimension %d."
                           % (list(x.shape), d, list(s.shape), d))
    out = x.copy()
    if x.ndim == 0:
        out = out + alpha * s.reshape(())
    else:
        np.add.at(np.moveaxis(out, d, 0), idx, np.moveaxis(s * alpha if alpha != 1 else s, d, 0))
    return record(IndexAddBackward0, np.asarray(out, dtype=x.dtype), (input, src),
                  args=(d, idx, alpha, s.shape))


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


# the in-place forms and CopySlices run these
_bind_ops(getitem=getitem, AsStridedBackward0=AsStridedBackward0, index_add=index_add,
          scatter=scatter, scatter_add=scatter_add, masked_fill=masked_fill)
