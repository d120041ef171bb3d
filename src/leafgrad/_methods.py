"""Tensor methods and operators, bound to the ops in ``leafgrad.ops``.

Kept as one explicit list so that ``help(Tensor.exp)`` and editors see real
functions, and so that the mapping from PyTorch's method names to
leafgrad's ops reads in one place.
"""
import numpy as np

from . import _dtype, _errors
from ._tensor import Tensor
from .ops import comparison as C
from .ops import elementwise as E
from .ops import indexing as I
from .ops import joins as J
from .ops import inplace as IP
from .ops import linalg as L
from .ops import linalg_fns as LF
from .ops import pointwise as P
from .ops import reduction as R
from .ops import shape as S


def _tuple_guard(fn, symbol, reflected=False, ufunc=None):
    """Operators given a tuple (``grad()``'s result) explain that it is a tuple;
    ``ufunc``: NumPy computes ``self OP ndarray`` (see _or_numpy)."""
    pair = "'tuple' and 'Tensor'" if reflected else "'Tensor' and 'tuple'"

    def op(self, other):
        if ufunc is not None and other.__class__ is _ndarray:
            return ufunc(self, other)
        if type(other) is tuple:
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
        if other.__class__ is _ndarray:
            raise _errors.ndarray_compare()
        return fn(self, other)
    op.__name__ = fn.__name__
    return op


def _ne(self, other):
    if other.__class__ is _ndarray:
        return NotImplemented       # Python's fallback: ``self is not other``, True
    return C.ne(self, other)


def _rdiv(self, other):
    if other.__class__ is _ndarray:
        return np.multiply(E.reciprocal(self), other)
    return E.mul(E.reciprocal(self), other)


def _rpow(self, other):
    return E.pow(other, self)


def _rmatmul(self, other):
    return L.matmul(other, self)


def _neg(self):
    if self._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return E.neg(self)


def _add(a, b, *, alpha=None):
    return E.add(a, b if alpha is None else E.mul(b, alpha))


def _sub(a, b, *, alpha=None):
    return E.sub(a, b if alpha is None else E.mul(b, alpha))


def _div(a, b, *, rounding_mode=None):
    if rounding_mode == "floor":
        return E.floor_divide(a, b)
    if rounding_mode == "trunc":
        return E.trunc(E.div(a, b)).to(_dtype.result_type(a, b))
    return E.div(a, b)


def _iop(inplace_fn, name, ufunc):
    def op(self, other):
        if type(other) is tuple:
            raise TypeError("unsupported operand type(s) for %s: 'Tensor' and 'tuple'. %s"
                            % (name, _errors.grad_tuple_hint()))
        if other.__class__ is _ndarray:
            # as in PyTorch: not in place, NumPy computes a new tensor (t is rebound)
            return ufunc(self, other)
        return inplace_fn(self, other)
    return op


def _to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``: a cast (CPU only)."""
    dtype = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif a is not None:
            from ._creation import _require_cpu
            _require_cpu(a)
    if kwargs.get("device") is not None:
        from ._creation import _require_cpu
        _require_cpu(kwargs["device"])
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
    IP.index_put_(self, key, value)


def _sum(self, dim=None, keepdim=False, dtype=None):
    return R.sum(self, dim, keepdim, dtype=dtype)


def _mean(self, dim=None, keepdim=False, dtype=None):
    return R.mean(self, dim, keepdim, dtype=dtype)


def _sizes_method(fn):
    def op(self, *shape):
        return fn(self, *shape)
    op.__doc__ = fn.__doc__
    return op


def _new_factory(kind):
    def op(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _creation as C
        dt = dtype or self.dtype
        if kind == "tensor":
            return C.tensor(size[0], dtype=dt, requires_grad=requires_grad)
        if kind == "full":
            return C.full(size[0], size[1], dtype=dt, requires_grad=requires_grad)
        return getattr(C, kind)(*size, dtype=dt, requires_grad=requires_grad)
    return op


def _index_put_(self, indices, values, accumulate=False):
    IP.index_put_(self, tuple(indices), values, accumulate)
    return self


def _masked_fill(self, mask, value):
    return I.masked_fill(self, mask, value)


def _apply_(self, fn):
    self._data[...] = np.vectorize(fn)(self._data)
    return self


def _clamp_min(self, min):
    return P.clamp(self, min=min)


def _clamp_max(self, max):
    return P.clamp(self, max=max)


def _softmax(self, dim, dtype=None):
    from .nn import functional as F
    return F.softmax(self, dim, dtype=dtype)


def _log_softmax(self, dim, dtype=None):
    from .nn import functional as F
    return F.log_softmax(self, dim, dtype=dtype)


def _pad_nd(self, pad, value=0.0):
    return J.pad_nd(self, pad, value)


def _max_dim_none(self, dim=None, keepdim=False):
    return R.max(self, dim, keepdim)


def _min_dim_none(self, dim=None, keepdim=False):
    return R.min(self, dim, keepdim)


def _expand(self, *sizes):
    return S.expand(self, *sizes)


def _sum_to_size(self, *size):
    return S.sum_to_size(self, *size)


def _square_(self):
    return IP.apply(self, "square_", E.square)


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
    "__neg__": _neg, "__pos__": lambda s: s, "__abs__": E.abs,
    "__invert__": C._invert,
    "__and__": _or_numpy(C.bitwise_and, np.bitwise_and),
    "__or__": _or_numpy(C.bitwise_or, np.bitwise_or),
    "__xor__": _or_numpy(C.bitwise_xor, np.bitwise_xor),
    "__rand__": _no_ndarray_left(C.bitwise_and, "&"),
    "__ror__": _no_ndarray_left(C.bitwise_or, "|"),
    "__eq__": C.eq, "__ne__": _ne, "__lt__": _no_ndarray_compare(C.lt),
    "__le__": _no_ndarray_compare(C.le), "__gt__": _no_ndarray_compare(C.gt),
    "__ge__": _no_ndarray_compare(C.ge),
    "__iadd__": _iop(IP.add_, "+=", np.add), "__isub__": _iop(IP.sub_, "-=", np.subtract),
    "__imul__": _iop(IP.mul_, "*=", np.multiply),
    "__itruediv__": _iop(IP.div_, "/=", np.true_divide),
    "__ipow__": _iop(IP.pow_, "**=", np.power),
    "__getitem__": I.getitem, "__setitem__": _setitem,
    # elementwise
    "add": _add, "sub": _sub, "subtract": _sub, "mul": E.mul, "multiply": E.mul,
    "div": _div, "divide": _div, "true_divide": E.div, "pow": E.pow, "neg": _neg,
    "negative": _neg, "exp": E.exp, "exp2": E.exp2, "expm1": E.expm1, "log": E.log,
    "log2": E.log2, "log10": E.log10, "log1p": E.log1p, "sqrt": E.sqrt, "rsqrt": E.rsqrt,
    "reciprocal": E.reciprocal, "abs": E.abs, "absolute": E.abs, "sign": E.sign,
    "floor": E.floor, "ceil": E.ceil, "round": E.round_, "trunc": E.trunc, "frac": E.frac,
    "sin": E.sin, "cos": E.cos, "tan": E.tan, "asin": E.asin, "acos": E.acos, "atan": E.atan,
    "arcsin": E.asin, "arccos": E.acos, "arctan": E.atan,
    "sinh": E.sinh, "cosh": E.cosh, "tanh": E.tanh, "asinh": E.asinh, "atanh": E.atanh,
    "sigmoid": E.sigmoid, "relu": E.relu, "square": E.square, "erf": E.erf,
    "clamp": P.clamp, "clip": P.clamp, "clamp_min": _clamp_min, "clamp_max": _clamp_max,
    "maximum": E.maximum, "minimum": E.minimum, "atan2": E.atan2, "fmod": E.fmod,
    "remainder": E.remainder, "floor_divide": E.floor_divide,
    "eq": C.eq, "ne": C.ne, "lt": C.lt, "le": C.le, "gt": C.gt, "ge": C.ge,
    "greater": C.gt, "less": C.lt, "greater_equal": C.ge, "less_equal": C.le,
    "not_equal": C.ne, "equal": C.equal, "allclose": C.allclose, "isclose": C.isclose,
    "isnan": C.isnan, "isinf": C.isinf, "isfinite": C.isfinite, "logical_not": C.logical_not,
    "logical_and": C.logical_and, "logical_or": C.logical_or, "logical_xor": C.logical_xor,
    "signbit": C.signbit, "bitwise_not": C.bitwise_not,
    "where": lambda self, condition, other: P.where(condition, self, other),
    # reductions
    "sum": _sum, "mean": _mean, "max": _max_dim_none, "min": _min_dim_none,
    "amax": R.amax, "amin": R.amin, "argmax": R.argmax, "argmin": R.argmin, "norm": R.norm,
    "var": R.var, "std": R.std, "prod": R.prod, "logsumexp": R.logsumexp, "cumsum": R.cumsum,
    "all": R.all, "any": R.any, "count_nonzero": R.count_nonzero,
    "cumprod": R.cumprod, "median": R.median, "bincount": R.bincount,
    "nan_to_num": P.nan_to_num, "addcmul": P.addcmul, "addcdiv": P.addcdiv,
    "type_as": lambda self, other: S.to_dtype(self, other.dtype),
    "diag": J.diag, "trace": L.trace, "tile": J.tile, "repeat_interleave": J.repeat_interleave,
    "diff": J.diff, "kron": L.kron, "index_add": I.index_add,
    "unique_consecutive": I.unique_consecutive,
    # shape
    "reshape": _sizes_method(S.reshape), "view": _sizes_method(S.view),
    "view_as": lambda self, other: S.view(self, other.shape),
    "reshape_as": lambda self, other: S.reshape(self, other.shape),
    "flatten": S.flatten, "unflatten": S.unflatten, "transpose": S.transpose,
    "swapaxes": S.transpose, "swapdims": S.transpose,
    "t": S.t, "permute": S.permute, "unsqueeze": S.unsqueeze, "squeeze": S.squeeze,
    "expand": _expand, "expand_as": S.expand_as, "broadcast_to": S.broadcast_to,
    "sum_to_size": _sum_to_size, "clone": S.clone, "contiguous": S.contiguous,
    "split": J.split, "chunk": J.chunk, "unbind": J.unbind, "narrow": J.narrow, "select": J.select, "diagonal": J.diagonal,
    "flip": J.flip, "repeat": J.repeat, "movedim": J.movedim, "roll": J.roll, "pad_nd": _pad_nd,
    "to": _to, "type": _type, "float": _caster(_dtype.float32), "double": _caster(_dtype.float64),
    "half": _caster(_dtype.float16), "long": _caster(_dtype.int64), "int": _caster(_dtype.int32),
    "short": _caster(_dtype.int16), "bool": _caster(_dtype.bool_), "byte": _caster(_dtype.uint8),
    "char": _caster(_dtype.int8),
    "cpu": lambda self, *a, **k: self, "cuda": lambda self, *a, **k: _creation_device("cuda"),
    # indexing
    "index_select": I.index_select, "gather": I.gather, "masked_fill": _masked_fill,
    "masked_select": I.masked_select, "nonzero": I.nonzero, "argwhere": I.argwhere,
    "take_along_dim": I.take_along_dim, "tril": I.tril, "triu": I.triu,
    "scatter": I.scatter, "scatter_add": I.scatter_add, "unique": I.unique,
    # linear algebra
    "matmul": L.matmul, "mm": L.mm, "mv": L.mv, "dot": L.dot, "bmm": L.bmm, "outer": L.outer,
    "addmm": L.addmm, "inner": L.dot, "inverse": LF.inv, "det": LF.det,
    # in-place
    "add_": IP.add_, "sub_": IP.sub_, "mul_": IP.mul_, "div_": IP.div_, "pow_": IP.pow_,
    "neg_": IP.neg_, "exp_": IP.exp_, "log_": IP.log_, "sqrt_": IP.sqrt_, "abs_": IP.abs_,
    "relu_": IP.relu_, "sigmoid_": IP.sigmoid_, "tanh_": IP.tanh_, "clamp_": IP.clamp_,
    "clip_": IP.clamp_, "clamp_min_": IP.clamp_min_, "clamp_max_": IP.clamp_max_,
    "index_put_": _index_put_, "scatter_": IP.scatter_, "scatter_add_": IP.scatter_add_,
    "index_put": lambda self, indices, values, accumulate=False: _index_put_(
        S.clone(self), indices, values, accumulate),
    "fill_": IP.fill_, "zero_": IP.zero_, "copy_": IP.copy_, "masked_fill_": IP.masked_fill_,
    "addcmul_": IP.addcmul_, "addcdiv_": IP.addcdiv_, "index_add_": IP.index_add_,
    "uniform_": IP.uniform_, "normal_": IP.normal_, "square_": _square_,
    "apply_": _apply_,
    "sort": lambda self, dim=-1, descending=False, stable=False: _F().sort(self, dim, descending),
    "argsort": lambda self, dim=-1, descending=False, stable=False: _F().argsort(self, dim, descending),
    "topk": lambda self, k, dim=-1, largest=True, sorted=True: _F().topk(self, k, dim, largest),
    # nn-ish
    "softmax": _softmax, "log_softmax": _log_softmax,
    # factories
    "new_zeros": _new_factory("zeros"), "new_ones": _new_factory("ones"),
    "new_empty": _new_factory("empty"), "new_full": _new_factory("full"),
    "new_tensor": _new_factory("tensor"),
}


def _F():
    from . import _functions
    return _functions


def _creation_device(name):
    from ._creation import _require_cpu
    return _require_cpu(name)


def _install():
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(S.T, doc="Dims reversed (2-D: the transpose).")
    Tensor.mT = property(S.mT, doc="Last two dims swapped.")
    Tensor.H = property(S.T)


_install()
