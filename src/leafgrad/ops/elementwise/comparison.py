"""Comparisons, predicates, logical and bitwise ops (no gradient: results are bool or
integer), and equal / allclose / isclose.
"""
import numpy as np

from ..._tensor.meta import asarray as _asarray
from ..._tensor.tensor import Tensor
from ..._core import errors as _errors
from .._dispatch import binary_operands, broadcast_error, to_tensor
from .._out import out_call
from .._registry import defop



# ------------------------------------------------------ non-differentiable
def _compare(name, np_fn, numbers, doc, aliases=(), ordered=False):
    """Declare the binary op ``name`` computed by ``np_fn`` with no gradient; ``numbers``
    is PyTorch's rule for Python-number operands (see ``ops._registry``)."""
    def op(input, other, *, out=None):
        if out is not None:
            return out_call(name, op, (input, other), {}, out)
        if numbers != "both" and (not isinstance(input, Tensor) or (
                numbers == "none" and not isinstance(other, Tensor))):
            bad = ("input", 1, input) if not isinstance(input, Tensor) else ("other", 2, other)
            raise _errors.not_tensor(name, *bad)
        ta, tb, xa, xb = binary_operands(input, other)
        if ordered and (np.iscomplexobj(xa) or np.iscomplexobj(xb)):
            raise NotImplementedError(_errors.no_complex_kernel(
                name + "_cpu", np.result_type(xa, xb)))
        try:
            return Tensor._make_plain(_asarray(np_fn(xa, xb)))
        except ValueError:
            raise broadcast_error(xa, xb) from None
        except TypeError:       # NumPy has no bitwise kernel for floats; PyTorch's words
            kind = np.result_type(xa, xb)
            raise NotImplementedError(
                "\"%s_cpu\" not implemented for '%s': bitwise ops take integer and bool "
                "tensors. Fix: convert first, e.g. x.long()" % (name, _errors.type_name(kind))
            ) from None
    op.__doc__ = doc
    return defop(name, op, inplace=True, numbers=numbers, aliases=aliases, out=True)


_CMP = "``input %s other`` elementwise (bool), with broadcasting and type promotion."
eq = _compare("eq", np.equal, "other", _CMP % "==")
ne = _compare("ne", np.not_equal, "other", _CMP % "!=", aliases=("not_equal",))
lt = _compare("lt", np.less, "other", _CMP % "<", aliases=("less",), ordered=True)
le = _compare("le", np.less_equal, "other", _CMP % "<=", aliases=("less_equal",),
              ordered=True)
gt = _compare("gt", np.greater, "other", _CMP % ">", aliases=("greater",), ordered=True)
ge = _compare("ge", np.greater_equal, "other", _CMP % ">=", aliases=("greater_equal",),
              ordered=True)
_LOGICAL = "Logical %s of two tensors (bool result; nonzero is True). Both must be tensors."
logical_and = _compare("logical_and", np.logical_and, "none", _LOGICAL % "and")
logical_or = _compare("logical_or", np.logical_or, "none", _LOGICAL % "or")
logical_xor = _compare("logical_xor", np.logical_xor, "none", _LOGICAL % "xor")
_BITWISE = "Bitwise %s of integer or bool tensors (or a tensor and a number)."
bitwise_and = _compare("bitwise_and", np.bitwise_and, "both", _BITWISE % "and")
bitwise_or = _compare("bitwise_or", np.bitwise_or, "both", _BITWISE % "or")
bitwise_xor = _compare("bitwise_xor", np.bitwise_xor, "both", _BITWISE % "xor")


def _no_bool(np_fn):
    # PyTorch has no shift kernel for bool (bool << bool raises); TypeError becomes the
    # NotImplementedError above
    def f(a, b):
        if np.result_type(a, b) == np.bool_:
            raise TypeError("bool")
        return np_fn(a, b)
    return f


bitwise_left_shift = _compare("bitwise_left_shift", _no_bool(np.left_shift), "both",
                              "``input << other`` elementwise, for integer tensors.")
bitwise_right_shift = _compare("bitwise_right_shift", _no_bool(np.right_shift), "both",
                               "``input >> other`` elementwise (arithmetic shift), for integer "
                               "tensors.")


def _predicate(np_fn):
    def op(input):
        return Tensor._make_plain(np.asarray(np_fn(to_tensor(input)._data)))
    return op


isnan = defop("isnan", _predicate(np.isnan))
isinf = defop("isinf", _predicate(np.isinf))
isfinite = defop("isfinite", _predicate(np.isfinite))
logical_not = defop("logical_not", _predicate(np.logical_not), inplace=True, out=True)
signbit = defop("signbit", _predicate(np.signbit), out=True)
isposinf = defop("isposinf", _predicate(np.isposinf), out=True)
isneginf = defop("isneginf", _predicate(np.isneginf), out=True)


def _not_integer(x, op):
    from ..._core.errors import type_name
    t = type_name(x.dtype)
    fix = ("Fix: make a mask a bool tensor (e.g. m = x > 0, then ~m or m.logical_not()), or "
           "convert integers stored as floats first (x.long()).")
    if op == "~":
        return TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                         "tensors (this one is %s). %s" % (t, fix))
    return NotImplementedError("\"bitwise_not_cpu\" not implemented for '%s': bitwise ops "
                               "take integer and bool tensors. %s" % (t, fix))


def _invert(input):
    """``~x`` (the ``__invert__`` operator): bitwise not, logical not for bool."""
    if input._data.dtype.kind not in "biu":
        raise _not_integer(input._data, "~")
    return bitwise_not(input)


@defop("bitwise_not", out=True, inplace=True)
def bitwise_not(input):
    x = input._data
    if x.dtype.kind not in "biu":
        raise _not_integer(x, "bitwise_not")
    return Tensor._make_plain(np.logical_not(x) if x.dtype == np.bool_ else np.invert(x))


@defop("equal", numbers="none")
def equal(input, other):
    """True when both tensors have the same shape and elements."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


@defop("allclose", numbers="none")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


@defop("isclose", numbers="none")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol |other|`` elementwise (bool); both must be tensors."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        bad = ("input", 1, input) if not isinstance(input, Tensor) else ("other", 2, other)
        raise _errors.not_tensor("isclose", *bad)
    return Tensor._make_plain(np.isclose(input._data, to_tensor(other)._data, rtol=rtol,
                                         atol=atol, equal_nan=equal_nan))


def _name_ops():
    # generated ops are all called "op"; give them their public names (errors, help())
    for name, obj in list(globals().items()):
        if callable(obj) and getattr(obj, "__name__", None) == "op" and not name.startswith("_"):
            obj.__name__ = obj.__qualname__ = name.rstrip("_")


_name_ops()
