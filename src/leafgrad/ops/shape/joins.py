"""Joins: cat (concat, concatenate), stack, hstack, vstack, column_stack, row_stack, dstack,
and the constant padding ``Tensor.pad_nd``. Each rule cuts the gradient back into the
inputs' pieces. Splits are in ``splits.py``."""

import numpy as np

from ..._core.dtype import result_type
from ..._tensor.tensor import _wrap_dim
from .._dispatch import record, to_tensor
from .._out import out_call
from .._registry import defop, node
from .views import t


# ---------------------------------------------------------- joins & splits
def _cat_backward(ctx, g):
    # a size None: a skipped legacy 1-d empty input, whose gradient is an empty tensor
    # (PyTorch's cat_tensors_backward), not None
    dim, sizes = ctx.args
    out, start = [], 0
    for s, need in zip(sizes, ctx.needs_input_grad):
        if s is None:
            out.append(g.new_zeros((0,)) if need else None)
            continue
        out.append(g.narrow(dim, start, s) if need else None)
        start += s
    return tuple(out)


CatBackward0 = node("CatBackward0", _cat_backward, saves=False)


@defop("cat", method=False, aliases=("concat", "concatenate"), out=True)
def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dim.

    Raises:
        RuntimeError: for an empty list or mismatched shapes outside ``dim``.
    """
    if out is not None:
        return out_call("cat", cat, (tensors, dim), {}, out)
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError("zero-dimensional tensor (at position %d) cannot be "
                               "concatenated. Fix: torch.stack for 0-d tensors, or "
                               "t.reshape(1) first" % i)
    # PyTorch's legacy rule: 1-d empty tensors are skipped (any dim is then accepted)
    nonempty = [t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)]
    if not nonempty:
        return record(CatBackward0, np.zeros(0, result_type(*tensors).np), tuple(tensors),
                      args=(0, [None] * len(tensors)))
    d = _wrap_dim(dim, nonempty[0]._data.ndim)
    npd = result_type(*tensors).np
    try:
        out = np.concatenate([t._data.astype(npd, copy=False) for t in nonempty], axis=d)
    except ValueError:
        raise RuntimeError(
            "Sizes of tensors must match except in dimension %d: got shapes %s. Fix: make every "
            "dimension other than %d the same." % (d, [tuple(t.shape) for t in tensors], d)) from None
    sizes = [None if t._data.ndim == 1 and t._data.size == 0 else t._data.shape[d]
             for t in tensors]
    return record(CatBackward0, out, tuple(tensors), args=(d, sizes))


concat = concatenate = cat


def _stack_backward(ctx, g):
    return tuple(x if need else None for x, need in zip(g.unbind(ctx.args), ctx.needs_input_grad))


StackBackward0 = node("StackBackward0", _stack_backward, saves=False)


@defop("stack", method=False, out=True)
def stack(tensors, dim=0, *, out=None):
    """Join same-shape tensors along a new dim.

    Raises:
        RuntimeError: when the shapes differ.
    """
    if out is not None:
        return out_call("stack", stack, (tensors, dim), {}, out)
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    d = _wrap_dim(dim, tensors[0]._data.ndim + 1)     # PyTorch checks dim before the shapes
    shapes = {t._data.shape for t in tensors}
    if len(shapes) > 1:
        raise RuntimeError("stack expects each tensor to be equal size, but got %s"
                           % " and ".join(str(list(t.shape)) for t in tensors[:2]))
    from ..._core.dtype import result_type
    npd = result_type(*tensors).np
    out = np.stack([t._data.astype(npd, copy=False) for t in tensors], axis=d)
    return record(StackBackward0, out, tuple(tensors), args=d)


@defop("hstack", out=True, method=False)
def hstack(tensors):
    """Concatenate along dim 1 (dim 0 for 1-d tensors), after PyTorch's atleast_1d."""
    tensors = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors and tensors[0].dim() == 1 else 1)


@defop("vstack", out=True, method=False)
def vstack(tensors):
    """Concatenate along dim 0 after PyTorch's atleast_2d (0-d and 1-d become rows)."""
    return cat([t.reshape(1, -1) if t.dim() < 2 else t for t in tensors], 0)


def _pad_backward(ctx, g):
    # PyTorch's constant_pad_nd_backward: the same pad, negated (crops what was added,
    # puts zeros back where the forward cropped)
    return (pad_nd(g, tuple((-lo, -hi) for lo, hi in ctx.args)),)


ConstantPadNdBackward0 = node("ConstantPadNdBackward0", _pad_backward, saves=False)


def pad_nd(input, pad_width, value=0.0):
    """Pad with a constant; ``pad_width`` is NumPy's per-dim (before, after); a negative
    width crops (as PyTorch's constant_pad_nd).

    Raises:
        RuntimeError: where cropping leaves a negative size.
    """
    x = input._data
    pad_width = tuple((int(lo), int(hi)) for lo, hi in pad_width)
    for i, (lo, hi) in enumerate(pad_width):
        if x.shape[i] + min(lo, 0) + min(hi, 0) < 0 or x.shape[i] + lo + hi < 0:
            raise RuntimeError(
                "The input size %d, plus negative padding %d and %d resulted in a negative "
                "output size, which is invalid. Check dimension %d of your input. Fix: crop "
                "at most the dim's size." % (x.shape[i], lo, hi, i))
    if any(lo < 0 or hi < 0 for lo, hi in pad_width):
        x = x[tuple(slice(max(-lo, 0), x.shape[i] - max(-hi, 0))
                    for i, (lo, hi) in enumerate(pad_width))]
    out = np.pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in pad_width], constant_values=value)
    return record(ConstantPadNdBackward0, out, (input,), args=pad_width)


# ----------------------------------------------------------------- stacking
@defop("column_stack", method=False, out=True)
def column_stack(tensors, *, out=None):
    """Stack as columns: 0-d and 1-d tensors become columns (n, 1), then ``hstack``."""
    if out is not None:
        return out_call("column_stack", column_stack, (tensors,), {}, out)
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList. Fix: pass at least "
                           "one tensor")
    return hstack([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors])


@defop("row_stack", method=False, out=True)
def row_stack(tensors, *, out=None):
    """PyTorch's alias of ``vstack``."""
    if out is not None:
        return out_call("row_stack", row_stack, (tensors,), {}, out)
    return vstack(tensors)


def _atleast_3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.reshape(1, -1, 1)
    if t.dim() == 2:
        return t.unsqueeze(-1)
    return t


@defop("dstack", method=False, out=True)
def dstack(tensors, *, out=None):
    """Concatenate along dim 2 after PyTorch's atleast_3d ((n,) -> (1, n, 1),
    (m, n) -> (m, n, 1))."""
    if out is not None:
        return out_call("dstack", dstack, (tensors,), {}, out)
    return cat([_atleast_3d(to_tensor(t)) for t in tensors], 2)
