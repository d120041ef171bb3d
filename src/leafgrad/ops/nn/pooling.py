"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d, on ``ops.nn.conv``'s
window geometry and the linear ops of ``ops.nn._pooling_linear`` (see their docstrings for
the formulas).
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.meta import MetaArray
from ..._tensor.tensor import Tensor
from .._registry import functional_ops
from ..reduce.reduction import mean
from ._pooling_linear import (_ADAPTIVE_AVG, _AVG_POOL, _MAX_POOL, Tiles, _adaptive_k, _avg_k,
                              _pool_out, _pool_rows, tile_taps)
from ._scratch import _scratch
from .conv import _Geom, _check_tensor, _copy, _geometry, _ints


# ----------------------------------------------------------------- pooling
def _pool_geometry(fn, x, kernel_size, stride, padding, dilation, ceil_mode):
    nd = 2
    what = "the pooling dimensions"
    k = _ints(kernel_size, nd, "kernel_size", fn, what)
    s = k if _default_stride(stride) else _ints(stride, nd, "stride", fn, what)
    p = _ints(padding, nd, "padding", fn, what)
    d = _ints(dilation, nd, "dilation", fn, what)
    return _geometry(("pool", x.shape[-nd:], k, s, p, d, bool(ceil_mode)),
                     lambda: _make_pool_geom(x.shape, k, s, p, d, ceil_mode))


def _make_pool_geom(xshape, k, s, p, d, ceil_mode, nd=2):
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got kernel_size=%s"
                           % (k,))
    if any(v <= 0 for v in s):
        raise RuntimeError("stride should not be zero (got stride=%s)" % (s,))
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero, but got dilation=%s" % (d,))
    if any(2 * pp > kk for pp, kk in zip(p, k)) or any(v < 0 for v in p):
        raise RuntimeError(
            "pad should be at most half of effective kernel size, but got pad=%s, kernel_size=%s "
            "and dilation=%s. Fix: use padding <= kernel_size // 2." % (p, k, d))
    insp = xshape[-nd:]          # nd=3: the 3-d poolings (ops/nn/pooling_3d.py)
    out = []
    for i, kk, st, pp, dd in zip(insp, k, s, p, d):
        o = (i + 2 * pp - dd * (kk - 1) - 1 + (st - 1 if ceil_mode else 0)) // st + 1
        if ceil_mode and (o - 1) * st >= i + pp:
            o -= 1
        out.append(o)
    if any(o <= 0 for o in out):
        raise _errors.pool_too_small(xshape[-nd - 1], insp, out,
                                     [dd * (kk - 1) + 1 for dd, kk in zip(d, k)], p)
    gm = _Geom(insp, k, s, d, p, out)
    if s == k and not any(p) and all(v == 1 for v in d) and all(
            o * kk <= i for o, kk, i in zip(out, k, insp)):
        gm.tiled = Tiles(insp, k, out)          # the windows tile the input
    return gm


def _max_pool_values(x, gm, fill):
    """Max pooling of the array x (*lead, *in): the values (*lead, *out), the argmax
    taps in the layout the pooling op's kernels take, and a function giving them as
    (*lead, *out)."""
    if gm.tiled is not None:
        lead, taps = tile_taps(x, gm)
        best, idx = _argmax_taps(taps)
        return best.reshape(lead + gm.out), idx, lambda: idx.reshape(lead + gm.out)
    lead, taps = _pool_rows(x, gm, fill)
    best, idx = _argmax_taps(taps)
    return _pool_out(best, gm, lead), idx, lambda: _pool_out(idx, gm, lead)


_LAYOUTS = {2: "3D (C, H, W) or 4D (N, C, H, W)", 3: "4D (C, D, H, W) or 5D (N, C, D, H, W)"}


def _pool_input(fn, input, nd=2):
    """``input``'s array after the checks of an ``nd``-d pooling's input (unbatched or not)."""
    _check_tensor(fn, "input", input, 1)
    x = input._data
    if x.ndim not in (nd + 1, nd + 2) or 0 in x.shape[-nd - 1:]:
        raise RuntimeError(
            "%s: expected a non-empty %s input, but got one of size %s. Fix: add the batch or "
            "channel dim with x.unsqueeze(0)." % (fn, _LAYOUTS[nd], list(x.shape)))
    return x


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The largest element of each window, over (N, C, H, W) or (C, H, W).

    ``stride`` defaults to ``kernel_size``; padding (at most half the kernel) counts as
    -inf. Output size as ``conv2d``'s (``ceil`` with ``ceil_mode``). The gradient goes to
    the selected element (the first of ties, in window order; a NaN is selected, as
    PyTorch). ``return_indices``: also the selected elements' flat indices into each
    (H, W) plane (int64).

    Raises:
        RuntimeError: when the window (dilated, with padding) does not fit the input, for
            non-positive kernel_size/stride/dilation, padding over half the kernel, or an
            input that is not a non-empty 3D/4D tensor.
    """
    x = _pool_input("max_pool2d", input)
    gm = _pool_geometry("max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode)
    if x.__class__ is MetaArray:        # the 'meta' device: shapes only (_tensor/meta.py)
        out = _MAX_POOL.forward(input, MetaArray(x.shape[:-2] + tuple(gm.out), x.dtype),
                                (gm, None))
        return (out, Tensor._make_plain(MetaArray(out.shape, np.int64))) if return_indices \
            else out
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min if x.dtype.kind in "iu" \
        else 0
    best, idx, sel = _max_pool_values(x, gm, fill)
    out = _MAX_POOL.forward(input, best, (gm, idx))
    if not return_indices:
        return out
    return out, Tensor._make_plain(_flat_indices(sel(), gm))


def _argmax_taps(taps):
    """Elementwise max over the taps and the first tap that has it (a NaN wins, the last
    NaN tap as in PyTorch's kernel)."""
    best = _copy(taps[0])
    idx = _scratch(best.shape, np.uint8 if len(taps) < 256 else np.int64, 0)
    for t, v in enumerate(taps[1:], 1):
        v = _copy(v)          # contiguous: comparisons on strided views are slow
        # t grows, so the first tap reaching the running max is the largest t it saw
        if t == 1:
            np.greater(v, best, out=idx, casting="unsafe")
        else:
            np.maximum(idx, (v > best) * idx.dtype.type(t), out=idx)
        np.maximum(best, v, out=best)
    if best.dtype.kind == "f" and np.isnan(best).any():
        for t, v in enumerate(taps):
            nan = np.isnan(v)
            idx[nan] = t
    return best, idx


def _flat_indices(idx, gm):
    """Flat indices into the (H, W) plane of the elements at window taps ``idx``."""
    (s0, s1), (d0, d1), (p0, p1) = gm.s, gm.d, gm.lo
    rows = np.arange(gm.out[0]) * s0 - p0
    cols = np.arange(gm.out[1]) * s1 - p1
    kh, kw = np.divmod(idx.astype(np.int64), gm.k[1])
    return (rows[:, None] + kh * d0) * gm.insp[1] + cols + kw * d1


def _one(v):
    """A 1-d pooling argument (an int or a 1-sequence) as an int."""
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise RuntimeError("expected a single int or a list of 1 int for a 1-d pooling "
                               "argument, but got %s" % (list(v),))
        return v[0]
    return v


def _one_stride(stride):
    return None if _default_stride(stride) else (1, _one(stride))


def _default_stride(stride):
    return stride is None or (isinstance(stride, (tuple, list)) and not len(stride))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d`` over (N, C, L) or (C, L), through a height-1 image as PyTorch."""
    _check_tensor("max_pool1d", "input", input, 1)
    res = max_pool2d(input.unsqueeze(-2), (1, _one(kernel_size)), _one_stride(stride),
                     (0, _one(padding)), (1, _one(dilation)), ceil_mode, return_indices)
    if return_indices:
        return res[0].squeeze(-2), res[1].squeeze(-2)
    return res.squeeze(-2)


def _divisors(gm, count_include_pad, dtype):
    """avg_pool's divisor per output position, as PyTorch's kernel: the window size,
    clipped to the padded input (count_include_pad) or to the input itself."""
    per_dim = []
    for i, o, kk, st, pp in zip(gm.insp, gm.out, gm.k, gm.s, gm.lo):
        start = np.arange(o) * st - pp
        end = np.minimum(start + kk, i + pp)
        per_dim.append(end - start if count_include_pad else
                       np.minimum(end, i) - np.maximum(start, 0))
    div = np.multiply.outer(*per_dim)
    if (div == div.flat[0]).all():
        return float(div.flat[0])
    return div.astype(dtype)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window, over (N, C, H, W) or (C, H, W).

    ``stride`` defaults to ``kernel_size``; zero padding counts in the mean unless
    ``count_include_pad=False``; ``divisor_override`` replaces the window size. Output
    size as ``max_pool2d``'s. Raises RuntimeError in the same cases as ``max_pool2d``
    and for ``divisor_override=0``.
    """
    x = _pool_input("avg_pool2d", input)
    gm = _pool_geometry("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None:
        if not divisor_override:
            raise RuntimeError("divisor must be not zero")
        div = float(divisor_override)
    else:
        div = _divisors(gm, count_include_pad, x.dtype)
    if x.__class__ is MetaArray:
        return _AVG_POOL.forward(input, MetaArray(x.shape[:-2] + tuple(gm.out), x.dtype),
                                 (gm, div))
    return _AVG_POOL.forward(input, _avg_k(x, (gm, div)), (gm, div))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """``avg_pool2d`` over (N, C, L) or (C, L), through a height-1 image as PyTorch."""
    _check_tensor("avg_pool1d", "input", input, 1)
    return avg_pool2d(input.unsqueeze(-2), (1, _one(kernel_size)), _one_stride(stride),
                      (0, _one(padding)), ceil_mode, count_include_pad).squeeze(-2)


def _adaptive_windows(n_in, n_out):
    """(n_in, windows): output o averages PyTorch's adaptive window
    [floor(o * n_in / n_out), ceil((o + 1) * n_in / n_out))."""
    return n_in, tuple(((o * n_in) // n_out, -((-(o + 1) * n_in) // n_out))
                       for o in range(n_out))


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size (H_out, W_out), over (N, C, H, W) or (C, H, W).

    ``output_size``: an int or a pair (None keeps that input size). Output position o
    averages input [floor(o * H / H_out), ceil((o + 1) * H / H_out)) (PyTorch's windows);
    output size 1 is the mean over (H, W), as PyTorch computes it.

    Raises:
        RuntimeError: for a non-3D/4D input or an output_size of the wrong length.
    """
    _check_tensor("adaptive_avg_pool2d", "input", input, 1)
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s. Fix: "
                           "give it (N, C, H, W) or (C, H, W)." % list(x.shape))
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    size = tuple(x.shape[-2 + i] if v is None else int(v) for i, v in enumerate(size))
    if size == (1, 1):
        return mean(input, (-1, -2), keepdim=True)
    if x.dtype.kind not in "fc":
        raise NotImplementedError("\"adaptive_avg_pool2d\" not implemented for '%s'. Fix: call "
                                  ".float() first." % _errors.type_name(input.dtype))
    p = (_adaptive_windows(x.shape[-2], size[0]), _adaptive_windows(x.shape[-1], size[1]))
    return _ADAPTIVE_AVG.forward(input, _adaptive_k(x, p), p)


def adaptive_avg_pool1d(input, output_size):
    """``adaptive_avg_pool2d`` over (N, C, L) or (C, L), through a height-1 image."""
    _check_tensor("adaptive_avg_pool1d", "input", input, 1)
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


functional_ops(globals(), ("max_pool1d", "max_pool2d", "avg_pool1d", "adaptive_avg_pool1d"),
               function=True)
functional_ops(globals(), ("avg_pool2d", "adaptive_avg_pool2d"))
