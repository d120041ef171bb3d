"""Reductions: sum, mean, max/min, argmax, var/std, prod, logsumexp, cumsum, cumprod, ...

``torch.norm`` lives with the linalg norms (``ops/linalg/norms.py``), ``median`` with
the order statistics (``ops/shape/sorting.py``); both use this family's helpers (``_dims``,
``_unreduce``, ``_return_type``).

Each rule expands the gradient back over the reduced dims (``keepdim``
handled by re-inserting them). ``max``/``min`` over a dim send the gradient
to the selected index; the full reductions ``max()``/``amax`` split it
evenly among ties, as PyTorch does.
"""
import collections

import numpy as np

from ..._core import dtype as _dtype, errors as _errors, scalars as _scalars
from ..._tensor.meta import asarray as _asarray
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record, to_tensor
from .._out import out_call, with_out
from .._registry import defop, no_derivative, node
from .._trace import tape as _tape
from .._select import select
from .prod_backward import prod_backward

from ..._core.quiet import quiet as _quiet




def _dims(dim, ndim):
    """Normalised tuple of reduced dims (None = all; a 0-d tensor has none)."""
    if ndim == 0 and dim is not None:
        for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
            _wrap_dim(d, 0)
        return ()
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        ds = tuple(_wrap_dim(d, ndim) for d in dim)
        if len(set(ds)) != len(ds):
            raise RuntimeError("dim %d appears multiple times in the list of dims" % ds[0])
        return tuple(sorted(ds)) if ds else tuple(range(ndim))
    return (_wrap_dim(dim, ndim),)


def _unreduce(g, shape, dims, keepdim):
    """Broadcast a reduced gradient back to ``shape``."""
    if not keepdim and dims and len(shape) and len(dims) < len(shape):
        kept = list(shape)
        for d in dims:
            kept[d] = 1
        g = g.reshape(kept)
    return g.expand(shape)


def _sum_backward(ctx, g):
    shape, dims, keepdim = ctx.args
    return (_unreduce(g, shape, dims, keepdim),)


SumBackward0 = node("SumBackward0", _sum_backward, saves=False)
SumBackward1 = node("SumBackward1", _sum_backward, saves=False)


def _unreduce_np(g, shape, dims, keepdim):
    if g.ndim == 0 and g.flags.c_contiguous:
        # a full reduction: a read-only view with zero strides, made directly
        # (0.4 us; np.broadcast_to takes 3 us)
        out = np.ndarray(shape, g.dtype, g, 0, (0,) * len(shape))
        out.flags.writeable = False
        return out
    if not keepdim and dims and len(shape):
        kept = list(shape)
        for d in dims:
            kept[d] = 1
        g = np.reshape(g, kept)
    return np.broadcast_to(g, shape)


def _sum_np(ctx, g):
    shape, dims, keepdim = ctx.args
    return (_unreduce_np(g, shape, dims, keepdim),)


def _mean_np(ctx, g):
    shape, dims, keepdim, n = ctx.args
    return (_unreduce_np(_scalars.divide_by_count(g, n), shape, dims, keepdim),)


SumBackward0.np_backward = SumBackward1.np_backward = _sum_np


def _sum_method(self, dim=None, keepdim=False, dtype=None):
    """``Tensor.sum``: see ``torch.sum``."""
    return sum(self, dim, keepdim, dtype=dtype)


def _mean_method(self, dim=None, keepdim=False, dtype=None):
    """``Tensor.mean``: see ``torch.mean``."""
    return mean(self, dim, keepdim, dtype=dtype)


def _max_method(self, dim=None, keepdim=False):
    """``Tensor.max``: see ``torch.max``."""
    return max(self, dim, keepdim)


def _min_method(self, dim=None, keepdim=False):
    """``Tensor.min``: see ``torch.min``."""
    return min(self, dim, keepdim)


def _acc(x):
    """The dtype= NumPy's sum/prod/cumsum must be given to stay in ``x``'s integer or bool
    dtype (NumPy widens those to int64); None for floats (their own dtype already)."""
    return x.dtype if x.dtype.kind in "biu" else None


def _sum_dtype(x, dtype, input=None):
    """``x`` in the dtype that sum and cumsum/cumprod compute in: ``dtype`` when given,
    else int64 for integer and bool inputs (PyTorch's rule), else its own.

    Raises:
        RuntimeError: an integer ``dtype`` for an ``input`` that requires grad, with grad
            mode on (PyTorch: "Autograd not support dtype")."""
    if dtype is not None:
        if input is not None and input._requires_grad and dtype.np.kind in "biu":
            from ...autograd.grad_mode import mode
            if mode.enabled:
                raise RuntimeError(
                    "Autograd not support dtype: %s. Fix: reduce in a floating dtype, or "
                    "detach() the input first" % _errors.type_name(dtype))
        return x.astype(dtype.np)
    return x.astype(np.int64) if x.dtype.kind in "biu" else x


@defop("sum", method=_sum_method, out=True)
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over ``dim`` (int, tuple, or all). Integer and bool inputs give int64.

    Raises:
        IndexError: for a dim out of range.
    """
    if out is not None and dim is None:
        raise TypeError("sum(): out= needs dim (PyTorch's sum(input, *, dtype) takes no out). "
                        "Fix: pass dim, e.g. torch.sum(x, 0, out=o), or assign the result")
    if out is not None:
        return out_call("sum", sum, (input, dim, keepdim), {"dtype": dtype}, out)
    input = to_tensor(input)
    x = _sum_dtype(input._data, _dtype.to_dtype(dtype, "sum"), input)
    dims = _dims(dim, x.ndim)
    cls = SumBackward0 if dim is None else SumBackward1
    res = record(cls, _sum_kernel(x, dims, keepdim), (input,),
                 args=(input._data.shape, dims, keepdim))
    if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
        _tape[0].op(_sum_kernel if x is input._data else None, (x, dims, keepdim), res)
    return res


def _sum_kernel(x, dims, keepdim):
    """sum's NumPy kernel."""
    with _quiet():      # in x's dtype: int32 stays int32 (wrapping), bool is "any", as PyTorch
        return x.sum(axis=dims, keepdims=keepdim, dtype=_acc(x)) if x.ndim else x.copy()


def _mean_backward(ctx, g):
    shape, dims, keepdim, n = ctx.args
    return (_unreduce(g / n, shape, dims, keepdim),)


MeanBackward0 = node("MeanBackward0", _mean_backward, saves=False)
MeanBackward1 = node("MeanBackward1", _mean_backward, saves=False)
MeanBackward0.np_backward = MeanBackward1.np_backward = _mean_np


@defop("mean", method=_mean_method, out=True)
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean over ``dim``; the mean of an empty selection is nan.

    Raises:
        RuntimeError: for integer inputs (as PyTorch: pass ``dtype`` or call ``.float()``).
    """
    if out is not None:
        return out_call("mean", mean, (input, dim, keepdim), {"dtype": dtype}, out)
    x = input._data
    dtype = _dtype.to_dtype(dtype, "mean")
    if dtype is not None:
        x = x.astype(dtype.np)
    if x.dtype.kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            "or complex dtype. Got: %s. Fix: call .float() first, or pass dtype=torch.float32."
            % _long_name(x.dtype))
    dims = _dims(dim, x.ndim)
    n = 1
    for d in dims:
        n *= x.shape[d]
    cls = MeanBackward0 if dim is None else MeanBackward1
    res = record(cls, _mean_kernel(x, dims, keepdim, n), (input,),
                 args=(x.shape, dims, keepdim, n))
    if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
        _tape[0].op(_mean_kernel if x is input._data else None, (x, dims, keepdim, n), res)
    return res


def _mean_kernel(x, dims, keepdim, n):
    """mean's NumPy kernel (``n``: the count of the reduced elements)."""
    with _quiet():
        # sum / n, not np.mean: NumPy warns "Mean of empty slice" where PyTorch gives nan quietly
        # float16: summed and divided in float32, then rounded (PyTorch's mean_out on CPU
        # "for accuracy": 66000 halves sum past 65504 but their mean is finite)
        # (the float32 sum taken as float64's rounded: PyTorch's cascade sum is that exact)
        out = ((x.sum(axis=dims, keepdims=keepdim, dtype=np.float64).astype(np.float32)
                if x.dtype == np.float16 else x.sum(axis=dims, keepdims=keepdim)) / n if n else
               np.full(np.sum(x, axis=dims, keepdims=keepdim).shape, np.nan, x.dtype)) \
            if x.ndim else x.copy()
    return _asarray(out, dtype=x.dtype)


def _long_name(npd):
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "uint8": "Byte",
            "int16": "Short", "int8": "Char"}.get(np.dtype(npd).name, str(npd))


# ------------------------------------------------------------- max and min
def _evenly_backward(ctx, g):
    # gradient split evenly among all elements equal to the result (PyTorch's
    # evenly_distribute_backward / amax rule)
    (x,) = ctx._checked_saved
    shape, dims, keepdim = ctx.args
    r = ctx.result
    rk = _unreduce(r, shape, dims, keepdim)
    mask = (x == rk)
    count = mask.sum(dims, keepdim=True) if dims else mask
    return (_unreduce(g, shape, dims, keepdim) * mask / count,)


def _evenly_distribute_backward(ctx, g):
    # max()/min() over all elements (PyTorch's evenly_distribute_backward): g split
    # among the elements equal to the result, or among the nans when it is nan
    (x,) = ctx._checked_saved
    xd, r = x._data, ctx.result_array()
    mask = np.isnan(xd) if xd.dtype.kind == "f" and np.isnan(r) else xd == r
    # zeros(...).masked_fill_(mask, g / count), as PyTorch's CPU kernel: it selects
    return (select(mask, g / int(mask.sum())),)


MaxBackward1 = node("MaxBackward1", _evenly_distribute_backward, saves=True)
MinBackward1 = node("MinBackward1", _evenly_distribute_backward, saves=True)
AmaxBackward0 = node("AmaxBackward0", _evenly_backward, saves=True)
AminBackward0 = node("AminBackward0", _evenly_backward, saves=True)


def _index_backward(ctx, g):
    # gradient goes to the selected index only
    shape, dim, keepdim, idx = ctx.args
    if not shape:       # a 0-d input (dim 0 or -1): its one element was chosen
        return (g.reshape(()),)
    if not keepdim:
        g = g.unsqueeze(dim)
    ar = np.arange(shape[dim]).reshape((-1,) + (1,) * (len(shape) - dim - 1))
    mask = ar == (idx if keepdim else np.expand_dims(idx, dim))
    # PyTorch scatters g into zeros (value_selecting_reduction_backward): it selects
    return (select(mask, g.expand(shape)),)


MaxBackward0 = node("MaxBackward0", _index_backward, saves=False)
MinBackward0 = node("MinBackward0", _index_backward, saves=False)

_ret_types = {}


def _return_type(name, fields=("values", "indices")):
    cls = _ret_types.get(name)
    if cls is None:
        base = collections.namedtuple(name, fields)

        def __repr__(self):
            return "torch.return_types.%s(\n%s)" % (
                name, ",\n".join("%s=%r" % (f, getattr(self, f)) for f in fields))
        cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                   "__module__": "torch.return_types"})
        _ret_types[name] = cls
    return cls


def _empty_check(x, name, dim=None):
    if x.size == 0 and dim is None:
        # PyTorch: RuntimeError for max()/min(), IndexError for argmax()/argmin()
        cls = IndexError if name.startswith("arg") else RuntimeError
        raise cls("%s(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                  "the reduction dim with the 'dim' argument." % name)
    if dim is not None and x.shape[dim] == 0:
        raise IndexError("%s(): Expected reduction dim %d to have non-zero size." % (name, dim))


def _extreme(input, dim, keepdim, np_red, np_arg, name, full_cls, dim_cls, other=None):
    if other is not None and isinstance(other, Tensor):
        from ..elementwise import maximum, minimum
        return (maximum if name == "max" else minimum)(input, other)
    if isinstance(dim, np.ndarray):
        raise TypeError("%s() received an invalid combination of arguments - got (Tensor, "
                        "numpy.ndarray): the second argument is a dim (int) or a Tensor. Fix: "
                        "torch.%s(x, torch.as_tensor(a))" % (name, name))
    x = input._data
    if x.dtype.kind == "c":
        if dim is None:
            raise NotImplementedError(_errors.no_complex_kernel(name + "_all", x.dtype))
        raise RuntimeError("%s(): does not support complex input. Fix: reduce .abs() or .real"
                           % name)
    if dim is None or isinstance(dim, Tensor):
        _empty_check(x, name)
        out = np_red(x)
        return record(full_cls, out, (input,), saved=(input,), save_result=True,
                      args=(x.shape, tuple(range(x.ndim)), False))
    d = _wrap_dim(dim, x.ndim)
    _empty_check(x, name, d if x.ndim else None)
    if x.ndim == 0:
        values, idx = x.copy(), np.zeros((), np.int64)
    else:
        idx = np_arg(x, axis=d, keepdims=keepdim)
        values = np.take_along_axis(x, idx if keepdim else np.expand_dims(idx, d), axis=d)
        if not keepdim:
            values = values.squeeze(d)
    v = record(dim_cls, values, (input,), args=(x.shape, d if x.ndim else 0, keepdim, idx))
    return _return_type(name)(v, Tensor._make_plain(np.asarray(idx, dtype=np.int64)))


def _nanarg(argf, redf):
    # NaN propagates (as PyTorch): the first NaN is the extreme
    def f(x, axis, keepdims):
        i = argf(x, axis=axis, keepdims=keepdims)
        if x.dtype.kind == "f":
            nan = np.isnan(x)
            if nan.any():
                j = np.argmax(nan, axis=axis, keepdims=keepdims)
                i = np.where(np.any(nan, axis=axis, keepdims=keepdims), j, i)
        return i
    return f


@defop("max", method=_max_method)
@with_out("max")
def max(input, dim=None, keepdim=False, *, out=None):
    """``max()`` -> tensor; ``max(dim)`` -> (values, indices); ``max(other)`` -> maximum.

    Raises:
        IndexError: on an empty tensor without ``dim``.
    """
    return _extreme(input, dim, keepdim, np.max, _nanarg(np.argmax, np.max), "max",
                    MaxBackward1, MaxBackward0, other=dim)


@defop("min", method=_min_method)
@with_out("min")
def min(input, dim=None, keepdim=False, *, out=None):
    """``min()`` -> tensor; ``min(dim)`` -> (values, indices); ``min(other)`` -> minimum."""
    return _extreme(input, dim, keepdim, np.min, _nanarg(np.argmin, np.min), "min",
                    MinBackward1, MinBackward0, other=dim)


def _amext(input, dim, keepdim, np_red, cls):
    x = input._data
    if x.dtype.kind == "c":
        raise NotImplementedError(_errors.no_complex_kernel(
            "max_values_cpu" if np_red is np.max else "min_values_cpu", x.dtype))
    dims = _dims(dim if dim != () else None, x.ndim)
    if x.size == 0:     # PyTorch's errors, not NumPy's "zero-size array" ValueError
        name = "amax" if np_red is np.max else "amin"
        if dim in ((), None):
            _empty_check(x, name)
        for d in dims if x.ndim else ():
            _empty_check(x, name, d)
    out = np_red(x, axis=dims, keepdims=keepdim) if x.ndim else x.copy()
    return record(cls, out, (input,), saved=(input,), save_result=True,
                  args=(x.shape, dims, keepdim))


@defop("amax", out=True)
def amax(input, dim=(), keepdim=False):
    """Max over dims; the gradient is split evenly among ties."""
    return _amext(input, dim, keepdim, np.max, AmaxBackward0)


@defop("amin", out=True)
def amin(input, dim=(), keepdim=False):
    """Min over dims; the gradient is split evenly among ties."""
    return _amext(input, dim, keepdim, np.min, AminBackward0)


def _arg(input, dim, keepdim, f, name):
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError("%s(): does not support bool input: convert with x.long() or "
                           "x.float() first" % name)
    if dim is None:
        _empty_check(x, name)
        r = f(x.reshape(-1), axis=0, keepdims=False)
        if keepdim:
            r = np.asarray(r).reshape((1,) * x.ndim)
        return Tensor._make_plain(np.asarray(r, dtype=np.int64))
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return Tensor._make_plain(np.zeros((), np.int64))
    _empty_check(x, name, d)
    return Tensor._make_plain(np.asarray(f(x, axis=d, keepdims=keepdim), dtype=np.int64))


@defop("argmax", out=True)
def argmax(input, dim=None, keepdim=False):
    """Index of the max (first one on ties); flattened when ``dim`` is None. int64, no grad."""
    if input._data.dtype.kind == "c":
        raise RuntimeError("argmax(): does not support complex input. Fix: use .abs() or .real")
    return _arg(input, dim, keepdim, _nanarg(np.argmax, np.max), "argmax")


@defop("argmin", out=True)
def argmin(input, dim=None, keepdim=False):
    """Index of the min (first one on ties). int64, no grad."""
    if input._data.dtype.kind == "c":
        raise RuntimeError("argmin(): does not support complex input. Fix: use .abs() or .real")
    return _arg(input, dim, keepdim, _nanarg(np.argmin, np.min), "argmin")


def _prod_backward(ctx, g):
    # PyTorch's prod_backward (ops/reduce/prod_backward.py)
    (x,) = ctx._checked_saved
    dims, keepdim, full = ctx.args
    return (prod_backward(g, x, ctx.result, None if full else dims[0], keepdim),)


ProdBackward0 = node("ProdBackward0", _prod_backward, saves=True)
ProdBackward1 = node("ProdBackward1", _prod_backward, saves=True)


@defop("prod", out=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over one dim (or all). The gradient is PyTorch's prod_backward
    (ops/reduce/prod_backward.py: exact with zeros, twice differentiable)."""
    x = input._data
    dims = _dims(dim, x.ndim)
    dtype = _dtype.to_dtype(dtype, "prod")
    if dtype is not None and dtype.np != x.dtype:
        # PyTorch computes in ``dtype`` (the input cast first; the gradient flows back)
        _sum_dtype(x.reshape(-1)[:0], dtype, input)
        return prod(input.to(dtype), dim, keepdim, dtype=dtype)
    if dtype is None:
        x = _sum_dtype(x, None)
    with _quiet():
        out = np.prod(x, axis=dims, keepdims=keepdim, dtype=_acc(x)) if x.ndim else x.copy()
    return record(ProdBackward0 if dim is None else ProdBackward1, out, (input,), saved=(input,),
                  save_result=True, args=(dims, keepdim, dim is None or not dims))


def _lse_backward(ctx, g):
    (x,) = ctx._checked_saved
    dims, keepdim = ctx.args
    r = _unreduce(ctx.result, x.shape, dims, keepdim)
    return (_unreduce(g, x.shape, dims, keepdim) * (x - r).exp(),)


LogsumexpBackward0 = node("LogsumexpBackward0", _lse_backward, saves=True)


@defop("logsumexp", out=True)
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(x))) over ``dim``, computed stably (max subtracted first)."""
    x = input._data
    if x.dtype.kind not in "fc":
        x = x.astype(_dtype.get_default_dtype().np)
    dims = _dims(dim, x.ndim)
    with _quiet():
        m = np.max(x, axis=dims, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
        m = np.where(np.isfinite(m), m, 0)
        out = np.log(np.sum(np.exp(x - m), axis=dims, keepdims=True)) + m
    if not keepdim:
        out = np.squeeze(out, dims)
    return record(LogsumexpBackward0, out.astype(x.dtype), (input,), saved=(input,),
                  save_result=True, args=(dims, keepdim))


@defop("all", out=True)
def all(input, dim=None, keepdim=False):
    x = input._data
    if isinstance(dim, (tuple, list)) and not dim:
        out = x != 0        # PyTorch's all/any over no dims: elementwise
    else:
        out = np.asarray(np.all(x, axis=None if dim is None else _dims(dim, x.ndim),
                                keepdims=keepdim))
    # uint8 in, uint8 out (PyTorch's all/any)
    return Tensor._make_plain(out.astype(np.uint8) if x.dtype == np.uint8 else out)


@defop("any", out=True)
def any(input, dim=None, keepdim=False):
    x = input._data
    if isinstance(dim, (tuple, list)) and not dim:
        out = x != 0
    else:
        out = np.asarray(np.any(x, axis=None if dim is None else _dims(dim, x.ndim),
                                keepdims=keepdim))
    return Tensor._make_plain(out.astype(np.uint8) if x.dtype == np.uint8 else out)


@defop("count_nonzero")
def count_nonzero(input, dim=None):
    x = input._data
    return Tensor._make_plain(np.asarray(np.count_nonzero(
        x, axis=None if dim is None else _dims(dim, x.ndim)), dtype=np.int64))


@defop("bincount")
def bincount(input, weights=None, minlength=0):
    """Counts of each value of a 1-D non-negative integer tensor: int64, length
    ``max(input)+1`` (at least ``minlength``); with ``weights``, their sums (float64
    for float/int weights, as PyTorch, float32 for float32 weights). No gradient.

    Raises:
        RuntimeError: for a non-1-D, non-integer or negative input.
    """
    x = input._data
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if x.size and x.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return Tensor._make_plain(np.bincount(x, minlength=minlength).astype(np.int64))
    w = weights._data if isinstance(weights, Tensor) else np.asarray(weights)
    if w.shape != x.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = np.float32 if w.dtype == np.float32 else np.float64
    counts = np.bincount(x, weights=w, minlength=minlength).astype(dt)
    # weights that require grad: the result does too, with no derivative, as PyTorch
    return record(no_derivative("bincount"), counts,
                  (weights if isinstance(weights, Tensor) else None,))
