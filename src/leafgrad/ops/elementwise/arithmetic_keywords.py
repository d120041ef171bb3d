"""The keyword forms of the arithmetic ops: ``add/sub(..., alpha=)`` and
``div(..., rounding_mode=)``, one definition for ``torch.add`` and ``Tensor.add`` alike.

PyTorch: ``add(input, other, alpha=a)`` is ``input + a * other`` (one AddBackward0 /
SubBackward0 node; an integral input refuses a float alpha); ``div`` with
``rounding_mode='trunc'|'floor'`` rounds the quotient toward zero / down, keeps the
promoted dtype (integers stay integers), and has a zero gradient for both operands
(derivatives.yaml ``div.Tensor_mode``: the rounded quotient is piecewise constant).
"""
import numpy as np

from ..._core.dtype import result_type
from ..._tensor.tensor import Tensor
from ...autograd.graph import Node
from ..._core.quiet import quiet as _quiet
from .._dispatch import binary_operands, record
from .._out import out_call
from . import binary as E
from ..inplace import arithmetic as IP

_NUMBER = (int, float, bool)


def check_alpha(dtype, alpha):
    """PyTorch's ``alpha_check`` (BinaryOps.h) against the op's common dtype: a bool alpha
    needs a bool result, a float alpha a floating or complex one, a complex alpha a
    complex one.

    Raises:
        RuntimeError: with PyTorch's message and the fix."""
    if isinstance(alpha, (bool, np.bool_)):
        if dtype.np.kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results. Fix: pass "
                               "alpha=1 or alpha=0 (an int)")
    elif isinstance(alpha, (float, complex, np.inexact)) and dtype.np.kind not in "fc":
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point "
            "number. Fix: give an int alpha, or convert the input first (x.float())")
    elif isinstance(alpha, (complex, np.complexfloating)) and dtype.np.kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number. Fix: pass a real alpha, or complex operands")


def _scaled(input, other, alpha):
    """``alpha * other`` in the op's common dtype (``result_type(input, other)``: alpha takes
    no part in the promotion, as in PyTorch, so a float64 0-d input minus an int64 vector
    times 0.5 is float64), after PyTorch's alpha check."""
    if isinstance(alpha, np.generic):
        alpha = alpha.item()        # a NumPy scalar alpha is a number, not a 0-d operand
    dt = result_type(input, other)
    check_alpha(dt, alpha)
    if dt.np.kind == "b":       # bool arithmetic: alpha * other is "alpha and other"
        alpha = bool(alpha)
    if isinstance(other, _NUMBER):
        return (bool(other) and alpha) if dt.np.kind == "b" else other * alpha
    if isinstance(other, Tensor) and other.dtype is not dt:
        other = other.to(dt)
    return E.mul(other, alpha)


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting (``torch.add``, ``Tensor.add``); ``out=``
    (torch.add only) as every op's (ops/_out.py).

    Raises:
        RuntimeError: an alpha the common dtype cannot hold (a float alpha with integer
        operands, a bool alpha with a non-bool result), as PyTorch.
    """
    if out is not None:
        return out_call("add", add, (input, other), {"alpha": alpha}, out)
    if alpha == 1 and type(alpha) is int:
        return E.add(input, other)
    return E.add(input, _scaled(input, other, alpha))


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` (``torch.sub``, ``Tensor.sub``); bool operands raise."""
    if out is not None:
        return out_call("sub", sub, (input, other), {"alpha": alpha}, out)
    if alpha == 1 and type(alpha) is int:
        return E.sub(input, other)
    if any(isinstance(v, Tensor) and v._data.dtype == np.bool_ or v is True or v is False
           for v in (input, other)):
        return E.sub(input, other)      # PyTorch's bool-subtraction error
    return E.sub(input, _scaled(input, other, alpha))


def _zero_backward(ctx, g):
    z = Tensor._make_plain(np.zeros_like(g._data))
    return tuple(z if n else None for n in ctx.needs_input_grad)


DivBackward2 = type("DivBackward2", (Node,), {"__slots__": (), "saves": False,
                                              "backward": _zero_backward})


def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``; ``rounding_mode='trunc'`` rounds toward zero, ``'floor'`` down
    (Python's ``//``, so ``inf // 1`` is nan), in the promoted dtype; zero gradient.

    Raises:
        RuntimeError: another rounding_mode; integer division by zero ("ZeroDivisionError").
    """
    if out is not None:
        return out_call("div", div, (input, other), {"rounding_mode": rounding_mode}, out)
    if rounding_mode is None:
        return E.div(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found %r. "
            "Fix: pass one of those." % (rounding_mode,))
    if result_type(input, other).np == np.bool_:     # bool by bool (a Python bool too)
        raise NotImplementedError("\"div_%s_cpu\" not implemented for 'Bool'. Fix: convert the "
                           "operands first, e.g. x.long()" % rounding_mode)
    ta, tb, xa, xb = binary_operands(input, other)
    dt = np.result_type(xa, xb)
    if dt.kind in "iub" and np.any(np.asarray(xb) == 0):
        raise RuntimeError("ZeroDivisionError")
    with _quiet():
        if rounding_mode == "floor":
            out = np.floor_divide(xa, xb)
        elif dt.kind in "iub":     # exact: C division truncates
            q = np.floor_divide(xa, xb)
            out = q + ((q < 0) & (q * xb != xa))
        else:
            out = np.trunc(np.true_divide(xa, xb))
    out = np.asarray(out, dtype=result_type(input, other).np)
    return record(DivBackward2, out, (ta, tb))


IP._bind_ops(alpha_scaled=_scaled)      # add_/sub_(other, alpha=) scale as add/sub do
E._bind_keywords(add, sub, div)   # Tensor.add/sub/div (alpha=, rounding_mode=) run these
