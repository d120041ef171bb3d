"""More reductions: std_mean, var_mean, aminmax, nansum, nanmean, nanmedian, kthvalue,
mode, msort.

The pairs (``std_mean``, ``aminmax``) are the two reductions recorded separately, so
each output differentiates as its own op (PyTorch's StdMeanBackward0 / AminmaxBackward0
compute the same sums of the two rules). The value-selecting ones (``kthvalue``,
``mode``, ``nanmedian(dim)``) send the gradient to the chosen index, as PyTorch's
``value_selecting_reduction_backward``; ``nanmedian()`` splits it evenly among the
elements equal to the result (``evenly_distribute_backward``).
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record
from .._out import out_call, out_tuple_call
from .._registry import defop, node
from .._named import grad_fn_named
from .reduction import (_dims, _empty_check, _evenly_distribute_backward, _index_backward,
                        _return_type, amax, amin, mean, sum)
from .variance import std, var
from ..shape.sorting import sort


def _float_check(input, name):
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(
            "%s(): expected input to have floating point or complex dtype but got %s. "
            "Fix: convert first, e.g. x.float()" % (name, _errors.type_name(input._data.dtype)))


def _moments(stat, input, dim, unbiased, keepdim, correction):
    mdim = None if isinstance(dim, bool) else dim
    s = stat(input, dim, unbiased, keepdim, correction=correction)
    return s, mean(input, mdim, keepdim)


@defop("std_mean", method=False)
@grad_fn_named("StdMeanBackward0")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` (same arguments as ``torch.std``); two tensors of
    the reduced shape. Gradients: those of ``std`` and ``mean`` (derivatives.yaml,
    std_mean).

    Raises:
        RuntimeError: for integer inputs (std needs a floating dtype).
    """
    return _moments(std, input, dim, unbiased, keepdim, correction)


@defop("var_mean", method=False)
@grad_fn_named("VarMeanBackward0")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` (same arguments as ``torch.var``)."""
    return _moments(var, input, dim, unbiased, keepdim, correction)


@defop("aminmax", out=True)
@grad_fn_named("AminmaxBackward0")
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``(min, max)`` namedtuple over ``dim`` (all elements when None). Each gradient
    is split evenly among the elements equal to its result (derivatives.yaml, aminmax).

    Raises:
        RuntimeError: an empty input (or an empty ``dim``).
    """
    if out is not None:
        return out_tuple_call("aminmax", aminmax, (input,), {"dim": dim, "keepdim": keepdim}, out)
    x = input._data
    if dim is not None and x.size == 0:
        if x.ndim and x.shape[_wrap_dim(dim, x.ndim)] == 0:
            raise IndexError("aminmax: Expected reduction dim %d to have non-zero size. Fix: "
                             "check the input is not empty along that dim"
                             % _wrap_dim(dim, x.ndim))
    elif x.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity. Fix: check the input is not empty")
    d = () if dim is None else dim
    return _return_type("aminmax", ("min", "max"))(amin(input, d, keepdim),
                                                   amax(input, d, keepdim))


def _nan_zeroed_backward(ctx, g):
    # derivatives.yaml's nansum_backward multiplies: g * self.isnan().logical_not(), so
    # an inf upstream gradient at a NaN input gives nan there (a select would give 0)
    return (g * Tensor._make_plain(ctx.args),)


NanZeroedBackward = node("MulBackward0", _nan_zeroed_backward, saves=False)


@defop("nansum", out=True)
@grad_fn_named("NansumBackward0")
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over ``dim`` treating NaN as zero (integer inputs give int64, as ``sum``).
    Gradient: ``g * (input is not NaN)`` (derivatives.yaml, nansum_backward)."""
    if out is not None:
        return out_call("nansum", nansum, (input, dim, keepdim), {"dtype": dtype}, out)
    x = input._data
    if x.dtype.kind in "fc":
        nan = np.isnan(x)
        input = record(NanZeroedBackward, np.where(nan, x.dtype.type(0), x), (input,),
                       args=(~nan).astype(x.dtype))
    return sum(input, dim, keepdim, dtype=dtype)


@defop("nanmean", out=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN values over ``dim`` (NaN where all are NaN): ``nansum`` /
    count of non-NaN values, as PyTorch computes it.

    Raises:
        RuntimeError: for integer inputs.
    """
    if out is not None:
        return out_call("nanmean", nanmean, (input, dim, keepdim), {"dtype": dtype}, out)
    _float_check(input, "nanmean")
    keep = Tensor._make_plain(~np.isnan(input._data))
    return nansum(input, dim, keepdim, dtype=dtype) / sum(keep, dim, keepdim)


NanmedianBackward0 = node("NanmedianBackward0", _evenly_distribute_backward, saves=True)
NanmedianBackward1 = node("NanmedianBackward1", _index_backward, saves=False)
KthvalueBackward0 = node("KthvalueBackward0", _index_backward, saves=False)
ModeBackward0 = node("ModeBackward0", _index_backward, saves=False)


def _nan_lower_median(x, axis):
    """Index (keepdims) along ``axis`` of the lower median of the non-NaN values (the
    first NaN when all are NaN)."""
    order = np.argsort(x, axis=axis, kind="stable")     # NaN last
    k = np.sum(~np.isnan(x), axis=axis, keepdims=True) if x.dtype.kind == "f" else \
        np.full(np.sum(x, axis=axis, keepdims=True).shape, x.shape[axis])
    pos = np.maximum(k - 1, 0) // 2
    return np.take_along_axis(order, pos, axis=axis).astype(np.int64)


def _selected(cls, name, input, dim, keepdim, index_fn):
    """Values at ``index_fn(x, d)`` (keepdims indices) along ``dim``, recorded as ``cls``
    (gradient to the chosen index), and the int64 indices."""
    x = input._data
    if x.ndim == 0:
        _wrap_dim(dim, 0)
        v = record(cls, x.copy(), (input,), args=((), 0, keepdim, np.zeros((), np.int64)))
        return _return_type(name)(v, Tensor._make_plain(np.zeros((), np.int64)))
    d = _wrap_dim(dim, x.ndim)
    _empty_check(x, name, d)
    idx = index_fn(x, d)
    values = np.take_along_axis(x, idx, axis=d)
    if not keepdim:
        idx, values = idx.squeeze(d), values.squeeze(d)
    v = record(cls, values, (input,), args=(x.shape, d, keepdim, idx))
    return _return_type(name)(v, Tensor._make_plain(idx.copy()))


@defop("nanmedian", out=True)
def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """Lower median of the non-NaN values (NaN only when all are NaN).

    ``nanmedian()`` -> 0-d tensor (gradient split among the elements equal to it,
    NanmedianBackward0); ``nanmedian(dim)`` -> (values, indices), gradient to the chosen
    index (NanmedianBackward1). Which index among equal values is chosen is not specified.

    Raises:
        IndexError: an empty ``dim``.
    """
    if out is not None:
        return out_tuple_call("nanmedian", nanmedian, (input, dim, keepdim), {}, out)
    x = input._data
    if dim is None:
        flat = x.reshape(-1)
        out = np.asarray(np.nan, x.dtype) if x.size == 0 else \
            flat[_nan_lower_median(flat, 0)[0]]
        return record(NanmedianBackward0, np.asarray(out), (input,), saved=(input,),
                      save_result=True)
    return _selected(NanmedianBackward1, "nanmedian", input, dim, keepdim, _nan_lower_median)


@defop("kthvalue", out=True)
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest value along ``dim`` (1-based; NaN counts as the largest) and
    its index; the gradient goes to that index (KthvalueBackward0).

    Raises:
        RuntimeError: ``k`` outside ``1..size(dim)``.
    """
    if out is not None:
        return out_tuple_call("kthvalue", kthvalue, (input, k, dim, keepdim), {}, out)
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if n == 0:
        raise IndexError("kthvalue(): Expected reduction dim %d to have non-zero size. Fix: "
                         "check the input is not empty along that dim" % _wrap_dim(dim, x.ndim))
    if not 1 <= k <= n:
        raise RuntimeError("kthvalue(): selected number k out of range for dimension %s: "
                           "k=%d, size %d. Fix: 1 <= k <= x.shape[dim]" % (dim, k, n))
    if x.dtype == np.bool_ and x.ndim:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'. Fix: convert "
                                  "first, e.g. x.int()")

    def at_k(a, d):
        order = np.argsort(a, axis=d, kind="stable")
        return np.take(order, [k - 1], axis=d).astype(np.int64)
    return _selected(KthvalueBackward0, "kthvalue", input, dim, keepdim, at_k)


def _mode_index(x, d):
    # the most frequent value (the smallest among equally frequent ones) and the last
    # index where it occurs, per slice along d
    a = np.moveaxis(x, d, -1)
    flat = a.reshape(-1, a.shape[-1])
    out = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        order = np.argsort(row, kind="stable")
        s = row[order]
        same = np.concatenate(([False], (s[1:] == s[:-1]) | (np.isnan(s[1:]) & np.isnan(s[:-1]))))
        starts = np.flatnonzero(~same)
        counts = np.diff(np.append(starts, len(s)))
        best = int(np.argmax(counts))
        out[r] = order[starts[best] + counts[best] - 1]
    return np.expand_dims(out.reshape(a.shape[:-1]), d)


@defop("mode", out=True)
def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and
    an index where it occurs (which one is not specified); gradient to that index
    (ModeBackward0)."""
    if out is not None:
        return out_tuple_call("mode", mode, (input, dim, keepdim), {}, out)
    return _selected(ModeBackward0, "mode", input, dim, keepdim, _mode_index)


@defop("msort", out=True)
def msort(input, *, out=None):
    """``sort(input, dim=0).values`` (SortBackward0)."""
    if out is not None:
        return out_call("msort", msort, (input,), {}, out)
    return sort(input, 0)[0]
