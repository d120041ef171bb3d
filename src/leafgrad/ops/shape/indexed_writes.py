"""Indexed writes (out of place; the in-place forms derive from them): scatter,
scatter_add, scatter_reduce, index_add, index_copy, index_fill, masked_fill,
masked_scatter.

Gradients (PyTorch's derivatives.yaml): ``index_fill``: ``g`` with the filled rows zeroed,
a tensor value gets the sum over the filled rows (as ``masked_fill``, which it is:
the rows along ``dim`` form the mask); ``index_copy``: ``input: g.index_fill(dim, index,
0)``, ``source: g.index_select(dim, index)``; ``masked_scatter``: ``input: g`` zeroed at
the mask, ``source``: the masked elements of ``g`` in order, zeros after them. With
repeated indices, which copy ``index_copy`` keeps is not specified (PyTorch's neither).
"""

import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record, to_tensor
from .._out import out_call
from .._registry import defop, node
from .._select import select
from ..inplace import writes as IW
from ..inplace.arithmetic import _bind_ops
from .indexing import index_select, _long_index, _scatter_grid, ScatterAddBackward0, _src_grad


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
    """Copy of ``input`` with ``value`` where ``mask`` is True (the two broadcast)."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype %s"
                           % m.dtype)
    x = input._data
    vt = value if isinstance(value, Tensor) else None
    v = value._data if vt is not None else value
    if vt is not None and vt._requires_grad and x.dtype.kind not in "fc":
        raise RuntimeError("Autograd not support dtype: %s: a value that requires grad "
                           "cannot be written into a %s tensor. Fix: input.float(), or "
                           "value.detach()" % (_errors.type_name(x.dtype), x.dtype))
    try:
        np.broadcast_shapes(m.shape, x.shape)
    except ValueError:
        raise _errors.broadcast(x.shape, m.shape) from None
    # out of place, input and mask broadcast both ways (PyTorch's expand, then masked_fill_;
    # the in-place form refuses a result bigger than self)
    out = np.where(m, np.asarray(v, dtype=x.dtype), x)
    return record(MaskedFillBackward0 if vt is None else MaskedFillBackward1, out, (input, vt),
                  args=(Tensor._make_plain(m), vt is not None))


def _dim_mask(x, dim, idx, name, negative=True):
    """Bool mask of ``x``'s shape selecting the rows ``idx`` along ``dim``."""
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar. Fix: index.flatten()")
    idx = idx.reshape(-1)
    if x.ndim == 0:
        _wrap_dim(dim, 0)
        n, d = 1, None
    else:
        d = _wrap_dim(dim, x.ndim)
        n = x.shape[d]
    lo = -n if negative else 0
    if idx.size and (idx.max() >= n or idx.min() < lo):
        bad = int(idx.max() if idx.max() >= n else idx.min())
        raise IndexError("%sindex %d is out of bounds for dimension %d with size %d. Fix: "
                         "indices in [%d, %d)" % (name, bad, 0 if d is None else d, n, lo, n))
    rows = np.zeros(n, bool)
    rows[idx] = True
    if d is None:
        return rows.reshape(()), d, np.where(idx < 0, idx + n, idx)
    shape = [1] * x.ndim
    shape[d] = n
    return np.broadcast_to(rows.reshape(shape), x.shape), d, np.where(idx < 0, idx + n, idx)


IndexFillBackward0 = type("IndexFillBackward0", (MaskedFillBackward0,), {"__slots__": ()})
IndexFillBackward1 = type("IndexFillBackward1", (MaskedFillBackward0,), {"__slots__": ()})


@defop("index_fill", inplace=True)
def index_fill(input, dim, index, value):
    """Copy of ``input`` with the rows ``index`` (int64, 1-D or 0-d) along ``dim`` set to
    ``value`` (a number or a 0-d tensor).

    Raises:
        RuntimeError: an N-D index, or a value tensor that is not 0-d.
        IndexError: an index out of range or not int64.
    """
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype != np.int64:       # PyTorch: IndexError here (RuntimeError in take)
        raise IndexError("index_fill_(): Expected dtype int64 for index. Fix: index.long()")
    if isinstance(value, Tensor) and value.dim():
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           "tensor with %d dimension(s). Fix: pass a number or a 0-d tensor"
                           % value.dim())
    mask, _, _ = _dim_mask(input._data, dim, idx, "")
    if isinstance(value, Tensor) and value._data.dtype != input._data.dtype:
        value = value.to(input.dtype)
    out = masked_fill(input, Tensor._make_plain(np.array(mask)), value)
    if out._grad_fn is not None and isinstance(out._grad_fn, MaskedFillBackward0):
        out._grad_fn.__class__ = IndexFillBackward1 if isinstance(value, Tensor) else \
            IndexFillBackward0
    return out


def _index_copy_backward(ctx, g):
    d, idx = ctx.args
    ni, ns = ctx.needs_input_grad
    it = Tensor._make_plain(idx)
    if d is None:       # 0-d self and source
        return (g * 0 if ni else None, g if ns else None)
    return (index_fill(g, d, it, 0.0) if ni else None,
            index_select(g, d, it) if ns else None)


IndexCopyBackward0 = node("IndexCopyBackward0", _index_copy_backward, saves=False)


@defop("index_copy", inplace=True, out=True)
def index_copy(input, dim, index, source, *, out=None):
    """Copy of ``input`` with ``source``'s slices along ``dim`` written at the rows
    ``index`` (int64, non-negative, one per slice of ``source``).

    Raises:
        RuntimeError: mixed dtypes, a non-int64 index. IndexError: an index out of range
        or a count that differs from ``source.size(dim)``.
    """
    if out is not None:
        return out_call("index_copy", index_copy, (input, dim, index, source), {}, out)
    idx = _long_index(index, "index_copy")
    source = to_tensor(source)
    x, s = input._data, source._data
    if x.dtype != s.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, "
                           "but got (self) %s and (source) %s. Fix: source.to(x.dtype)" % (
                               _errors.type_name(x.dtype), _errors.type_name(s.dtype)))
    _, d, flat = _dim_mask(x, dim, idx, "index_copy_(): ", negative=False)
    k = s.shape[d] if d is not None and s.ndim else 1
    if flat.size != k:
        raise IndexError("index_copy_(): Number of indices (%d) should be equal to "
                         "source.size(dim) (%d). Fix: one index per slice of source"
                         % (flat.size, k))
    out = x.copy()
    if d is None:
        out[...] = s.reshape(())
    else:
        key = (slice(None),) * d + (flat,)
        try:
            out[key] = s
        except ValueError:
            raise RuntimeError("index_copy_(): source %s does not fit the selected slices of "
                               "self %s. Fix: source's shape is self's with size(dim) = "
                               "len(index)" % (list(s.shape), list(x.shape))) from None
    return record(IndexCopyBackward0, out, (input, source), args=(d, flat))


def _masked_scatter_backward(ctx, g):
    from .joins import cat
    m, src_shape = ctx.args
    ni, ns = ctx.needs_input_grad
    mt = Tensor._make_plain(m)
    gi = masked_fill(g, mt, 0.0) if ni else None
    gs = None
    if ns:
        picked = g.masked_select(mt)
        total = int(np.prod(src_shape))
        rest = total - picked.shape[0]
        gs = cat([picked, Tensor._make_plain(np.zeros(rest, g._data.dtype))]) if rest \
            else picked
        gs = gs.reshape(src_shape)
    return gi, gs


MaskedScatterBackward0 = node("MaskedScatterBackward0", _masked_scatter_backward,
                              saves=False)


@defop("masked_scatter", inplace=True)
def masked_scatter(input, mask, source):
    """Copy of ``input`` with ``source``'s elements (in row-major order) written where
    ``mask`` (bool; the two broadcast) is True.

    Raises:
        RuntimeError: a non-bool mask, or fewer source elements than True values.
    """
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           "dtype %s. Fix: mask.bool()" % _errors.type_name(m.dtype))
    source = to_tensor(source)
    x, s = input._data, source._data
    try:    # input and mask broadcast both ways out of place (PyTorch's expand first)
        shape = np.broadcast_shapes(x.shape, m.shape)
    except ValueError:
        raise _errors.broadcast(x.shape, m.shape) from None
    m = np.broadcast_to(m, shape)
    k = int(m.sum())
    if k > s.size:
        raise RuntimeError("Number of elements of source < number of ones in mask. Fix: "
                           "source needs at least mask.sum() elements")
    out = np.broadcast_to(x, shape).copy()
    out[m] = s.reshape(-1)[:k].astype(x.dtype, copy=False)
    return record(MaskedScatterBackward0, out, (input, source),
                  args=(np.array(m), s.shape))


# ------------------------------------------------------------ scatter_reduce
_REDUCE_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
                 "amin": np.minimum}


def _identity(reduce, dt):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dt.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dt.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dt)
    return info.min if reduce == "amax" else info.max


def _delayed_error_backward(ctx, g):
    op, arg = ("index_reduce", "source") if ctx.args[0].startswith("Index") else \
        ("scatter_reduce", "src")
    raise RuntimeError("%s(): Double backward is unsupported for %s when >1 zeros in %s are "
                       "scattered to the same position in self. Fix: differentiate once, or "
                       "keep the zeros of %s apart" % (op, arg, arg, arg))


# PyTorch's DelayedError: the gradient is there, differentiating it again raises
_DelayedError = node("Error", _delayed_error_backward, saves=False)


def _delayed_error(t, node_name):
    return record(_DelayedError, t._data, (t,), args=(node_name,))


def _scatter_reduce_backward(ctx, g):
    # PyTorch's scatter_reduce_backward (FunctionsManual.cpp), with leafgrad ops
    from ..elementwise.pointwise import where
    x, src = ctx._checked_saved
    res = ctx.result
    d, idx, reduce, include_self = ctx.args
    ni, ns = ctx.needs_input_grad
    if ns:
        _src_grad(g.detach(), d, idx, src.shape, "ScatterReduceBackward0")   # shape check
    it = Tensor._make_plain(idx)
    dt = g.dtype
    if reduce == "sum":
        gs, gsrc = g, g.gather(d, it)
    elif reduce == "mean":
        n = np.ones(g.shape, g._data.dtype) if include_self else np.zeros(g.shape, g._data.dtype)
        np.add.at(n, _scatter_grid(d, idx), 1)
        n[n == 0] = 1
        nt = Tensor._make_plain(n)
        gs, gsrc = g / nt, g.gather(d, it) / nt.gather(d, it)
    elif reduce in ("amax", "amin"):
        value = res.gather(d, it)
        self_is = (x == res).to(dt)
        src_is = (src == value).to(dt)
        gd = g / self_is.scatter_add(d, it, src_is)
        gs, gsrc = self_is * gd, src_is * gd.gather(d, it)
    else:   # prod: exact where one zero is scattered to a position
        masked_self = x.masked_fill(x == 0, 1)
        gs = g * scatter_reduce(masked_self, d, it, src, reduce, include_self=include_self) \
            / masked_self
        src_zero = src == 0
        # zeros, not x * 0 (nan where x is inf or nan): the count of zeros per position
        nz = x.new_zeros(x.shape).scatter_add(d, it, src_zero.to(dt)).gather(d, it)
        single = Tensor._make_plain(src_zero._data & (nz._data == 1))
        masked_src_result = scatter_reduce(x, d, it, src.masked_fill(single, 1), reduce,
                                           include_self=include_self)
        gsrc = where(single, (g * masked_src_result).gather(d, it),
                     (g * res).gather(d, it) / src.masked_fill(src_zero, 1))
        if ns and (nz._data > 1).any():
            gsrc = _delayed_error(gsrc, type(ctx).__name__)
    if not include_self:
        gs = gs.scatter(d, it, 0)
    return (gs if ni else None, gsrc if ns else None)


ScatterReduceBackward0 = node("ScatterReduceBackward0", _scatter_reduce_backward, saves=True)


@defop("scatter_reduce", inplace=True, out=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Copy of ``input`` with ``src``'s values reduced into the positions ``index`` along
    ``dim`` (as ``scatter_add``, for dim=1: ``out[i][index[i][j]] op= src[i][j]``) by
    ``reduce``: "sum", "prod", "mean", "amax" or "amin" ("max", "min" accepted as
    PyTorch does); ``include_self=False`` leaves
    ``input``'s own values out at the scattered positions. Shapes as ``scatter``.
    Gradients: PyTorch's scatter_reduce_backward (amax/amin split evenly among equal
    values; prod exact with one zero per position).

    Raises:
        RuntimeError: an unknown ``reduce``; the errors of ``scatter``.
    """
    if out is not None:
        return out_call("scatter_reduce", scatter_reduce, (input, dim, index, src, reduce),
                        {"include_self": include_self}, out)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)     # PyTorch's aliases
    if reduce not in _REDUCE_UFUNC:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           "%s. Fix: one of those" % reduce)
    src = to_tensor(src)
    x, d, idx, sd = _scatter_args(input, dim, index, src, "scatter_reduce")
    return _reduce_into(ScatterReduceBackward0, input, src, d, idx.astype(np.int64), sd, reduce,
                       include_self)


def _reduce_into(cls, input, src, d, idx, sd, reduce, include_self):
    """``scatter_reduce``'s result from checked arguments (``idx`` int64, ``sd`` the values
    of ``src`` it addresses, of its shape), recorded as ``cls`` (ScatterReduceBackward0's
    rule; index_reduce's node too)."""
    x = input._data
    out = x.copy()
    view = out.reshape(x.shape if x.ndim else (1,))
    grid = _scatter_grid(d, idx)
    if not include_self:
        view[grid] = _identity(reduce, x.dtype)
    with np.errstate(all="ignore"):
        _REDUCE_UFUNC[reduce].at(view, grid, sd)
        if reduce == "mean":
            n = np.ones(view.shape, np.int64) if include_self else np.zeros(view.shape, np.int64)
            np.add.at(n, grid, 1)
            n[n == 0] = 1
            view[...] = (view / n if x.dtype.kind in "fc" else view // n).astype(x.dtype)
    return record(cls, out, (input, src), saved=(input, src),
                  save_result=True, args=(d, idx, reduce, include_self))


def _scatter_src_backward(ctx, g):
    # self: grad.scatter(dim, index, 0); src: grad.gather(dim, index)
    dim, idx, src_shape = ctx.args
    ns, nsrc = ctx.needs_input_grad
    return (_scatter_value(g, dim, idx, 0) if ns else None,
            _src_grad(g, dim, idx, src_shape, "ScatterBackward0") if nsrc else None)


def _scatter_value_backward(ctx, g):
    dim, idx = ctx.args
    return (_scatter_value(g, dim, idx, 0),)


ScatterBackward0 = node("ScatterBackward0", _scatter_src_backward, saves=False)


ScatterBackward1 = node("ScatterBackward1", _scatter_value_backward, saves=False)


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




# ---------------------------------------------------------------- index_add
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


# the in-place forms run these
_bind_ops(index_add=index_add, scatter=scatter, scatter_add=scatter_add, masked_fill=masked_fill)
