"""Variance and standard deviation (``torch.var``, ``torch.std``) with PyTorch's
``correction`` (Bessel's by default) and its CPU accumulation: float32 inputs are
reduced in float64 (the Welford kernel's accumulator), then rounded back.
Gradients (derivatives.yaml, var_backward / std_backward): g * 2 (x - mean) / (n - c)
and g (x - mean) / ((n - c) std), 0 where the std is 0. ``var_mean``/``std_mean``:
``ops/reduce/stats.py``.
"""
import numpy as np

from ..._core.quiet import quiet as _quiet
from .._dispatch import record
from .._registry import defop, node
from .reduction import _dims, _unreduce
from ..._core import errors as _errors


def _var_backward(ctx, g):
    (x,) = ctx._checked_saved
    dims, keepdim, correction, n = ctx.args
    return (_var_grad(g, x, dims, keepdim, correction, n),)


def _var_grad(g, x, dims, keepdim, correction, n):
    # PyTorch's var_backward, in its order of operations: (2 / (N - c)) * grad * (x - mean)
    g = _unreduce(g, x.shape, dims, keepdim)
    return (2.0 / (n - correction)) * g * (x - x.mean(dims, keepdim=True))


VarBackward0 = node("VarBackward0", _var_backward, saves=True)


def _std_backward(ctx, g):
    # PyTorch's std_backward: var_backward of (grad / (2 std)) with 0 where the std is 0
    # (constant input), built as PyTorch builds it, so its double backward has the same
    # 0 * inf = nan where the std is 0
    (x,) = ctx._checked_saved
    dims, keepdim, correction, n = ctx.args
    r = ctx.result
    gv = (g / (r * 2)).masked_fill(r == 0, 0)
    return (_var_grad(gv, x, dims, keepdim, correction, n),)


StdBackward0 = node("StdBackward0", _std_backward, saves=True)


def _var_args(input, dim, unbiased, keepdim, correction):
    if input._data.dtype.kind not in "fc":
        from ..._core.errors import DtypeError
        raise DtypeError(
            "std and var only support floating point and complex dtypes (this tensor is %s). "
            "Fix: convert it first, e.g. x.float().std() or x.to(torch.float64).var()."
            % input.dtype)
    if isinstance(dim, bool):           # var(unbiased) legacy positional form
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
    x = input._data
    dims = _dims(dim, x.ndim)
    n = 1
    for d in dims:
        n *= x.shape[d]
    return x, dims, keepdim, correction, n


def _var_np(x, dims, c, keepdim, n, name):
    # sums instead of np.var: NumPy warns (RuntimeWarning) where PyTorch gives a
    # UserWarning or nothing
    if n - c <= 0:
        _errors.warn("%s(): degrees of freedom is <= 0. Correction should be strictly less "
                     "than the reduction factor (input numel divided by output numel)." % name,
                     UserWarning)
    # float32 accumulates in float64, as PyTorch's CPU Welford kernel (acc type double):
    # the squares of 1e30 do not overflow, and std takes the root before rounding back
    if x.dtype == np.float32:
        x = x.astype(np.float64)
    with _quiet():
        m = x.sum(axis=dims, keepdims=True) / n if n else np.full((1,) * x.ndim, np.nan, x.dtype)
        d = x - m
        sq = d * d if d.dtype.kind != "c" else (d * d.conj()).real   # |x - mean|^2: real
        return sq.sum(axis=dims, keepdims=keepdim) / (n - c if n > c else 0)


@defop("var", out=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance with Bessel's correction by default (``correction=1``)."""
    x, dims, keepdim, c, n = _var_args(input, dim, unbiased, keepdim, correction)
    out = _var_np(x, dims, c, keepdim, n, "var")
    with _quiet():      # a float64 variance beyond float32's range is inf, silently
        out = np.asarray(out, x.real.dtype)    # complex: the real dtype, as PyTorch
    return record(VarBackward0, out, (input,), saved=(input,),
                  args=(dims, keepdim, c, n))


@defop("std", out=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation with Bessel's correction by default."""
    x, dims, keepdim, c, n = _var_args(input, dim, unbiased, keepdim, correction)
    out = np.sqrt(_var_np(x, dims, c, keepdim, n, "std"))
    return record(StdBackward0, np.asarray(out, x.real.dtype), (input,), saved=(input,),
                  save_result=True, args=(dims, keepdim, c, n))

