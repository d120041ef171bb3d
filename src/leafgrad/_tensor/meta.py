"""PyTorch's ``meta`` device: tensors with a shape and a dtype but no values.

A meta tensor's data is a :class:`MetaArray`: a shape and a dtype, no memory. Ops run
their usual NumPy code on it, and the MetaArray answers NumPy's protocols
(``__array_ufunc__``, ``__array_function__``, the ndarray methods the ops call) with
shapes and dtypes only: elementwise ufuncs broadcast, reductions drop or keep axes,
views (transpose, basic indexing, broadcast_to, ...) are taken on an O(1)-memory stand-in
with zero strides, so ``conv(torch.rand(2**10, 3, 2**16, 2**16, device='meta'))`` costs
microseconds, as PyTorch's meta kernels. The dtype of a result is the one NumPy gives on
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
    __slots__ = ()
    c_contiguous = True
    f_contiguous = False
    writeable = True
    owndata = True


_FLAGS = _Flags()


class MetaArray:
    """The data of a meta tensor: ``shape`` and ``dtype`` (and what follows from them);
    NumPy functions and ufuncs on it give MetaArrays of the result's shape and dtype
    (``_meta_rules``), reading values raises NotImplementedError."""
    __slots__ = ("shape", "dtype")
    __array_priority__ = 2000
    flags = _FLAGS
    base = None

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)

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
        # contiguous (row-major) strides in bytes, as a fresh tensor's
        st, acc = [], self.dtype.itemsize
        for s in reversed(self.shape):
            st.append(acc)
            acc *= max(s, 1)
        return tuple(reversed(st))

    def copy(self, order="C"):
        return MetaArray(self.shape, self.dtype)

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
    meta_rules.bind(MetaArray, _refuse)
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
