"""PyTorch's ``meta`` device: tensors with a shape and a dtype but no values.

A meta tensor's data is a :class:`MetaArray`: a shape and a dtype, no memory. Ops run
their usual NumPy code on it, and the MetaArray answers NumPy's protocols
(``__array_ufunc__``, ``__array_function__``, the ndarray methods the ops call) with
shapes and dtypes only: elementwise ufuncs broadcast, reductions drop or keep axes,
views (transpose, basic indexing, broadcast_to, ...) are taken on an O(1)-memory stand-in,
so ``conv(torch.rand(2**10, 3, 2**16, 2**16, device='meta'))`` costs microseconds, as
PyTorch's meta kernels. A meta array carries its strides and its start in its storage, so
a view's ``stride()``, ``storage_offset()`` and ``is_contiguous()`` are PyTorch's (its
select / slice / unsqueeze / expand / view rules; copies keep a dense input's strides, as
preserve_format; elementwise results are laid out as PyTorch's meta kernels lay them out). The dtype of a result is the one NumPy gives on
one-element stand-ins of the operands, so promotion is the CPU path's.

Values never come out: ``item``, ``tolist``, ``numpy``, ``bool(t)``, copies to the CPU
and ops whose output shape depends on the values (``nonzero``, ``unique``, boolean masks)
raise NotImplementedError, as PyTorch's meta device. An op whose NumPy code this module
does not know (``_tensor/meta_rules.py`` lists what it knows) raises NotImplementedError too;
none gives made-up numbers.

Source: https://pytorch.org/docs/stable/meta.html
"""
import math

import numpy as np


def _refuse(what):
    return NotImplementedError(
        "Could not run %s with arguments from the 'Meta' backend: leafgrad infers the shape "
        "and dtype of an op's result on the 'meta' device only for ops whose NumPy code it "
        "knows (elementwise, reductions, views, matmul, convolution, pooling, ...), and "
        "never for results that depend on the values. Fix: run this op on the CPU (give "
        "the module real parameters with module.to_empty(device='cpu'), or keep the tensor "
        "on the CPU)." % what)


class _Flags:
    """``ndarray.flags`` of a meta array: contiguity from its strides, as NumPy's (dims of
    size 1 and empty arrays do not break it), writeable, owning its data unless a view."""
    __slots__ = ("c_contiguous", "f_contiguous", "owndata")
    writeable = True

    def __init__(self, a):
        self.c_contiguous = a._strides is None or _dense(a.shape, a._strides, a.itemsize)
        self.f_contiguous = (a.ndim <= 1 and self.c_contiguous) or _dense(
            a.shape[::-1], a.strides[::-1], a.itemsize)
        self.owndata = a._strides is None and not a.offset_bytes


def _dense(shape, strides, item):
    # NumPy's contiguity test: every dim of size > 1 has the row-major stride
    if 0 in shape:
        return True
    acc = item
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != acc:
            return False
        acc *= n
    return True


def _c_strides(shape, item):
    st, acc = [], item
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


class MetaArray:
    """The data of a meta tensor: ``shape`` and ``dtype`` (and what follows from them);
    NumPy functions and ufuncs on it give MetaArrays of the result's shape and dtype
    (``_meta_rules``), reading values raises NotImplementedError."""
    __slots__ = ("shape", "dtype", "_strides", "offset_bytes", "storage_bytes")
    __array_priority__ = 2000
    base = None

    def __init__(self, shape, dtype, strides=None, offset_bytes=0, storage_bytes=None):
        # strides (bytes) None: row-major; a view's strides, its start in its storage
        # (bytes) and the storage's size (bytes; None: its own nbytes) as PyTorch's meta views
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self._strides = None if strides is None else tuple(int(s) for s in strides)
        self.offset_bytes = offset_bytes
        self.storage_bytes = storage_bytes

    @property
    def flags(self):
        return _Flags(self)

    @property
    def storage_nbytes(self):
        """The bytes of the storage this array views (its own for a fresh array)."""
        return self.nbytes if self.storage_bytes is None else self.storage_bytes

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def strides(self):
        # bytes: a view's own, else contiguous (row-major), as a fresh tensor's
        if self._strides is not None:
            return self._strides
        return _c_strides(self.shape, self.dtype.itemsize)

    def copy(self, order="C"):
        # order "K"/"A" keep the dims' memory order (np.copy's default), as NumPy's copies
        return MetaArray(self.shape, self.dtype,
                         like_strides(self, self.dtype) if order in "KA" else
                         None if order == "C" else _c_strides(self.shape[::-1], self.itemsize)[::-1])

    def __deepcopy__(self, memo):
        return self.copy()

    def __repr__(self):
        return "MetaArray(shape=%s, dtype=%s)" % (self.shape, self.dtype)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    # NumPy's protocols: the rules are in meta_rules (loaded on first use, _load_rules)
    def __array__(self, dtype=None, copy=None):
        raise _refuse("a conversion to a NumPy array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return (_rules or _load_rules()).ufunc_rule(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return (_rules or _load_rules()).function_rule(func, args, kwargs)

    def __getattr__(self, name):
        # ndarray methods (reshape, sum, astype, ...): _meta_rules.METHODS
        if name.startswith("__"):
            raise AttributeError(name)
        rules = _rules or _load_rules()
        prop = rules.PROPERTIES.get(name)
        if prop is not None:
            return prop(self)
        rule = rules.METHODS.get(name)
        if rule is None:
            raise _refuse("ndarray.%s" % name)
        return lambda *a, **k: rule(self, *a, **k)

    def __getitem__(self, key):
        return (_rules or _load_rules()).getitem(self, key)

    def __setitem__(self, key, value):
        rules = _rules or _load_rules()
        rules.check_broadcast(value, rules.getitem(self, key).shape)

    def __bool__(self):
        raise _refuse("bool() (a value)")

    def __float__(self):
        raise _refuse("float() (a value)")

    def __int__(self):
        raise _refuse("int() (a value)")

    def __index__(self):
        raise _refuse("an index (a value)")

    def __iter__(self):
        raise _refuse("iteration (values)")


_rules = None      # meta_rules once loaded: its tables cost ~10 ms, which `import leafgrad` skips


def _load_rules():
    global _rules
    from . import meta_rules
    meta_rules.bind(MetaArray, _refuse, (like_strides, elementwise_strides, view_strides,
                                        index_layout))
    _rules = meta_rules
    return meta_rules


def _binop(ufunc, reflected=False):
    if reflected:
        return lambda a, b: ufunc(b, a)
    return lambda a, b: ufunc(a, b)


def _iop(ufunc):
    return lambda a, b: ufunc(a, b, out=(a,))


for _name, _uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                   ("mod", np.remainder), ("pow", np.power), ("matmul", np.matmul),
                   ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
                   ("lshift", np.left_shift), ("rshift", np.right_shift)):
    setattr(MetaArray, "__%s__" % _name, _binop(_uf))
    setattr(MetaArray, "__r%s__" % _name, _binop(_uf, True))
    setattr(MetaArray, "__i%s__" % _name, _iop(_uf))
for _name, _uf in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                   ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
    setattr(MetaArray, "__%s__" % _name, _binop(_uf))
MetaArray.__neg__ = lambda a: np.negative(a)
MetaArray.__pos__ = lambda a: np.positive(a)
MetaArray.__abs__ = lambda a: np.absolute(a)
MetaArray.__invert__ = lambda a: np.invert(a)
MetaArray.__hash__ = object.__hash__
del _name, _uf


def same_device(inputs, out=None):
    """An op's result is a meta array: raise PyTorch's RuntimeError when one of its
    tensor ``inputs`` is a CPU tensor with dimensions (0-d CPU tensors mix, as PyTorch's
    scalars). Returns ``out``."""
    first = None
    for t in inputs:
        if t is None or not hasattr(t, "_data"):
            continue
        d = t._data
        dev = "meta" if d.__class__ is MetaArray else "cpu" if d.ndim else None
        if dev is None:
            continue
        if first is None:
            first = dev
        elif dev != first:
            raise RuntimeError(
                "Tensor on device %s is not on the expected device %s! Fix: move both "
                "operands to one device (x.to('meta'), or give the module real parameters "
                "with module.to_empty(device='cpu'))." % (dev, first))
    return out


def asarray(x, dtype=None):
    """``np.asarray(x, dtype)`` that keeps a meta array meta (with that dtype)."""
    if x.__class__ is MetaArray:
        return x if dtype is None or np.dtype(dtype) == x.dtype else MetaArray(x.shape, dtype)
    return np.asarray(x, dtype)


def strided(x, shape, strides, offset_bytes=0, dtype=None):
    """A meta view of ``x``'s storage: ``shape``, ``strides`` (bytes) and a start
    ``offset_bytes`` past ``x``'s own (as ``np.lib.stride_tricks.as_strided`` on ``x``)."""
    return MetaArray(shape, x.dtype if dtype is None else dtype, strides,
                     x.offset_bytes + offset_bytes, x.storage_nbytes)


def _dense_el(shape, st):
    # PyTorch's is_non_overlapping_and_dense: the dims of size > 1, by stride, tile memory
    dims = sorted((i for i in range(len(shape)) if shape[i] > 1), key=lambda i: st[i])
    need = 1
    for i in dims:
        if st[i] != need:
            return False
        need *= shape[i]
    return True


def _perm_strides(shape, operands):
    """Row-major strides (elements) over the dims sorted as PyTorch's TensorIterator sorts
    them (``reorder_dimensions``: by the operands' strides, broadcast dims ignored, equal
    strides putting the smaller dim inside)."""
    nd = len(shape)

    def should_swap(d0, d1):
        for st in operands:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0
    perm = list(range(nd - 1, -1, -1))        # innermost first
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out, acc = [0] * nd, 1
    for d in perm:
        out[d] = acc
        acc *= max(shape[d], 1)
    return out


# the channels-last dim order (innermost first) of 4-d tensors (TensorIterator's fast
# setup checks channels_last only, not channels_last_3d)
_CHANNELS_LAST = {4: (1, 3, 2, 0)}


def _dense_in(shape, st, order):
    need = 1
    for d in order:
        if shape[d] != 1:
            if st[d] != need:
                return False
            need *= shape[d]
    return True


def _strides_in(shape, order):
    out, acc = [0] * len(shape), 1
    for d in order:
        out[d] = acc
        acc *= max(shape[d], 1)
    return out


def _scaled(shape, st_el, dtype):
    item = np.dtype(dtype).itemsize
    st = tuple(s * item for s in st_el)
    return None if st == _c_strides(shape, item) else st


def like_strides(a, dtype):
    """The strides (bytes of ``dtype``; None: row-major) PyTorch's preserve_format gives a
    copy of ``a`` (``clone``, ``to(dtype)``, NumPy's order='K' copies here): ``a``'s own
    where it is non-overlapping and dense, else dense strides in ``a``'s dims' order."""
    if a._strides is None:
        return None
    item = a.itemsize
    st = [s // item for s in a._strides]
    keep = _dense_el(a.shape, st) or 0 in a.shape      # (an empty copy keeps them too)
    return _scaled(a.shape, st if keep else _perm_strides(a.shape, [st]), dtype)


def elementwise_strides(shape, operands, dtype):
    """The strides (bytes of ``dtype``; None: row-major) of an elementwise result of
    ``shape`` from the meta ``operands`` (broadcast to ``shape``), as PyTorch's meta
    kernels compute them (``torch._prims_common.compute_elementwise_output_strides``):
    row-major when every operand is contiguous, channels-last when every one is that
    (4-d), else dense over the dims sorted by the operands' strides."""
    shape = tuple(shape)
    if len(shape) < 2 or not operands:
        return None
    els = []
    for o in operands:      # broadcast strides (elements): 0 for new and expanded dims
        lead = len(shape) - o.ndim
        els.append([0 if i < lead or (o.shape[i - lead] == 1 and n != 1)
                    else o.strides[i - lead] // o.itemsize for i, n in enumerate(shape)])
    row = tuple(range(len(shape) - 1, -1, -1))
    contig = all(_dense_in(shape, e, row) for e in els)
    order = _CHANNELS_LAST.get(len(shape))
    last = order is not None and all(_dense_in(shape, e, order) for e in els)
    if contig and not last:
        return None
    if last and not contig:
        return _scaled(shape, _strides_in(shape, order), dtype)
    return _scaled(shape, _perm_strides(shape, els), dtype)


def view_strides(old, old_st, new, item):
    """The strides (bytes) of ``new``-shaped view of an ``old``/``old_st`` array, or None
    where no view exists: PyTorch's rule (ATen's computeStride: dims are merged in
    chunks of memory-contiguous dims; size-1 dims take the stride of the chunk)."""
    new = tuple(new)
    if not old:
        return (item,) * len(new)
    if 0 in old:
        if tuple(old) == new:
            return tuple(old_st)
        st, acc = [0] * len(new), item
        for i in range(len(new) - 1, -1, -1):
            st[i] = acc
            acc *= max(new[i], 1)
        return tuple(st)
    st = [0] * len(new)
    view_d = len(new) - 1
    base = old_st[-1]
    t_numel = v_numel = 1
    for d in range(len(old) - 1, -1, -1):
        t_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and old_st[d - 1] != t_numel * base):
            while view_d >= 0 and (v_numel < t_numel or new[view_d] == 1):
                st[view_d] = v_numel * base
                v_numel *= new[view_d]
                view_d -= 1
            if v_numel != t_numel:
                return None
            if d > 0:
                base = old_st[d - 1]
                t_numel = v_numel = 1
    return tuple(st) if view_d == -1 else None


def index_layout(a, keys):
    """PyTorch's strides and start (bytes) of the view ``a[keys]`` (basic indexing), as
    its select / slice / unsqueeze compute them, left to right: a slice multiplies the
    dim's stride by its step and moves the start by its (clamped) start, an integer moves
    the start and drops the dim, ``None`` adds a dim whose stride is the next dim's size
    times its stride (NumPy gives it 0, and leaves an empty slice's start and stride)."""
    used = sum(1 for k in keys if k is not None and k is not Ellipsis)
    off, d, st = a.offset_bytes, 0, []
    for k in keys:
        if k is Ellipsis:
            n = a.ndim - used
            st.extend(a.strides[d:d + n])
            d += n
        elif k is None:
            st.append(a.shape[d] * a.strides[d] if d < a.ndim else a.itemsize)
        else:
            n = a.shape[d]
            if isinstance(k, slice):
                step = 1 if k.step is None else k.step
                start = k.start if k.start is not None else (0 if step > 0 else n - 1)
                start = start + n if start < 0 else start
                off += min(max(start, 0), n) * a.strides[d]
                st.append(a.strides[d] * step)
            else:
                off += (k + n if k < 0 else k) * a.strides[d]
            d += 1
    st.extend(a.strides[d:])
    return tuple(st), off


def meta_like(arr):
    """A meta array with ``arr``'s shape and dtype."""
    return MetaArray(arr.shape, arr.dtype)


def no_data(what):
    """PyTorch's NotImplementedError for reading a meta tensor's values."""
    return NotImplementedError(
        "Cannot copy out of meta tensor; no data! (%s) A tensor on the 'meta' device has a "
        "shape and a dtype but no values. Fix: call the module with real parameters "
        "(torch.func.functional_call), or allocate storage with module.to_empty(device='cpu') "
        "and initialise it." % what)


def copy_data(arr):
    """A copy of a tensor's data (a NumPy array or a MetaArray): for deepcopy."""
    return arr.copy() if arr.__class__ is MetaArray else np.array(arr, copy=True)
