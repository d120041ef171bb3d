"""Comparisons, predicates, logical and bitwise ops (no gradient: results are bool or
integer), and equal / allclose / isclose.
"""
import numpy as np

from .._tensor import Tensor
from ._dispatch import binary_operands, broadcast_error, to_tensor



# ------------------------------------------------------ non-differentiable
def _compare(np_fn):
    def op(input, other):
        ta, tb, xa, xb = binary_operands(input, other)
        try:
            return Tensor._make_plain(np.asarray(np_fn(xa, xb)))
        except ValueError:
            raise broadcast_error(xa, xb) from None
    return op


eq, ne = _compare(np.equal), _compare(np.not_equal)
lt, le = _compare(np.less), _compare(np.less_equal)
gt, ge = _compare(np.greater), _compare(np.greater_equal)
logical_and, logical_or = _compare(np.logical_and), _compare(np.logical_or)
logical_xor = _compare(np.logical_xor)
bitwise_and, bitwise_or, bitwise_xor = _compare(np.bitwise_and), _compare(np.bitwise_or), \
    _compare(np.bitwise_xor)


def _predicate(np_fn):
    def op(input):
        return Tensor._make_plain(np.asarray(np_fn(to_tensor(input)._data)))
    return op


isnan, isinf, isfinite = _predicate(np.isnan), _predicate(np.isinf), _predicate(np.isfinite)
logical_not, signbit = _predicate(np.logical_not), _predicate(np.signbit)
isposinf, isneginf = _predicate(np.isposinf), _predicate(np.isneginf)


def _not_integer(x, op):
    from .._errors import type_name
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


def bitwise_not(input):
    x = input._data
    if x.dtype.kind not in "biu":
        raise _not_integer(x, "bitwise_not")
    return Tensor._make_plain(np.logical_not(x) if x.dtype == np.bool_ else np.invert(x))


def equal(input, other):
    """True when both tensors have the same shape and elements."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return Tensor._make_plain(np.isclose(input._data, to_tensor(other)._data, rtol=rtol,
                                         atol=atol, equal_nan=equal_nan))


def _name_ops():
    # generated ops are all called "op"; give them their public names (errors, help())
    for name, obj in list(globals().items()):
        if callable(obj) and getattr(obj, "__name__", None) == "op" and not name.startswith("_"):
            obj.__name__ = obj.__qualname__ = name.rstrip("_")


_name_ops()
