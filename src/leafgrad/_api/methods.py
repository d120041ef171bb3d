"""Tensor methods and operators, bound to the ops in ``leafgrad.ops``.

Kept as one explicit list so that ``help(Tensor.exp)`` and editors see real
functions, and so that the mapping from PyTorch's method names to
leafgrad's ops reads in one place.
"""
import numpy as np

from .._tensor.meta import MetaArray, meta_like, no_data

from .._core import dtype as _dtype, errors as _errors
from .._tensor.tensor import Tensor
from ..ops import _forms
from ..ops.elementwise import comparison as C
from ..ops import elementwise as E
from ..ops.shape import indexing as I
from ..ops.shape import joins as J
from ..ops.inplace import arithmetic as IP
from ..ops.inplace import writes as IW
from ..ops.inplace import set_storage as _set_storage
from ..ops.linalg import products as L
from ..ops.shape import views as S
from ..ops.shape.indexed_reduce import fill_diagonal_ as _fill_diagonal_


def _tuple_guard(fn, symbol, reflected=False, ufunc=None):
    """Operators given a tuple (``grad()``'s result) explain that it is a tuple;
    ``ufunc``: NumPy computes ``self OP ndarray`` (see _or_numpy)."""
    pair = "'tuple' and 'Tensor'" if reflected else "'Tensor' and 'tuple'"

    def op(self, other):
        if ufunc is not None and other.__class__ is _ndarray:
            return ufunc(self, other)
        if isinstance(other, tuple):
            raise TypeError("unsupported operand type(s) for %s: %s. %s"
                            % (symbol, pair, _errors.grad_tuple_hint()))
        return fn(self, other)
    op.__name__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


# ------------------------------------------------------ NumPy arrays as operands
# PyTorch's operators refuse np.ndarray operands (TypeError, which its wrappers turn
# into NotImplemented); Python then hands ``t + a`` to NumPy's reflected operator,
# which computes np.add(t, a) on t.__array__() (refused when t requires grad) and
# wraps the result back with Tensor.__array_wrap__: NumPy's dtype promotion, no
# graph. ``a + t`` finds no taker (TypeError), except ``a / t``, which PyTorch's
# __rtruediv__ computes as t.reciprocal() * a, and so again by NumPy. ``==`` takes
# the array as a tensor; ``!=`` ends in Python's identity test (always True).
_ndarray = np.ndarray


def _or_numpy(fn, ufunc):
    """``fn`` for the operator ``self OP other``; NumPy computes it when ``other`` is
    an ndarray (see above)."""
    def op(self, other):
        if other.__class__ is not _ndarray:
            return fn(self, other)
        return ufunc(self, other)
    op.__name__ = getattr(fn, "__name__", "op")
    op.__doc__ = fn.__doc__
    return op


def _refuse_left(symbol):
    """What ``ndarray OP tensor`` gets (Tensor's reflected operator): TypeError."""
    def refuse(self, other):
        raise _errors.ndarray_on_left(symbol)
    return refuse


def _no_ndarray_left(fn, symbol):
    """``fn`` for the reflected operator ``other OP self``: TypeError for an ndarray."""
    def op(self, other):
        if other.__class__ is _ndarray:
            raise _errors.ndarray_on_left(symbol)
        return fn(self, other)
    op.__name__ = getattr(fn, "__name__", "op")
    op.__doc__ = fn.__doc__
    return op


def _no_ndarray_compare(fn):
    def op(self, other):
        if other is None:
            return NotImplemented   # Python's TypeError: '<' not supported between ... (as torch)
        if other.__class__ is _ndarray:
            raise _errors.ndarray_compare()
        return fn(self, other)
    op.__name__ = fn.__name__
    return op


def _eq(self, other):
    # PyTorch's operators turn the argument parser's TypeError into NotImplemented, so
    # ``t == None`` falls back to identity: False
    if other is None:
        return NotImplemented
    return C.eq(self, other)


def _ne(self, other):
    if other is None or other.__class__ is _ndarray:
        return NotImplemented       # Python's fallback: ``self is not other``, True
    return C.ne(self, other)


def _rdiv(self, other):
    if other.__class__ is _ndarray:
        if other.dtype.kind not in "biufc":     # strings, objects: PyTorch's TypeError
            raise _errors.ndarray_on_left("/")
        return np.multiply(E.reciprocal(self), other)
    return E.mul(E.reciprocal(self), other)


def _rpow(self, other):
    return E.pow(other, self)


def _rmatmul(self, other):
    return L.matmul(other, self)


def _iop(inplace_fn, name, ufunc):
    def op(self, other):
        if isinstance(other, tuple):
            raise TypeError("unsupported operand type(s) for %s: 'Tensor' and 'tuple'. %s"
                            % (name, _errors.grad_tuple_hint()))
        if other.__class__ is _ndarray:
            # as in PyTorch: not in place, NumPy computes a new tensor (t is rebound)
            return ufunc(self, other)
        return inplace_fn(self, other)
    return op


def _to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``: a cast. Devices:
    the CPU, and 'meta' (shape and dtype without values: _tensor/meta.py)."""
    dtype = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    dev = kwargs.get("device")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
            dev = a.device
        elif a is not None:
            dev = a
    to_meta = False
    if dev is not None:
        from .._tensor.creation import _require_cpu_or_meta
        to_meta = _require_cpu_or_meta(dev)
        if not to_meta and self._data.__class__ is MetaArray:
            raise no_data("to('%s')" % dev)
    if to_meta and self._data.__class__ is not MetaArray:
        out = S.to_dtype(self, self.dtype if dtype is None else _dtype.to_dtype(dtype), True)
        out._data = meta_like(out._data)
        return out
    if dtype is None:
        return self.clone() if copy else self
    return S.to_dtype(self, _dtype.to_dtype(dtype), copy)


def _type(self, dtype=None, non_blocking=False):
    if dtype is None:
        return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor",
                           "int64": "LongTensor", "int32": "IntTensor", "bool": "BoolTensor",
                           "float16": "HalfTensor", "uint8": "ByteTensor"}.get(self.dtype.name,
                                                                                "Tensor")
    dtype = getattr(dtype, "dtype", dtype)     # a legacy class: torch.LongTensor
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        dtype = {"FloatTensor": _dtype.float32, "DoubleTensor": _dtype.float64,
                 "LongTensor": _dtype.int64, "IntTensor": _dtype.int32,
                 "BoolTensor": _dtype.bool_}[name]
    return S.to_dtype(self, dtype)


def _caster(dt):
    def op(self, memory_format=None):
        return S.to_dtype(self, dt)
    return op


def _setitem(self, key, value):
    if type(value) is tuple:
        raise TypeError(_errors.grad_tuple_hint())
    IW.index_put_(self, key, value)


def _legacy_new(self, *args, **kwargs):
    """The legacy ``x.new(...)``: ``new()`` (size 0), ``new(*sizes)`` / ``new(Size)``
    (zeros here; PyTorch leaves them uninitialised), ``new(data)`` with ``x``'s dtype. A
    tensor or NumPy array of that dtype is shared, not copied (as PyTorch).

    Raises:
        TypeError: a tensor of another dtype (PyTorch's rule).
    """
    from .._tensor import creation as _creation
    from .._tensor.tensor import Size
    dt = self.dtype
    if not args:
        return _creation.empty(0, dtype=dt)
    a = args[0]
    if len(args) > 1 or isinstance(a, (int, Size)) and not isinstance(a, bool):
        return _creation.empty(*args, dtype=dt)
    if isinstance(a, Tensor):
        if a.dtype is not dt:
            raise TypeError("x.new(tensor) needs a tensor of x's dtype (%s), got %s. Fix: "
                            "convert it first (other.to(x.dtype)), or use "
                            "x.new_tensor(other) for a copy." % (dt, a.dtype))
        return Tensor._make_plain(a._data)
    if isinstance(a, np.ndarray) and a.dtype == dt.np:
        return Tensor._make_plain(a)
    return _creation.tensor(a, dtype=dt)


def _new_factory(kind):
    def op(self, *size, dtype=None, device=None, requires_grad=False):
        from .._tensor import creation as C
        dt = dtype or self.dtype
        if kind == "tensor":
            return C.tensor(size[0], dtype=dt, requires_grad=requires_grad)
        if kind == "full":
            return C.full(size[0], size[1], dtype=dt, requires_grad=requires_grad)
        return getattr(C, kind)(*size, dtype=dt, requires_grad=requires_grad)
    return op


def _index_put_(self, indices, values, accumulate=False):
    IW.index_put_(self, tuple(indices), values, accumulate)
    return self


def _apply_(self, fn):
    self._data[...] = np.vectorize(fn)(self._data)
    return self


def _pad_nd(self, pad, value=0.0):
    return J.pad_nd(self, pad, value)


def _module_load(self, other, assign=False):
    """``Tensor.module_load(other, assign=False)``: what ``load_state_dict`` puts in place
    of ``self`` when torch.__future__.set_swap_module_params_on_conversion(True) is set:
    ``other.detach()`` (assign) or ``self.copy_(other).detach()``. A subclass overrides
    it through ``__torch_function__`` (called with ``func=Tensor.module_load``), as in
    PyTorch."""
    from .._C import torch_function_handler
    handler = torch_function_handler(self, other)
    if handler is not None:
        types = tuple({type(t): None for t in (self, other) if isinstance(t, Tensor)})
        return handler(Tensor.module_load, types, (self, other), {"assign": assign})
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _torch_function(cls, func, types, args=(), kwargs=None):
    """``Tensor.__torch_function__`` (the default): call ``func`` with subclass handling
    disabled. leafgrad calls ``__torch_function__`` only from ``module_load``."""
    from .._C import DisableTorchFunctionSubclass
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _storage_offset(self):
    """Where the tensor starts in its storage, in elements (0 unless it is a view that
    starts further on: ``x[3:]`` gives 3, as PyTorch). Source: the NumPy array's data
    pointer minus that of the array owning the memory."""
    a = self._data
    if a.__class__ is MetaArray:
        return a.offset_bytes // a.itemsize
    root = a
    while True:
        b = root.base
        if not isinstance(b, np.ndarray):
            b = getattr(b, "base", None)      # as_strided's holder of the array it views
            if not isinstance(b, np.ndarray):
                break
        root = b
    return (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize


_METHODS = {
    # arithmetic operators
    # (binary_operands explains a tuple operand: grad()'s result used as a tensor)
    "__add__": E.add.operator(np.add), "__radd__": E.add.operator(_refuse_left("+")),
    "__sub__": E.sub.operator(np.subtract), "__rsub__": E.rsub.operator(_refuse_left("-")),
    "__mul__": E.mul.operator(np.multiply), "__rmul__": E.mul.operator(_refuse_left("*")),
    "__truediv__": _tuple_guard(E.div, "/", ufunc=np.true_divide),
    "__rtruediv__": _tuple_guard(_rdiv, "/", True),
    "__floordiv__": _or_numpy(E.floor_divide, np.floor_divide),
    "__rfloordiv__": _no_ndarray_left(lambda s, o: E.floor_divide(o, s), "//"),
    "__mod__": _or_numpy(E.remainder, np.remainder),
    "__rmod__": _no_ndarray_left(lambda s, o: E.remainder(o, s), "%"),
    "__pow__": _tuple_guard(E.pow, "**", ufunc=np.power),
    "__rpow__": _no_ndarray_left(_rpow, "**"),
    "__matmul__": _or_numpy(L.matmul, np.matmul), "__rmatmul__": _no_ndarray_left(_rmatmul, "@"),
    "__neg__": E._neg_method, "__pos__": lambda s: s, "__abs__": E.abs,
    "__invert__": C._invert,
    "__and__": _or_numpy(C.bitwise_and, np.bitwise_and),
    "__or__": _or_numpy(C.bitwise_or, np.bitwise_or),
    "__xor__": _or_numpy(C.bitwise_xor, np.bitwise_xor),
    "__rand__": _no_ndarray_left(C.bitwise_and, "&"),
    "__ror__": _no_ndarray_left(C.bitwise_or, "|"),
    "__rxor__": _no_ndarray_left(C.bitwise_xor, "^"),
    # shifts (issue 13): bitwise_left_shift / bitwise_right_shift and their in-place forms
    "__lshift__": _or_numpy(C.bitwise_left_shift, np.left_shift),
    "__rshift__": _or_numpy(C.bitwise_right_shift, np.right_shift),
    "__rlshift__": _no_ndarray_left(lambda s, o: C.bitwise_left_shift(o, s), "<<"),
    "__rrshift__": _no_ndarray_left(lambda s, o: C.bitwise_right_shift(o, s), ">>"),
    "__ilshift__": _iop(lambda s, o: s.bitwise_left_shift_(o), "<<=", np.left_shift),
    "__irshift__": _iop(lambda s, o: s.bitwise_right_shift_(o), ">>=", np.right_shift),
    "__eq__": _eq, "__ne__": _ne, "__lt__": _no_ndarray_compare(C.lt),
    "__le__": _no_ndarray_compare(C.le), "__gt__": _no_ndarray_compare(C.gt),
    "__ge__": _no_ndarray_compare(C.ge),
    "__iadd__": _iop(IP.add_, "+=", np.add), "__isub__": _iop(IP.sub_, "-=", np.subtract),
    "__imul__": _iop(IP.mul_, "*=", np.multiply),
    "__itruediv__": _iop(IP.div_, "/=", np.true_divide),
    "__ipow__": _iop(IP.pow_, "**=", np.power),
    "__getitem__": I.getitem, "__setitem__": _setitem,
    # conversions and odd cases (the ops' methods come from their declarations)
    "type_as": lambda self, other: S.to_dtype(self, other.dtype),
    "view_as": lambda self, other: S.view(self, other.shape),
    "reshape_as": lambda self, other: S.reshape(self, other.shape),
    "pad_nd": _pad_nd,
    "to": _to, "type": _type, "float": _caster(_dtype.float32), "double": _caster(_dtype.float64),
    "cfloat": _caster(_dtype.complex64), "cdouble": _caster(_dtype.complex128),
    "half": _caster(_dtype.float16), "long": _caster(_dtype.int64), "int": _caster(_dtype.int32),
    "short": _caster(_dtype.int16), "bool": _caster(_dtype.bool_), "byte": _caster(_dtype.uint8),
    "char": _caster(_dtype.int8), "bfloat16": _caster(_dtype.bfloat16),
    "cpu": lambda self, *a, **k: self, "cuda": lambda self, *a, **k: _creation_device("cuda"),
    # in-place
    "index_put_": _index_put_,
    "index_put": lambda self, indices, values, accumulate=False: _index_put_(
        S.clone(self), indices, values, accumulate),
    "fill_": IW.fill_, "zero_": IW.zero_, "copy_": IW.copy_, "set_": _set_storage.set_,
    "fill_diagonal_": _fill_diagonal_,
    # uniform_, normal_, random_, bernoulli_, ...: _random_ops
    "apply_": _apply_,
    "storage_offset": _storage_offset,
    "to_sparse": lambda self, *a, **k: __import__("leafgrad.sparse").sparse.to_sparse(self, *a, **k),
    # factories
    "new": _legacy_new,
    "new_zeros": _new_factory("zeros"), "new_ones": _new_factory("ones"),
    "new_empty": _new_factory("empty"), "new_full": _new_factory("full"),
    "new_tensor": _new_factory("tensor"),
}


def _creation_device(name):
    from .._tensor.creation import _require_cpu
    return _require_cpu(name)


def _install():
    # the declared ops' methods and in-place forms (ops._registry), then the
    # operators and odd cases above; a name in both is a mistake
    derived = _forms.methods()
    both = sorted(set(derived) & set(_METHODS))
    if both:
        raise RuntimeError("Tensor methods declared twice (ops/ declaration and _METHODS): %s"
                           % both)
    for name, fn in list(derived.items()) + list(_METHODS.items()):
        setattr(Tensor, name, fn)
    from .._tensor.wrapper_subclass import make_subclass, make_wrapper_subclass
    Tensor._make_wrapper_subclass = staticmethod(make_wrapper_subclass)
    Tensor._make_subclass = staticmethod(make_subclass)
    from .._tensor import wrapper_subclass as _ws
    _ws._view_all[0] = lambda t: S.view(t, t.shape)
    Tensor.as_subclass = _ws.as_subclass
    Tensor.module_load = _module_load
    Tensor.__torch_function__ = classmethod(_torch_function)
    Tensor.T = property(S.T, doc="Dims reversed (2-D: the transpose).")
    Tensor.mT = property(S.mT, doc="Last two dims swapped.")
    Tensor.H = property(S.H, doc=S.H.__doc__)
    Tensor.mH = property(S.mH, doc=S.mH.__doc__)
    from ..ops.elementwise import complex as _cx
    # t.real = v / t.imag = v: PyTorch's setters, a copy_ into the view
    Tensor.real = property(_cx.real, lambda self, v: _cx.real(self).copy_(v),
                           doc=_cx.real.__doc__)
    Tensor.imag = property(_cx.imag, lambda self, v: _cx.imag(self).copy_(v),
                           doc=_cx.imag.__doc__)
    from .._tensor import storage as _tensor_storage
    from .._tensor import resize as _tensor_resize
    for name, fn in list(_tensor_storage.METHODS.items()) + list(_tensor_resize.METHODS.items()):
        setattr(Tensor, name, fn)
    for name, fn in _tensor_storage.PROPERTIES.items():
        setattr(Tensor, name, property(fn, doc=fn.__doc__))


_install()
