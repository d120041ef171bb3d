"""Fractional max pooling (Graham 2014, "Fractional Max-Pooling"):
``fractional_max_pool2d/3d`` and their ``*_with_indices`` forms.

Window starts per dim from one uniform sample u per (batch, channel) and dim, as
PyTorch's ``generate_intervals`` (FractionalMaxPool2d.cpp), in the input's dtype:
``alpha = (in - k) / (out - 1)``, ``start_i = int((i + u) alpha) - int(u alpha)`` and
the last window at ``in - k``; the samples come from ``torch.rand(N, C, nd)`` (the
default generator, as PyTorch) unless ``_random_samples`` is given (2-D: sample 0 for
W, 1 for H; 3-D: 0 for T, 1 for H, 2 for W). The max of each window (first index on
ties, NaN wins) is gathered from the input, so gradients (and second order) are
gather's: to the selected element.
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor
from .._named import _named
from .._registry import defop


def _intervals(u, n_in, n_out, k):
    """(B, C) samples -> (B, C, n_out) int64 window starts."""
    t = u.dtype.type
    seq = np.empty(u.shape + (n_out,), np.int64)
    if n_out > 1:
        alpha = t(n_in - k) / t(n_out - 1)
        i = np.arange(n_out - 1, dtype=u.dtype)
        seq[..., :-1] = (np.trunc((i + u[..., None]) * alpha).astype(np.int64)
                         - np.trunc(u * alpha).astype(np.int64)[..., None])
    if n_out > 0:
        seq[..., -1] = n_in - k
    return seq


def _ints(v, nd):
    return tuple(int(a) for a in v) if isinstance(v, (tuple, list)) else (int(v),) * nd


def _fractional(nd, input, kernel_size, output_size, output_ratio, _random_samples):
    fn = "fractional_max_pool%dd" % nd
    if output_size is None and output_ratio is None:
        raise ValueError("%s requires specifying either an output_size or an output_ratio"
                         % fn)
    x = input._data
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        ratio = (tuple(output_ratio) if isinstance(output_ratio, (tuple, list))
                 else (output_ratio,) * nd)
        output_size = [int(x.shape[-nd + d] * ratio[d]) for d in range(nd)]
    if _random_samples is None:
        input.size(-nd - 1)         # too few dims: IndexError here, as PyTorch's draw
    if x.ndim not in (nd + 1, nd + 2) or 0 in x.shape[-nd - 1:]:
        raise RuntimeError("%s(): Expected %dD or %dD tensor, but got: %s. Fix: (N, C, *spatial) "
                           "or (C, *spatial)" % (fn, nd + 1, nd + 2, list(x.shape)))
    if x.dtype.kind != "f":
        raise NotImplementedError("\"%s_out_frame\" not implemented for '%s'. Fix: convert "
                                  "first, e.g. x.float()" % (fn, _errors.type_name(x.dtype)))
    k = _ints(kernel_size, nd)
    out = _ints(output_size, nd)
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    n, c = xb.shape[:2]
    spatial = xb.shape[2:]
    names = ("time", "height", "width")[3 - nd:]
    for d in range(nd):
        # PyTorch's checks: out + k - 1 <= in for 2-D, < in for 3-D
        if out[d] + k[d] - 1 > spatial[d] - (nd == 3):
            raise RuntimeError("%s(): pool %s %d too large relative to input %s %d. Fix: a "
                               "smaller kernel_size or output_size"
                               % (fn if nd == 2 else fn + "_out", names[d], k[d], names[d],
                                  spatial[d]))
    if _random_samples is None:
        from ..._random.sampling import rand
        _random_samples = rand(n, c, nd, dtype=input.dtype)
    u = np.asarray(_random_samples._data)
    if u.dtype != x.dtype or u.ndim != 3 or u.shape[0] < n or u.shape[1] != c \
            or u.shape[2] != nd:
        raise RuntimeError("%s(): expected _random_samples of shape (N, C, %d) in the input's "
                           "dtype, got %s %s. Fix: omit it (drawn from the default generator)"
                           % (fn, nd, list(u.shape), _errors.type_name(u.dtype)))
    # sample per dim: 2-D (W, H), 3-D (T, H, W), as PyTorch's kernels read them
    which = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_intervals(u[:n, :, which[d]], spatial[d], out[d], k[d]) for d in range(nd)]
    # every window's flat input index: (N, C, *out, *k) -> (N, C, *out, prod(k)); the
    # window offsets in row-major order (PyTorch's loops: the first max wins)
    idx = np.zeros((n, c) + out + k, np.int64)
    stride = 1
    for d in reversed(range(nd)):
        s = starts[d].reshape((n, c) + tuple(out[d] if e == d else 1 for e in range(nd))
                              + (1,) * nd)
        j = np.arange(k[d]).reshape((1, 1) + (1,) * nd + tuple(k[d] if e == d else 1
                                                                for e in range(nd)))
        idx += (s + j) * stride
        stride *= spatial[d]
    idx = idx.reshape((n, c) + out + (-1,))
    flat = xb.reshape(n, c, -1)
    vals = np.take_along_axis(flat, idx.reshape(n, c, -1), 2).reshape(idx.shape)
    # PyTorch's test is ``val > maxVal || isnan(val)``: the first of tied maxima, the
    # last nan
    nan = np.isnan(vals)
    last_nan = vals.shape[-1] - 1 - nan[..., ::-1].argmax(-1)
    pick = np.where(nan.any(-1), last_nan, vals.argmax(-1))
    best = np.take_along_axis(idx, pick[..., None], -1)[..., 0]     # (N, C, *out)
    src = input if batched else input.unsqueeze(0)
    res = src.reshape(n, c, -1).gather(2, Tensor._make_plain(best.reshape(n, c, -1)))
    res = res.reshape((n, c) + out)
    if not batched:
        res, best = res.squeeze(0), best[0]
    return _named(res, "FractionalMaxPool%dDBackward0" % nd), Tensor._make_plain(best)


_DOC = """Fractional max pooling over the last {nd} dims of (N, C, *in) or (C, *in): windows
    of ``kernel_size`` at pseudo-random starts (see the module docstring) giving
    ``output_size`` (or ``int(in * output_ratio)``). Returns the output{ret}; dtype as
    input, indices int64 flat into each input plane.

    Raises:
        ValueError: neither output_size nor output_ratio; RuntimeError: a kernel too large
            for the input and output sizes, a bad rank, or bad ``_random_samples``.
    """


@defop("fractional_max_pool2d_with_indices", function=False, method=False, functional=True)
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


@defop("fractional_max_pool3d_with_indices", function=False, method=False, functional=True)
def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


@defop("fractional_max_pool2d", function=False, method=False, functional=True)
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    res = _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return res if return_indices else res[0]


@defop("fractional_max_pool3d", function=False, method=False, functional=True)
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    res = _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return res if return_indices else res[0]


for _f, _r in ((fractional_max_pool2d_with_indices, " and indices"),
               (fractional_max_pool3d_with_indices, " and indices"),
               (fractional_max_pool2d, " (with ``return_indices``: and indices)"),
               (fractional_max_pool3d, " (with ``return_indices``: and indices)")):
    _f.__doc__ = _DOC.format(nd=_f.__name__[19], ret=_r)
del _f, _r
