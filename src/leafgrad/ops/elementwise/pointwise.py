"""Pointwise ops with several operands or options: where, clamp, nan_to_num, addcmul,
addcdiv, and their vector-Jacobian products (PyTorch's formulas, see each rule).
"""
import warnings

import numpy as np

from ..._core import dtype as _dtype, errors as _errors, scalars as _scalars
from ..._tensor.meta import asarray as _asarray
from ..._tensor.tensor import Tensor
from ..inplace import arithmetic as IP
from ..inplace import writes as IW
from .._dispatch import binary_operands, broadcast_error, record, to_tensor
from .._out import out_call
from .._registry import defop, node
from .._select import select

from ..._core.quiet import quiet as _quiet


# ------------------------------------------------------------- ternary ops
def _where_backward(ctx, g):
    (cond,) = ctx.args
    na, nb = ctx.needs_input_grad
    return (select(cond, g) if na else None), (select(~cond, g) if nb else None)


WhereBackward0 = node("WhereBackward0", _where_backward, saves=False,
                      np_backward=_where_backward)   # select() takes ndarrays too


def _where_method(self, condition, other):
    """``self`` where ``condition`` holds, else ``other`` (``Tensor.where``)."""
    return where(condition, self, other)


_UINT8_WARNED = []


def _check_condition(cond):
    """PyTorch's rule for where's condition: bool; uint8 with a deprecation warning.

    Raises:
        RuntimeError: any other dtype (a float mask is often a forgotten comparison).
    """
    if cond.dtype == np.uint8:
        if _UINT8_WARNED:       # once per process, as PyTorch's TORCH_WARN_ONCE
            return
        _UINT8_WARNED.append(True)
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                      "and will be removed in a future version of PyTorch. Use a boolean "
                      "condition instead.", UserWarning, stacklevel=4)
        return
    raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with "
                       "dtype %s. Fix: pass a comparison (e.g. mask > 0) or mask.bool()."
                       % _errors.type_name(cond.dtype))


@defop("where", out=True, method=_where_method)
def where(condition, input=None, other=None):
    """``condition ? input : other`` elementwise, with broadcasting.

    The gradient goes to ``input`` where the condition holds and to
    ``other`` elsewhere, exactly 0 to the other side even for an inf/nan
    gradient (PyTorch's ``where(cond, grad, 0)``). A NaN that the unselected
    branch's own backward makes (sqrt of a negative, ...) still reaches its
    input, as in PyTorch. ``where(cond)`` alone is ``nonzero(as_tuple=True)``.
    """
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if input is None and other is None:
        from ..shape.indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if cond.dtype != np.bool_:
        _check_condition(cond)
    ta, tb, xa, xb = binary_operands(input, other)
    try:
        out = np.where(cond, xa, xb)
    except ValueError:
        raise broadcast_error(cond, np.broadcast(np.asarray(xa), np.asarray(xb))) from None
    return record(WhereBackward0, out, (ta, tb), args=(_asarray(cond, bool),))


def _clamp_backward(ctx, g):
    (x,) = ctx._checked_saved
    lo, hi = ctx.args
    mask = np.ones(x._data.shape, bool)
    if lo is not None:
        mask &= x._data >= lo
    if hi is not None:
        mask &= x._data <= hi
    return (select(mask, g),)


ClampBackward1 = node("ClampBackward1", _clamp_backward, saves=True, np_backward=_clamp_backward)


def _inplace_fits(out, other):
    full = tuple(np.broadcast_shapes(out, other))
    if full != tuple(out):
        raise RuntimeError(
            "output with shape %s doesn't match the broadcast shape %s. Fix: PyTorch's clamp "
            "backward with two tensor bounds combines its masks in place, so x with min and x "
            "with max must each broadcast to the result's shape; expand x first "
            "(torch.clamp(x.expand(shape), min, max))" % (list(out), list(full)))


def _clamp_inplace_shapes(xs, los, his, nx, nlo, nhi):
    """The refusals of PyTorch's clamp_backward / clamp_backward_min_max, which build each
    mask with an in-place logical_and_/logical_or_: (x < min) &= (min < max),
    (x > max) |= (max < min), then (x >= min) &= (x <= max). Each in-place result must
    already have the broadcast shape (a 0-d x with a (1,) max and a 0-d min raises)."""
    b = np.broadcast_shapes
    if nlo:
        _inplace_fits(b(xs, los), b(los, his))
    if nhi:
        _inplace_fits(b(xs, his), b(his, los))
    if nx:
        _inplace_fits(b(xs, los), b(xs, his))


def _clamp_tensors_backward(ctx, g):
    # PyTorch's clamp_backward_min_max: x gets g where lo <= x <= hi (so not at
    # nan); lo where x < lo (and lo < hi); hi where x > hi, or everywhere when hi < lo
    x, lo, hi = ctx._checked_saved
    nx, nlo, nhi = ctx.needs_input_grad
    gx = glo = ghi = None
    if lo is not None and hi is not None:
        _clamp_inplace_shapes(x.shape, lo.shape, hi.shape, nx, nlo, nhi)
        if nx:
            gx = select((x >= lo) & (x <= hi), g)
        if nlo:
            glo = select((x < lo) & (lo < hi), g)
        if nhi:
            ghi = select((x > hi) | (hi < lo), g)
    elif lo is not None:
        gx = select(x >= lo, g) if nx else None
        glo = select(x < lo, g) if nlo else None
    else:
        gx = select(x <= hi, g) if nx else None
        ghi = select(x > hi, g) if nhi else None
    return gx, glo, ghi


ClampBackward0 = node("ClampBackward0", _clamp_tensors_backward, saves=True)
# clamp_min / clamp_max: PyTorch's nodes of the one-sided ops (Scalar: ...0, Tensor: ...1),
# the same rules
_ONE_SIDED = {side: (type("Clamp%sBackward0" % side, (ClampBackward1,), {"__slots__": ()}),
                     type("Clamp%sBackward1" % side, (ClampBackward0,), {"__slots__": ()}))
              for side in ("Min", "Max")}
_CLAMP = (ClampBackward1, ClampBackward0)


def _clamp_tensors(input, min, max, cls=ClampBackward0):
    """clamp with tensor bounds: the result broadcasts over all three and has their
    promoted dtype (numbers count as 0-d tensors here, as in PyTorch)."""
    bounds = [None if b is None else b if isinstance(b, Tensor) else
              Tensor._make_plain(np.asarray(b, dtype=_dtype.scalar_dtype(b).np))
              for b in (min, max)]
    ops = [input] + [b for b in bounds if b is not None]
    npd = _dtype.result_type(*ops).np
    x = input._data.astype(npd, copy=False)
    out = x
    for b, f in zip(bounds, (np.maximum, np.minimum)):
        if b is not None:
            bd = b._data.astype(npd, copy=False)
            try:
                out = f(out, bd)
            except ValueError:
                raise broadcast_error(out, bd) from None
    out = _keep_zero_sign(out, x, *(None if b is None else b._data.astype(npd, copy=False)
                                     for b in bounds))
    return record(cls, out, (input, bounds[0], bounds[1]),
                  saved=(input, bounds[0], bounds[1]))


@defop("clamp", aliases=("clip",), inplace=IP.clamp_, out=True)
def clamp(input, min=None, max=None, *, out=None):
    """Clip to [min, max] (where min > max, every element is max, as PyTorch).

    The gradient passes to ``input`` where min <= x <= max (edges included,
    nan excluded); with tensor bounds, ``min`` gets it where x < min and
    ``max`` where x > max (PyTorch's ``clamp_backward_min_max``).

    Raises:
        RuntimeError: when both bounds are None, or tensor bounds that do not broadcast.
    """
    if out is not None:
        return out_call("clamp", clamp, (input, min, max), {}, out)
    if input._data.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types. Fix: clamp "
                                  ".abs() or .real")
    return _clamp(input, min, max, _CLAMP)


def _clamp(input, min, max, nodes):
    """clamp, recorded as ``nodes[0]`` (number bounds) or ``nodes[1]`` (tensor bounds)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if min is None or max is None or (isinstance(min, Tensor) and isinstance(max, Tensor)):
            return _clamp_tensors(input, min, max, nodes[1])
        # a tensor and a number: PyTorch's Number overload, which takes a 0-d
        # tensor that does not require grad as a number
        t = min if isinstance(min, Tensor) else max
        if t._data.ndim or t._requires_grad:
            raise TypeError(
                "clamp() received an invalid combination of arguments - got (Tensor, %s, %s): "
                "min and max must both be tensors or both be numbers. Fix: pass "
                "torch.tensor(value) for the number, or .item() of the bound."
                % tuple("Tensor" if isinstance(b, Tensor) else type(b).__name__
                        for b in (min, max)))
        min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))
    x = input._data
    if x.dtype.kind in "iub" and (isinstance(min, float) or isinstance(max, float)):
        x = x.astype(_dtype.get_default_dtype().np)
    for b in (min, max):
        if isinstance(b, int) and not isinstance(b, bool) and (
                x.dtype.kind in "iu" or not _scalars.I64_MIN <= b <= _scalars.U64_MAX):
            _scalars.check_scalar_write(b, x.dtype)     # PyTorch's Scalar conversion
    out = _keep_zero_sign(np.clip(x, min, max), x, min, max)
    return record(nodes[0], out, (input,), saved=(input,), args=(min, max))


def _keep_zero_sign(out, x, lo, hi):
    """PyTorch's clamp is ``x < lo ? lo : x``, then ``> hi ? hi : that``: a zero keeps the
    sign of the operand chosen (clamp(-0.0, min=0.0) is -0.0), which np.clip's
    maximum/minimum lose. Recomputed that way where the result is 0."""
    if out.dtype.kind != "f":
        return out
    zero = out == 0
    if not zero.any():
        return out
    v = x
    if lo is not None:
        v = np.where(v < lo, lo, v)
    if hi is not None:
        v = np.where(v > hi, hi, v)
    return np.where(zero, v, out).astype(out.dtype, copy=False)


@defop("clamp_min", out=True, inplace=IP.clamp_min_)
def clamp_min(input, min):
    """``clamp(input, min=min)``, recorded as PyTorch's ClampMinBackward0/1."""
    return _clamp(input, min, None, _ONE_SIDED["Min"])


@defop("clamp_max", out=True, inplace=IP.clamp_max_)
def clamp_max(input, max):
    """``clamp(input, max=max)``, recorded as PyTorch's ClampMaxBackward0/1."""
    return _clamp(input, None, max, _ONE_SIDED["Max"])


# ------------------------------------------------- nan_to_num, addcmul, addcdiv
def _nan_to_num_backward(ctx, g):
    (x,) = ctx._checked_saved
    return (g * Tensor._make_plain(np.isfinite(x._data)),)


NanToNumBackward0 = node("NanToNumBackward0", _nan_to_num_backward, saves=True)


@defop("nan_to_num", out=True, inplace=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan`` (None: 0), +inf -> ``posinf``, -inf -> ``neginf`` (default: the
    dtype's largest / lowest finite value); integer inputs are returned unchanged (a copy).

    Gradient: ``g`` where the input is finite, 0 elsewhere (PyTorch's
    derivatives.yaml: ``grad * at::isfinite(self)``).
    """
    x = input._data
    if x.dtype.kind != "f":
        return record(NanToNumBackward0, x.copy(), (input,), saved=(input,))
    out = np.nan_to_num(x, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)
    return record(NanToNumBackward0, out, (input,), saved=(input,))


def _ternary_operands(input, t1, t2):
    ts = [to_tensor(t) for t in (input, t1, t2)]
    npd = _dtype.result_type(*ts).np
    return ts, [t._data.astype(npd, copy=False) for t in ts]


def _addc_backward(div):
    def backward(ctx, g):
        _, t1, t2 = ctx._checked_saved
        value = ctx.args
        ni, n1, n2 = ctx.needs_input_grad
        g1 = g2 = None
        if div:
            if n1:
                g1 = g * value / t2
            if n2:
                g2 = -g * value * t1 / (t2 * t2)
        else:
            if n1:
                g1 = g * t2 * value
            if n2:
                g2 = g * t1 * value
        return (g if ni else None), g1, g2
    return backward


AddcmulBackward0 = node("AddcmulBackward0", _addc_backward(False), saves=True)
AddcdivBackward0 = node("AddcdivBackward0", _addc_backward(True), saves=True)


def _addc(input, tensor1, tensor2, value, div):
    ts, (x, a, b) = _ternary_operands(input, tensor1, tensor2)
    if div and a.dtype.kind in "biu" and b.dtype.kind in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future release addcdiv will perform a true division of tensor1 and "
                           "tensor2. Use torch.addcmul(input, tensor1, torch.div(tensor1, "
                           "tensor2, rounding_mode='floor')) or true division instead.")
    try:
        with _quiet():
            out = x + value * (a / b if div else a * b)
    except ValueError:
        raise broadcast_error(x, np.broadcast(a, b)) from None
    out = np.asarray(out).astype(x.dtype, copy=False)
    return record(AddcdivBackward0 if div else AddcmulBackward0, out, tuple(ts),
                  saved=tuple(ts), args=value)


@defop("addcmul", out=True, inplace=IW.addcmul_)
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``, broadcast, in the promoted dtype.

    Raises:
        RuntimeError: when the shapes do not broadcast.
    """
    return _addc(input, tensor1, tensor2, value, False)


@defop("addcdiv", out=True, inplace=IW.addcdiv_)
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``, broadcast, in the promoted dtype.

    Raises:
        RuntimeError: when the shapes do not broadcast, or for two integer tensors
            (as PyTorch).
    """
    return _addc(input, tensor1, tensor2, value, True)


# the in-place forms run these
IP._bind_ops(clamp=clamp, clamp_min=clamp_min, clamp_max=clamp_max, addcmul=addcmul,
             addcdiv=addcdiv)
