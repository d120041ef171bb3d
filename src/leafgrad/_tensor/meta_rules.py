"""Shape and dtype rules for NumPy code run on meta arrays (``_meta.MetaArray``).

Three kinds of rule, none of which computes a value:

* ufuncs (``__array_ufunc__``): elementwise calls broadcast the operands' shapes;
  ``reduce``/``accumulate``/``outer`` as NumPy's; ``matmul`` with its core dimensions.
* views (transpose, moveaxis, basic indexing, broadcast_to, diagonal, sliding windows,
  ...): NumPy's own function on a layout stand-in (``_layout``: the meta array's shape and
  strides over a one-element buffer, O(1) memory, never read), which gives the view's
  shape, strides and start, so meta views report PyTorch's ``stride()`` and
  ``storage_offset()``. Functions that copy run on zero-stride stand-ins (``_view``).
* the others by hand: reshape, concatenate, stack, where, einsum, reductions.

The dtype of every result is the dtype NumPy gives on one-element stand-ins of the
operands (``np.zeros((), dtype)``; Python numbers stay Python numbers, so NumPy's weak
promotion is the CPU path's). Functions whose result depends on the values
(``nonzero``, ``unique``, boolean masks, ...) and functions not listed here raise
NotImplementedError (``_meta._refuse``).
"""
import math
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

# meta's MetaArray and _refuse: meta binds them when it first loads these rules (it
# imports this module on first use, so importing meta here would make a circle)
_M = _refuse = _like_strides = _elementwise_strides = _view_strides = _index_layout = None


def bind(meta_array, refuse, layout_rules):
    """meta's MetaArray, its refusal and its layout rules (``meta.LAYOUT_RULES``)."""
    global _M, _refuse, _like_strides, _elementwise_strides, _view_strides, _index_layout
    _M, _refuse = meta_array, refuse
    _like_strides, _elementwise_strides, _view_strides, _index_layout = layout_rules


def _is_meta(x):
    return x.__class__ is _M


def _shape(x):
    if isinstance(x, (_M, np.ndarray, np.generic)):
        return x.shape
    if isinstance(x, (list, tuple)):
        return np.shape(x)
    return ()


def _one(x):
    """A one-element stand-in with ``x``'s dtype (Python numbers as they are)."""
    if _is_meta(x) or isinstance(x, np.ndarray):
        return np.zeros((), x.dtype)
    return x


def _view(x):
    """A zero-stride stand-in of ``x``'s shape (no memory)."""
    if _is_meta(x):
        return np.broadcast_to(np.zeros((), x.dtype), x.shape)
    return x


_BUF = {}      # one 1-element buffer per dtype under the layout stand-ins


def _layout(x):
    """A stand-in with ``x``'s shape and strides over a one-element buffer: NumPy's view
    functions on it compute the view's strides and data pointer without reading memory
    (only view functions may be given it: reading would leave the buffer)."""
    buf = _BUF.get(x.dtype)
    if buf is None:
        buf = _BUF[x.dtype] = np.zeros(1, x.dtype)
    return np.lib.stride_tricks.as_strided(buf, x.shape, x.strides)


def _address(a):
    return a.__array_interface__["data"][0]


def _wrap_view(r, src, stand):
    """Meta views of ``src`` for the arrays ``r`` that NumPy made from its stand-in."""
    if isinstance(r, np.ndarray):
        off = src.offset_bytes + _address(r) - _address(stand)
        return _M(r.shape, r.dtype, r.strides, off, src.storage_nbytes)
    if isinstance(r, tuple):
        return tuple(_wrap_view(e, src, stand) for e in r)
    if isinstance(r, list):
        return [_wrap_view(e, src, stand) for e in r]
    return _wrap(r)


def _wrap(r):
    """Meta arrays for a stand-in computation's array results."""
    if isinstance(r, (np.ndarray, np.generic)):
        return _M(np.shape(r), r.dtype)
    if isinstance(r, tuple):
        return tuple(_wrap(e) for e in r)
    if isinstance(r, list):
        return [_wrap(e) for e in r]
    return r


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def check_broadcast(value, shape):
    """Raise NumPy's ValueError when ``value`` does not broadcast to ``shape``."""
    s = _shape(value)
    if np.broadcast_shapes(s, shape) != tuple(shape):
        raise ValueError("could not broadcast input array from shape %s into shape %s"
                         % (s, tuple(shape)))


def _result_out(out, res):
    """``out=`` given: the results are the out arrays (shapes checked)."""
    outs = out if isinstance(out, tuple) else (out,)
    if isinstance(res, tuple):
        for o, r in zip(outs, res):
            check_broadcast(r, o.shape)
        return outs
    check_broadcast(res, outs[0].shape)
    return outs[0]


# ---------------------------------------------------------------- ufuncs
def _matmul_shape(a, b):
    if not a or not b:
        raise ValueError("matmul: Input operand %d does not have enough dimensions"
                         % (0 if not a else 1))
    a1, b1 = len(a) == 1, len(b) == 1
    a = (1,) + a if a1 else a
    b = b + (1,) if b1 else b
    if a[-1] != b[-2]:
        raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size %d is different "
                         "from %d)" % (b[-2], a[-1]))
    shape = np.broadcast_shapes(a[:-2], b[:-2]) + (a[-2], b[-1])
    if b1:
        shape = shape[:-1]
    if a1:
        shape = shape[:-2] + shape[-1:] if not b1 else shape[:-1]
    return shape


def _ufunc_layout(inputs, shape):
    """The meta operands whose layout decides an elementwise result's (PyTorch's
    TensorIterator: ``_meta.elementwise_strides``)."""
    return shape, [x for x in inputs if _is_meta(x)]


def _strides_for(layout, r):
    shape, ops = layout
    return _elementwise_strides(shape, ops, np.asarray(r).dtype) if ops else None


def ufunc_rule(ufunc, method, inputs, kwargs):
    out = kwargs.pop("out", None)
    if out is not None and not isinstance(out, tuple):
        out = (out,)
    if out is not None and all(o is None for o in out):
        out = None
    if method == "__call__":
        kw = {k: v for k, v in kwargs.items() if k in ("dtype", "casting", "signature")}
        if ufunc is np.matmul:
            shape = _matmul_shape(_shape(inputs[0]), _shape(inputs[1]))
            dt = _quiet(ufunc, *[np.zeros((1, 1), x.dtype) if _is_meta(x) or
                                 isinstance(x, np.ndarray) else x for x in inputs], **kw)
            res = _M(shape, dt.dtype)
        else:
            if "where" in kwargs:
                _shape(kwargs["where"])
            shape = np.broadcast_shapes(*[_shape(x) for x in inputs])
            if out is not None and kw.get("dtype") is None and "casting" not in kw:
                kw["casting"] = "same_kind"
            r = _quiet(ufunc, *[_one(x) for x in inputs], **kw)
            layout = _ufunc_layout(inputs, shape)
            res = tuple(_M(shape, np.asarray(e).dtype, _strides_for(layout, e))
                        for e in r) if ufunc.nout > 1 \
                else _M(shape, np.asarray(r).dtype, _strides_for(layout, r))
        return res if out is None else _result_out(out, res)
    x = inputs[0]
    if method == "reduce":
        res = _reduce(lambda p, **k: ufunc.reduce(p, **k), x, **kwargs)
    elif method == "accumulate":
        axis = normalize_axis_index(kwargs.get("axis", 0), x.ndim)
        r = _quiet(ufunc.accumulate, np.zeros((1,) * x.ndim, x.dtype), axis=axis,
                   dtype=kwargs.get("dtype"))
        res = _M(x.shape, r.dtype)
    elif method == "outer":
        r = _quiet(ufunc, *[_one(e) for e in inputs])
        res = _M(_shape(inputs[0]) + _shape(inputs[1]), np.asarray(r).dtype)
    elif method == "at":
        return None
    else:
        raise _refuse("np.%s.%s" % (ufunc.__name__, method))
    return res if out is None else _result_out(out, res)


# ------------------------------------------------------------- reductions
def _reduce(f, a, axis=None, dtype=None, keepdims=False, **kwargs):
    """A reduction over ``axis`` (None: all): the dtype from a stand-in with the same
    number of dimensions (each 1, or 0 where ``a``'s is empty), the shape by hand."""
    nd = a.ndim
    kwargs.pop("out", None)
    kw = dict(kwargs)
    if dtype is not None:
        kw["dtype"] = dtype
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = normalize_axis_tuple(axis, nd)
    stand = np.zeros(tuple(min(s, 1) for s in a.shape), a.dtype)
    r = _quiet(f, stand, axis=axis, keepdims=keepdims, **kw)
    if keepdims:
        shape = tuple(1 if i in axes else s for i, s in enumerate(a.shape))
    else:
        shape = tuple(s for i, s in enumerate(a.shape) if i not in axes)
    return _M(shape, np.asarray(r).dtype)


def _reduction(npf):
    def rule(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if not _is_meta(a):
            return _wrap(npf(a, axis=axis, dtype=dtype, keepdims=keepdims, **kwargs))
        if "where" in kwargs:
            raise _refuse("np.%s(where=...)" % npf.__name__)
        res = _reduce(npf, a, axis, dtype, keepdims, **kwargs)
        return res if out is None else _result_out(out, res)
    return rule


def _arg_reduction(npf):
    def rule(a, axis=None, out=None, keepdims=False):
        res = _reduce(lambda p, **k: npf(p, axis=k["axis"], keepdims=k["keepdims"]), a,
                      axis, None, keepdims)
        if axis is None and not keepdims:
            res = _M((), res.dtype)
        return res if out is None else _result_out(out, res)
    return rule


def _cumulative(npf):
    def rule(a, axis=None, dtype=None, out=None, **kwargs):
        r = _quiet(npf, np.zeros((1,) * max(a.ndim, 1), a.dtype), axis=0, dtype=dtype)
        shape = (a.size,) if axis is None else a.shape
        if axis is not None:
            normalize_axis_index(axis, a.ndim)
        res = _M(shape, r.dtype)
        return res if out is None else _result_out(out, res)
    return rule


# ------------------------------------------------------------------ shapes
def _reshape_shape(size, shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise ValueError("cannot reshape array of size %d into shape %s"
                             % (size, tuple(shape)))
        shape[shape.index(-1)] = size // known
    if math.prod(shape) != size:
        raise ValueError("cannot reshape array of size %d into shape %s" % (size, tuple(shape)))
    return tuple(shape)


def reshape(a, *shape, order="C", copy=None, newshape=None):
    if newshape is not None:
        shape = (newshape,)
    shape = _reshape_shape(a.size, shape)
    st = _view_strides(a.shape, a.strides, shape, a.itemsize)
    if st is None:
        if copy is False:
            raise ValueError("cannot reshape array of size %d into shape %s without copying"
                             % (a.size, shape))
        return _M(shape, a.dtype)       # a copy: row-major
    return _M(shape, a.dtype, st, a.offset_bytes, a.storage_nbytes)


def _np_reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    return reshape(a, shape if shape is not None else newshape)


def _astype(a, dtype, order="K", casting="unsafe", subok=True, copy=True):
    # order 'K' keeps the dims' memory order, as NumPy's (and PyTorch's preserve_format)
    return _M(a.shape, np.dtype(dtype), _like_strides(a, dtype) if order in "KA" else None)


def _view_dtype(a, dtype=None, type=None):
    if dtype is None or np.dtype(dtype) == a.dtype:
        return _M(a.shape, a.dtype, a._strides, a.offset_bytes, a.storage_bytes)
    raise _refuse("ndarray.view(dtype)")


_SMALL = 1 << 20


def _by_view(f, small=False):
    """Run NumPy's ``f`` on zero-stride stand-ins: for functions that return views
    (``small``: functions that copy, refused for meta arrays over 2**20 elements)."""
    def rule(*args, **kwargs):
        if small and any(_is_meta(a) and a.size > _SMALL for a in args):
            raise _refuse("np.%s on a meta array of over 2**20 elements" % f.__name__)
        metas = [a for a in args if _is_meta(a)]
        if not small and len(metas) == 1 and not any(_is_meta(v) for v in kwargs.values()):
            src = metas[0]
            stand = _layout(src)
            return _wrap_view(f(*[stand if a is src else a for a in args], **kwargs), src,
                              stand)
        if f is np.broadcast_arrays and not small and not kwargs and all(map(_is_meta, args)):
            stands = [_layout(a) for a in args]
            return tuple(_wrap_view(r, a, st)
                         for r, a, st in zip(f(*stands), args, stands))
        args = [_view(a) if _is_meta(a) else
                [_view(e) for e in a] if isinstance(a, (list, tuple)) and
                any(_is_meta(e) for e in a) else a for a in args]
        kwargs = {k: _view(v) for k, v in kwargs.items()}
        return _wrap(f(*args, **kwargs))
    return rule


def _method_view(name):
    def rule(a, *args, **kwargs):
        stand = _layout(a)
        return _wrap_view(getattr(stand, name)(*args, **kwargs), a, stand)
    return rule


def _expand_dims(a, axis):
    # PyTorch's unsqueeze stride: the next dim's size times its stride (1 at the end)
    if not _is_meta(a):
        return np.expand_dims(a, axis)
    axes = normalize_axis_tuple(axis, a.ndim + len(np.atleast_1d(axis)))
    shape, st = list(a.shape), list(a.strides)
    for ax in sorted(axes):
        st.insert(ax, shape[ax] * st[ax] if ax < len(shape) else a.itemsize)
        shape.insert(ax, 1)
    return _M(shape, a.dtype, st, a.offset_bytes, a.storage_nbytes)


def _broadcast_to(a, shape, subok=False):
    # PyTorch's expand geometry: 0 for expanded dims, new size-1 dims as unsqueeze's
    if not _is_meta(a):
        return np.broadcast_to(a, shape, subok=subok)
    shape = tuple(np.atleast_1d(shape).tolist()) if not isinstance(shape, int) else (shape,)
    np.broadcast_to(_view(a), shape)      # NumPy's ValueError for shapes that do not fit
    lead = len(shape) - a.ndim
    st = [0] * len(shape)
    for i in range(len(shape) - 1, -1, -1):
        d = i - lead
        size = a.shape[d] if d >= 0 else 1
        stride = a.strides[d] if d >= 0 else (
            shape[i + 1] * st[i + 1] if i + 1 < len(shape) else a.itemsize)
        st[i] = 0 if size != shape[i] else stride
    return _M(shape, a.dtype, st, a.offset_bytes, a.storage_nbytes)


def _diagonal(a, offset=0, axis1=0, axis2=1):
    # PyTorch leaves an empty diagonal's start where it was
    stand = _layout(a)
    r = _wrap_view(np.diagonal(stand, offset, axis1, axis2), a, stand)
    if r.shape[-1] == 0:
        r.offset_bytes = a.offset_bytes
    return r


def _prop_view(name):
    def rule(a):
        stand = _layout(a)
        return _wrap_view(getattr(stand, name), a, stand)
    return rule


def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    if axis is None:
        arrays = [_M((math.prod(_shape(a)),), _dt(a)) for a in arrays]
        axis = 0
    shapes = [_shape(a) for a in arrays]
    nd = len(shapes[0])
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ax = normalize_axis_index(axis, nd)
    for s in shapes:
        if len(s) != nd or any(a != b for i, (a, b) in enumerate(zip(s, shapes[0])) if i != ax):
            raise ValueError("all the input array dimensions except for the concatenation axis "
                             "must match exactly")
    shape = list(shapes[0])
    shape[ax] = sum(s[ax] for s in shapes)
    dt = np.dtype(dtype) if dtype is not None else np.result_type(*[_one(a) for a in arrays])
    res = _M(shape, dt)
    return res if out is None else _result_out(out, res)


def _dt(a):
    return a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype


def _stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    shapes = {_shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    s = shapes.pop()
    ax = normalize_axis_index(axis, len(s) + 1)
    dt = np.dtype(dtype) if dtype is not None else np.result_type(*[_one(a) for a in arrays])
    res = _M(s[:ax] + (len(arrays),) + s[ax:], dt)
    return res if out is None else _result_out(out, res)


def _where(cond, *xy):
    if not xy:
        raise _refuse("np.where(condition) (its size depends on the values)")
    shape = np.broadcast_shapes(*[_shape(e) for e in (cond,) + xy])
    return _M(shape, np.result_type(*[_one(e) for e in xy]))


def _einsum(subscripts, *operands, out=None, dtype=None, optimize=False, **kw):
    if not isinstance(subscripts, str) or "..." in subscripts:
        raise _refuse("np.einsum with '...' or sublists")
    lhs, _, rhs = subscripts.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError("more operands provided to einstein sum function than specified in "
                         "the subscripts string")
    sizes = {}
    for t, op in zip(terms, operands):
        s = _shape(op)
        if len(t) != len(s):
            raise ValueError("operand has more dimensions than subscripts given in einstein "
                             "sum")
        for c, n in zip(t, s):
            if sizes.get(c, n) != n and 1 not in (sizes[c], n):
                raise ValueError("operands could not be broadcast together with remapped "
                                 "shapes")
            sizes[c] = max(sizes.get(c, n), n)
    if not _:
        rhs = "".join(sorted(c for c in sizes if lhs.count(c) == 1))
    dt = np.dtype(dtype) if dtype is not None else np.result_type(*[_one(o) for o in operands])
    res = _M(tuple(sizes[c] for c in rhs), dt)
    return res if out is None else _result_out(out, res)


def _tensordot(a, b, axes=2):
    sa, sb = _shape(a), _shape(b)
    if isinstance(axes, int):
        ia, ib = list(range(len(sa) - axes, len(sa))), list(range(axes))
    else:
        ia, ib = axes
        ia = [ia] if isinstance(ia, int) else list(ia)
        ib = [ib] if isinstance(ib, int) else list(ib)
    ia = [normalize_axis_index(i, len(sa)) for i in ia]
    ib = [normalize_axis_index(i, len(sb)) for i in ib]
    if [sa[i] for i in ia] != [sb[i] for i in ib]:
        raise ValueError("shape-mismatch for sum")
    shape = tuple(s for i, s in enumerate(sa) if i not in ia) + \
        tuple(s for i, s in enumerate(sb) if i not in ib)
    return _M(shape, np.result_type(_one(a), _one(b)))


def _dot(a, b, out=None):
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return np.multiply(a, b, out=out)
    if len(sb) <= 2:
        res = np.matmul(a, b) if len(sa) <= 2 or len(sb) == 1 else None
        if res is not None:
            return res if out is None else _result_out(out, res)
    return _tensordot(a, b, ([-1], [-2 if len(sb) > 1 else -1]))


def _pad(array, pad_width, mode="constant", **kwargs):
    pw = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (array.ndim, 2))
    return _M(tuple(s + int(lo) + int(hi) for s, (lo, hi) in zip(array.shape, pw)), array.dtype)


def _copyto(dst, src, casting="same_kind", where=True):
    if _is_meta(dst):
        check_broadcast(src, dst.shape)
        return None
    raise _refuse("np.copyto from a meta array into a NumPy array")


def _like(a, dtype=None, order="K", subok=True, shape=None, **kw):
    dt = a.dtype if dtype is None else np.dtype(dtype)
    if shape is None:       # order 'K' keeps the dims' memory order, as NumPy's
        return _M(a.shape, dt, _like_strides(a, dt) if order in "KA" else None)
    return _M(tuple(np.atleast_1d(shape)), dt)


def _contiguous(a, dtype=None, *, like=None):
    return _M(a.shape, a.dtype if dtype is None else np.dtype(dtype))


def _np_copy(a, order="K", subok=False):
    return a.copy(order)


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, **kw):
    return _like(a, dtype, shape=shape)


def _dtypes_only(f):
    """``result_type`` / ``can_cast`` / ``promote_types``: on one-element stand-ins."""
    return lambda *args, **kwargs: f(*[_one(a) for a in args], **kwargs)


def _refused(name):
    def rule(*args, **kwargs):
        raise _refuse("np.%s (its result depends on the values)" % name)
    return rule


def getitem(a, key):
    """Basic indexing on a zero-stride stand-in (a view: O(1) memory); integer index
    arrays as NumPy's advanced indexing (their shapes only); boolean masks refused."""
    keys = key if isinstance(key, tuple) else (key,)
    stand, advanced = [], False
    for k in keys:
        if _is_meta(k) or isinstance(k, np.ndarray) or isinstance(k, list):
            dt = _dt(k) if not isinstance(k, list) else np.asarray(k).dtype
            if dt.kind == "b":
                raise _refuse("indexing with a boolean mask (its size depends on the values)")
            if dt.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            # zeros are valid indices of any non-empty dim: the result's shape is NumPy's
            stand.append(np.broadcast_to(np.zeros((), np.intp), _shape(k)))
            advanced = True
        elif isinstance(k, (bool, np.bool_)):
            raise _refuse("indexing with a boolean (its size depends on the values)")
        else:
            stand.append(k)
    if advanced:         # a copy (row-major), computed on the zero-stride stand-in
        return _M(np.shape(_view(a)[tuple(stand)]), a.dtype)
    shape = np.shape(_view(a)[tuple(stand)])     # NumPy's shape (and its IndexErrors)
    st, off = _index_layout(a, stand)
    return _M(shape, a.dtype, st, off, a.storage_nbytes)


# NumPy functions: the view rules, the hand rules, the refusals
FUNCTIONS = {}
for _f in (np.transpose, np.moveaxis, np.swapaxes, np.squeeze, np.expand_dims,
           np.broadcast_to, np.diagonal, np.flip, np.atleast_1d, np.atleast_2d, np.atleast_3d,
           np.broadcast_arrays, np.shape, np.ndim, np.size, np.real, np.imag,
           np.lib.stride_tricks.sliding_window_view, np.rollaxis, np.flipud, np.fliplr,
           np.rot90, np.broadcast_shapes, np.iscomplexobj, np.isrealobj, np.split,
           np.array_split):
    FUNCTIONS[_f] = _by_view(_f)
# these copy: the stand-in's result is allocated, so only for small meta arrays
for _f in (np.triu, np.tril, np.roll, np.take_along_axis, np.ravel, np.diag, np.trace,
           np.tile, np.repeat, np.kron, np.outer, np.take, np.meshgrid, np.vstack, np.hstack,
           np.column_stack, np.dstack, np.diff, np.sort, np.argsort, np.clip):
    FUNCTIONS[_f] = _by_view(_f, small=True)
for _f in (np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.any, np.all,
           np.std, np.var, np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin,
           np.nanstd, np.nanvar, np.count_nonzero, np.ptp):
    FUNCTIONS[_f] = _reduction(_f)
for _f in (np.argmax, np.argmin, np.nanargmax, np.nanargmin):
    FUNCTIONS[_f] = _arg_reduction(_f)
for _f in (np.cumsum, np.cumprod, np.nancumsum, np.nancumprod):
    FUNCTIONS[_f] = _cumulative(_f)
for _f in (np.result_type, np.can_cast, np.promote_types, np.min_scalar_type):
    FUNCTIONS[_f] = _dtypes_only(_f)
for _f in (np.nonzero, np.argwhere, np.flatnonzero, np.unique, np.extract, np.compress,
           np.bincount, np.trim_zeros, np.histogram, np.allclose, np.array_equal,
           np.array_equiv, np.isclose, np.searchsorted, np.digitize, np.putmask, np.place):
    FUNCTIONS[_f] = _refused(_f.__name__)
FUNCTIONS.update({
    np.reshape: _np_reshape, np.concatenate: _concatenate, np.stack: _stack,
    np.where: _where, np.einsum: _einsum, np.tensordot: _tensordot, np.dot: _dot,
    np.pad: _pad, np.copyto: _copyto, np.zeros_like: _like, np.ones_like: _like,
    np.empty_like: _like, np.full_like: _full_like, np.linalg.matmul: np.matmul,
    np.ascontiguousarray: _contiguous, np.copy: _np_copy, np.expand_dims: _expand_dims,
    np.broadcast_to: _broadcast_to, np.diagonal: _diagonal,
})
del _f


def function_rule(func, args, kwargs):
    rule = FUNCTIONS.get(func)
    if rule is None:
        raise _refuse("np.%s" % getattr(func, "__name__", func))
    return rule(*args, **kwargs)


# ndarray methods (MetaArray.__getattr__)
METHODS = {
    "reshape": reshape, "astype": _astype, "view": _view_dtype,
    "ravel": lambda a, order="C": reshape(a, -1),
    "flatten": lambda a, order="C": _M((a.size,), a.dtype),
    "fill": lambda a, value: None,
    "squeeze": _method_view("squeeze"), "swapaxes": _method_view("swapaxes"),
    "diagonal": _diagonal,
    "transpose": _method_view("transpose"),
    "sum": _reduction(np.sum), "mean": _reduction(np.mean), "prod": _reduction(np.prod),
    "max": _reduction(np.max), "min": _reduction(np.min), "any": _reduction(np.any),
    "all": _reduction(np.all), "std": _reduction(np.std), "var": _reduction(np.var),
    "argmax": _arg_reduction(np.argmax), "argmin": _arg_reduction(np.argmin),
    "cumsum": _cumulative(np.cumsum), "cumprod": _cumulative(np.cumprod),
    "dot": _dot, "conj": lambda a: _M(a.shape, a.dtype),
    "tolist": lambda a: (_ for _ in ()).throw(_refuse("tolist (values)")),
    "item": lambda a, *i: (_ for _ in ()).throw(_refuse("item (a value)")),
}
PROPERTIES = {
    "T": _prop_view("T"), "mT": _prop_view("mT"), "real": _prop_view("real"),
    "imag": _prop_view("imag"),
}
