"""Cumulative ops along a dim: cumsum, cumprod, cummax, cummin, logcumsumexp, trapezoid
(trapz), cumulative_trapezoid, and the differences ``diff``.

``cummax``/``cummin`` gather the running extreme from the position it came from (the
last one among equal values, as PyTorch's kernel, which updates on ``>=``; a NaN, once
seen, is carried with the index of the latest NaN). Their gradient scatters back to
those positions (PyTorch's cummaxmin_backward). ``logcumsumexp``'s backward is
PyTorch's logcumsumexp_backward (the gradient split into its positive and negative
parts, each summed in log space), written with leafgrad ops so it differentiates again.
"""

import numpy as np

from ..._core import dtype as _dtype, errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record, to_tensor
from .._named import _named
from .._out import out_call, out_tuple_call
from .._registry import defop, node
from ..shape.indexing import _gather_backward, _take_along
from ..shape.joins import cat
from ..shape.views import narrow
from .prod_backward import cumprod_backward
from .reduction import _acc, _return_type, _sum_dtype

def _cumsum_backward(ctx, g):
    d = ctx.args
    return (g.flip(d).cumsum(d).flip(d),)


CumsumBackward0 = node("CumsumBackward0", _cumsum_backward, saves=False)


def _cumulative(np_fn, input, dim, dtype):
    """``np_fn`` (np.cumsum, np.cumprod) along ``dim``, in ``dtype`` (integer and bool
    inputs give int64 by default); returns (out, wrapped dim)."""
    x = _sum_dtype(input._data, _dtype.to_dtype(dtype, np_fn.__name__), input)
    if x.dtype == np.bool_:     # only with dtype=torch.bool: PyTorch has no such kernel
        raise NotImplementedError("\"%s_out_cpu\" not implemented for 'Bool'. Fix: accumulate "
                                  "in an integer dtype (dtype=torch.int64)" % np_fn.__name__)
    d = _wrap_dim(dim, x.ndim)
    with _quiet():
        if x.dtype.itemsize < 8 and x.dtype.kind == "f" and x.ndim:
            # PyTorch's CPU kernel accumulates float32/float16 in double (acc_type), so
            # 1e30 * 1e30 * 0 is 0 there (inf in the output, then 0), not nan
            return np_fn(x.astype(np.float64), axis=d).astype(x.dtype), d
        return (np_fn(x, axis=d, dtype=_acc(x)) if x.ndim else x.copy()), d


@defop("cumsum", out=True, inplace=True)
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along ``dim``."""
    out, d = _cumulative(np.cumsum, input, dim, dtype)
    _start_at_zero(out)
    return record(CumsumBackward0, out, (input,), args=d)


def _start_at_zero(out):
    # PyTorch's kernels start the running value at 0 and add each element, so a leading
    # -0.0 gives +0.0 (NumPy's accumulate copies it); a 0-d input is copied in both
    if out.ndim and out.dtype.kind in "fc":
        out += 0.0


# ----------------------------------------------------------------- cumprod
def _cumprod_backward(ctx, g):
    # PyTorch's cumprod_backward (ops/reduce/prod_backward.py; it saves the output too: changing
    # it in place is an error)
    (x,) = ctx._checked_saved
    return (cumprod_backward(g, x, ctx.result, ctx.args),)


CumprodBackward0 = node("CumprodBackward0", _cumprod_backward, saves=True)


@defop("cumprod", out=True, inplace=True)
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along ``dim`` (integer and bool inputs give int64).

    Gradient: PyTorch's cumprod_backward (ops/reduce/prod_backward.py), exact at zeros."""
    out, d = _cumulative(np.cumprod, input, dim, dtype)
    return record(CumprodBackward0, out, (input,), saved=(input,), args=d, save_result=True)


CummaxBackward0 = node("CummaxBackward0", _gather_backward, saves=False)
CumminBackward0 = node("CumminBackward0", _gather_backward, saves=False)


def _cum_extreme(input, dim, acc, name, cls):
    x = input._data
    if x.ndim == 0:     # as a 1-element vector
        _wrap_dim(dim, 0)
        v, i = _cum_extreme(input.reshape(1), 0, acc, name, cls)
        return _return_type(name)(v.reshape(()), i.reshape(()))
    d = _wrap_dim(dim, x.ndim)
    if x.shape[d] == 0:
        return _return_type(name)(input.clone(), Tensor._make_plain(
            np.zeros(x.shape, np.int64)))
    with _quiet():
        v = acc(x, axis=d)
        hit = (x == v) if x.dtype.kind not in "fc" else ((x == v) | np.isnan(x))
    shape = [1] * x.ndim
    shape[d] = x.shape[d]
    pos = np.arange(x.shape[d]).reshape(shape)
    idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=d).astype(np.int64)
    return _return_type(name)(_take_along(cls, input, d, idx), Tensor._make_plain(idx))


@defop("cummax", out=True)
def cummax(input, dim, *, out=None):
    """Running maximum along ``dim`` and the index it came from: ``(values, indices)``.

    Shapes: both as the input; indices int64. Among equal values the latest index is
    reported; NaN propagates. Gradient: to the recorded indices (CummaxBackward0).

    Raises:
        IndexError: ``dim`` out of range.
    """
    if out is not None:
        return out_tuple_call("cummax", cummax, (input, dim), {}, out)
    return _cum_extreme(input, dim, np.maximum.accumulate, "cummax", CummaxBackward0)


@defop("cummin", out=True)
def cummin(input, dim, *, out=None):
    """Running minimum along ``dim`` and its index (see ``cummax``)."""
    if out is not None:
        return out_tuple_call("cummin", cummin, (input, dim), {}, out)
    return _cum_extreme(input, dim, np.minimum.accumulate, "cummin", CumminBackward0)


def _logcumsumexp_backward(ctx, g):
    # PyTorch's logcumsumexp_backward (FunctionsManual.cpp, after TensorFlow's): g split
    # into positive and negative parts, each accumulated in log space, reversed
    from ..elementwise import exp, log
    from ..shape.rearrange import flip
    from ..elementwise.pointwise import where
    (x,) = ctx._checked_saved
    r = ctx.result
    d = ctx.args
    if x.dim() == 0 or x.shape[d] == 0:
        return (g,)
    lowest = float(np.finfo(x._data.dtype).min)

    def rev_lcse(t):
        return flip(logcumsumexp(flip(t, (d,)), d), (d,))
    log_abs = log(g.abs())
    pos = where(g > 0, log_abs, lowest)
    neg = where(g < 0, log_abs, lowest)
    return (exp(rev_lcse(pos - r) + x) - exp(rev_lcse(neg - r) + x),)


LogcumsumexpBackward0 = node("LogcumsumexpBackward0", _logcumsumexp_backward, saves=True)


@defop("logcumsumexp", out=True)
def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(x)))`` along ``dim``, computed stably (pairwise ``logaddexp``).

    Shapes and dtype as the input.

    Raises:
        NotImplementedError: integer or bool input (no kernel, as PyTorch).
        IndexError: ``dim`` out of range.
    """
    if out is not None:
        return out_call("logcumsumexp", logcumsumexp, (input, dim), {}, out)
    x = input._data
    if x.dtype.kind not in "fc":
        raise NotImplementedError("\"logcumsumexp_out_cpu\" not implemented for '%s'. "
                                  "Fix: convert first, e.g. x.float()" % _errors.type_name(x.dtype))
    d = _wrap_dim(dim, x.ndim) if x.ndim else (_wrap_dim(dim, 0) and 0)
    with _quiet():
        if not (x.ndim and x.shape[d]):
            out = x.copy()
        elif x.dtype.itemsize < 8 and x.dtype.kind == "f":
            # the running value in double, as PyTorch's CPU kernel (acc_type): at |x| ~ 1e7
            # float32's ulp is 1, and a float32 running sum would drop each log1p term
            out = np.logaddexp.accumulate(x.astype(np.float64), axis=d)
        else:
            out = np.logaddexp.accumulate(x, axis=d)
    out = out.astype(x.dtype)
    _start_at_zero(out)
    return record(LogcumsumexpBackward0, out, (input,), saved=(input,),
                  save_result=True, args=d)


# ------------------------------------------------------------ trapezoid rule
def _spacing(y, x, dx, d, name):
    """The sample spacings along ``d`` (a tensor broadcasting against y's differences, or
    a number), as PyTorch's trapezoid (Integration.cpp): a 1-D ``x`` lies along ``d``."""
    if x is None:
        return 1 if dx is None else dx
    if not isinstance(x, Tensor):
        return x
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("%s: There must be one `x` value for each sample point. "
                               "Fix: x.shape[0] == y.shape[dim]" % name)
        shape = [1] * y.dim()
        shape[d] = x.shape[0]
        x = x.reshape(shape)
    elif x.dim() < y.dim():
        x = x.reshape((1,) * (y.dim() - x.dim()) + tuple(x.shape))
    n = x.shape[d]
    return x.narrow(d, 1, n - 1) - x.narrow(d, 0, n - 1)


def _trap_args(y, x, dx, dim, name):
    y = to_tensor(y)
    if y._data.dtype == np.bool_ or (isinstance(x, Tensor) and x._data.dtype == np.bool_):
        raise RuntimeError("%s: received a bool input for `x` or `y`, but bool is not "
                           "supported. Fix: convert first, e.g. y.float()" % name)
    if x is not None and dx is not None:
        raise TypeError("%s() received both x and dx; pass one of them. Fix: drop dx" % name)
    return y, _wrap_dim(dim, y.dim())


@defop("trapezoid", method=False, aliases=("trapz",))
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integral of ``y`` along ``dim`` by the trapezoid rule, with sample points ``x``
    (a tensor) or a constant spacing ``dx`` (default 1). Output: y's shape without
    ``dim``; zeros when ``dim`` has no samples (as PyTorch and NumPy).

    Formula (PyTorch's Integration.cpp): ``sum(dx * (y[1:] + y[:-1])) / 2``.

    Raises:
        RuntimeError: bool input, or a 1-D ``x`` whose length is not ``y.shape[dim]``.
    """
    y, d = _trap_args(y, x, dx, dim, "trapezoid")
    n = y.shape[d]
    if n == 0:
        return (y.sum(d) * 0)
    sp = _spacing(y, x, dx, d, "trapezoid")
    # PyTorch's grad_fn names: its last step multiplies (divides) by a Scalar
    if not isinstance(sp, Tensor):
        return _named((y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * sp,
                      "MulBackward1")
    return _named((sp * (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1))).sum(d) / 2.0,
                  "DivBackward1")


@defop("cumulative_trapezoid", method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoid-rule integral of ``y`` along ``dim`` (one element fewer than
    ``y`` along ``dim``); ``x`` / ``dx`` as in ``trapezoid``.

    Formula (PyTorch's Integration.cpp): ``cumsum(dx * (y[1:] + y[:-1]) / 2)``.
    """
    y, d = _trap_args(y, x, dx, dim, "cumulative_trapezoid")
    n = y.shape[d]
    if n == 0:
        return y.narrow(d, 0, 0) * 1
    sp = _spacing(y, x, dx, d, "cumulative_trapezoid")
    res = ((y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * sp / 2.0).cumsum(d)
    return _named(res, "DivBackward1") if isinstance(sp, Tensor) else res


@defop("diff", out=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along ``dim``: ``x[1:] - x[:-1]`` applied ``n`` times,
    after concatenating ``prepend``/``append``; composed of narrow and sub (grad_fn
    SubBackward0 as PyTorch; bool inputs use logical_xor).

    Raises:
        RuntimeError: for a 0-d input.
    """
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(dim, input._data.ndim)
    parts = [t if isinstance(t, Tensor) else to_tensor(t) for t in (prepend, input, append)
             if t is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x._data.shape[d]
        if length == 0:
            break
        hi, lo = narrow(x, d, 1, length - 1), narrow(x, d, 0, length - 1)
        if x._data.dtype == np.bool_:
            from ..elementwise.comparison import logical_xor
            x = logical_xor(hi, lo)
        else:
            x = hi - lo
    return x
