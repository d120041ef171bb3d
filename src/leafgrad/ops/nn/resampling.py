"""Image resampling: ``interpolate`` (``upsample*``), ``unfold`` (im2col) and ``fold``
(col2im); declared below, so ``leafgrad.nn.functional`` and docs/ops.md get them from
the declarations (``unfold`` is not declared: the name is ``Tensor.unfold``'s, another
op; ``pixel_shuffle``: ``ops/nn/pixel_shuffle.py``).

All are compositions of differentiable ops, so every order of derivative exists:

* ``interpolate``: one spatial dim at a time, last dim first (the order of PyTorch's
  separable CPU kernel, so the float32 sums are the same), each a gather of the source
  rows (``index_select``) times per-row weights. Source positions as PyTorch's
  ``area_pixel_compute_source_index`` / ``nearest_idx`` (aten/src/ATen/native/UpSample.h),
  computed in the input's float type (float32 for 'nearest', as PyTorch). Bicubic: Keys'
  cubic convolution with A = -0.75, taps clamped to the border (PyTorch's kernel).
  'area' is adaptive average pooling. ``antialias=True`` (bilinear, bicubic): PyTorch's
  separable filter (triangle / cubic with a = -0.5) stretched by the scale when
  downsampling, normalised per output pixel (UpSampleKernel.cpp, _compute_weights_aa).
* ``unfold``/``fold``: a grouped convolution /
  transposed convolution with a one-hot weight (one output channel per kernel tap).
"""
import math

import numpy as np

from ..._tensor.tensor import Tensor
from .._named import _named
from . import conv as _conv
from .conv_transpose import conv_transpose2d
from .._registry import functional_ops
from ..._core import errors as _errors

_LINEAR = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_NAMES = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear",
          "bilinear": "Bilinear", "bicubic": "Bicubic", "trilinear": "Trilinear"}


def _per_dim(v, nd, x, what, form, name, cast):
    """``v`` (a number or one per spatial dim) as a list of ``nd`` values."""
    if not isinstance(v, (list, tuple)):
        return [cast(v)] * nd
    if len(v) != nd:
        raise ValueError(
            "Input and %s must have the same number of spatial dimensions, but got input with "
            "spatial dimensions of %s and %s %s. Please provide input tensor in (N, C, d1, d2, "
            "...,dK) format and %s in (%s1, %s2, ...,%sK) format."
            % (what, list(x.shape[2:]), form, v, name, what[0], what[0], what[0]))
    return [cast(e) for e in v]


def _output_size(x, size, scale_factor, nd):
    """(output sizes, scale factors or None), as PyTorch's ``interpolate`` computes them."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        return _per_dim(size, nd, x, "output", "output size of", "output size", int), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    scales = _per_dim(scale_factor, nd, x, "scale_factor", "scale_factor of shape",
                      "scale_factor", float)
    return [int(math.floor(float(i) * s)) for i, s in zip(x.shape[2:], scales)], scales


def _scale(n_in, n_out, scale, align_corners, dt):
    """PyTorch's ``area_pixel_compute_scale`` in the kernel's arithmetic type ``dt``."""
    if align_corners:
        return dt.type((n_in - 1) / (n_out - 1)) if n_out > 1 else dt.type(0)
    if scale is not None and scale > 0:
        return dt.type(1.0 / scale)
    return dt.type(n_in) / dt.type(n_out)


def _nearest_index(n_in, n_out, scale, exact):
    if n_out == n_in and not exact:
        return np.arange(n_out)
    if n_out == 2 * n_in and not exact:
        return np.arange(n_out) >> 1
    s = _scale(n_in, n_out, scale, False, np.dtype(np.float32))
    o = np.arange(n_out)
    src = ((o + 0.5) * np.float64(s)).astype(np.float32) if exact else \
        o.astype(np.float32) * s
    return np.minimum(np.floor(src).astype(np.int64), n_in - 1)


def _linear_taps(n_in, n_out, scale, align_corners, dt, cubic):
    """(indices, weights) per tap: lists of arrays of length n_out."""
    s = _scale(n_in, n_out, scale, align_corners, dt)
    o = np.arange(n_out).astype(dt)
    src = s * o if align_corners else s * (o + dt.type(0.5)) - dt.type(0.5)
    if not cubic and not align_corners:
        src = np.maximum(src, dt.type(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam = np.clip(src - i0.astype(dt), 0, 1).astype(dt)
    if not cubic:
        i1 = np.minimum(i0 + 1, n_in - 1)
        return [i0, i1], [dt.type(1) - lam, lam]
    a = dt.type(-0.75)

    def cc1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def cc2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    one = dt.type(1)
    weights = [cc2(lam + one), cc1(lam), cc1(one - lam), cc2(one - lam + one)]
    idx = [np.clip(i0 - 1 + j, 0, n_in - 1) for j in range(4)]
    return idx, [w.astype(dt) for w in weights]


def _aa_filter(x, cubic):
    """PyTorch's antialias filters (UpSampleKernel.cpp): the triangle, or Keys' cubic with
    a = -0.5."""
    x = np.abs(x)
    if not cubic:
        return np.where(x < 1, 1 - x, 0).astype(x.dtype)
    a = x.dtype.type(-0.5)
    c1 = ((a + 2) * x - (a + 3)) * x * x + 1
    c2 = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, c1, np.where(x < 2, c2, 0)).astype(x.dtype)


def _aa_taps(n_in, n_out, scale, align_corners, dt, cubic):
    """(indices, weights) per tap for ``antialias=True`` (PyTorch's _compute_weights_aa):
    a filter stretched by the scale when downsampling, normalised per output pixel."""
    s = _scale(n_in, n_out, scale, align_corners, dt)
    support = dt.type((4 if cubic else 2) * 0.5) * (s if s >= 1 else dt.type(1))
    invscale = dt.type(1) / s if s >= 1 else dt.type(1)
    rows = []
    for i in range(n_out):
        center = s * dt.type(i + 0.5)
        xmin = max(int(center - support + dt.type(0.5)), 0)
        xsize = min(int(center + support + dt.type(0.5)), n_in) - xmin
        j = np.arange(xsize)
        w = _aa_filter(((j + xmin).astype(dt) - center + dt.type(0.5)) * invscale, cubic)
        total = w.sum(dtype=dt)
        if total != 0:
            w = (w / total).astype(dt)
        rows.append((xmin, w))
    k = max(len(w) for _, w in rows)
    idx = [np.array([min(x0 + t, n_in - 1) for x0, _ in rows]) for t in range(k)]
    wts = [np.array([w[t] if t < len(w) else 0 for _, w in rows], dt) for t in range(k)]
    return idx, wts


def _along(x, dim, idx, weights):
    """sum_j x.index_select(dim, idx[j]) * weights[j] (weights broadcast along ``dim``)."""
    shape = [1] * x.dim()
    shape[dim] = -1
    out = None
    for i, w in zip(idx, weights):
        term = x.index_select(dim, Tensor._make_plain(i)) * Tensor._make_plain(w.reshape(shape))
        out = term if out is None else out + term
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample (N, C, *spatial) to ``size`` or ``floor(in * scale_factor)`` per dim.

    Modes: 'nearest' (source floor(o * in / out), PyTorch's legacy rule), 'nearest-exact'
    (floor((o + 0.5) * in / out)), 'linear' (3-D input), 'bilinear'/'bicubic' (4-D),
    'trilinear' (5-D), 'area' (adaptive average pooling). ``align_corners`` (interpolating
    modes only): corner pixels' centres map to each other; default False. With
    ``scale_factor`` the kernel uses 1 / scale_factor as the step unless
    ``recompute_scale_factor=True`` (then in / out, as PyTorch).

    Raises:
        ValueError: both or neither of size/scale_factor, a size of the wrong length,
            align_corners with a non-interpolating mode, an unknown mode.
        NotImplementedError: a mode that needs another input rank (PyTorch's class).
        ValueError: antialias=True other than for 4-D bilinear / bicubic (as PyTorch).
    """
    if not isinstance(input, Tensor):
        raise TypeError("interpolate(): argument 'input' must be Tensor, not %s"
                        % type(input).__name__)
    modes = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    if mode not in modes:
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: "
            "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got %s)"
            % (input.dim(), mode))
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    nd = input.dim() - 2
    if nd not in (1, 2, 3):
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: "
            "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got %s). "
            "Fix: give the input as (N, C, *spatial)." % (input.dim(), mode))
    if mode in _LINEAR and _LINEAR[mode] != nd:
        raise NotImplementedError("Got %dD input, but %s mode needs %dD input"
                                  % (input.dim(), mode, _LINEAR[mode] + 2))
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input (leafgrad has no 'lanczos' "
                         "mode yet)")
    out_size, scales = _output_size(input, size, scale_factor, nd)
    if recompute_scale_factor:
        scales = None
    if mode == "area":
        from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
        if nd == 3:
            from .pooling_3d import adaptive_avg_pool3d
            return adaptive_avg_pool3d(input, out_size)
        return (adaptive_avg_pool1d if nd == 1 else adaptive_avg_pool2d)(input, out_size)
    if input._data.dtype.kind != "f":
        raise NotImplementedError("\"upsample_%s\" not implemented for '%s'. Fix: call .float() "
                                  "first." % (mode, input.dtype))
    dt = input._data.dtype
    x = input
    for d in reversed(range(nd)):
        n_in, n_out = input.shape[2 + d], out_size[d]
        sc = None if scales is None else scales[d]
        if mode in ("nearest", "nearest-exact"):
            idx = _nearest_index(n_in, n_out, sc, mode == "nearest-exact")
            x = x.index_select(2 + d, Tensor._make_plain(idx))
        else:
            taps = _aa_taps if antialias else _linear_taps
            idx, w = taps(n_in, n_out, sc, align_corners, dt, mode == "bicubic")
            x = _along(x, 2 + d, idx, w)
    return _named(x, ("Upsample%s%dDAaBackward0" if antialias else "Upsample%s%dDBackward0")
                  % (_NAMES[mode], nd))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate`` (PyTorch warns the same)."""
    _errors.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate "
                 "instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate(mode='nearest')`` (deprecated name)."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate(mode='bilinear', align_corners=True)`` (deprecated name)."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ----------------------------------------------------------------- unfold / fold
def _pair(v, name):
    return _conv._ints(v, 2, name, "unfold", "the spatial dimensions")


def _one_hot_weight(c, k, dtype):
    """(c * prod(k), 1, *k): output channel c * K + t picks tap t of channel c."""
    kk = math.prod(k)
    w = np.zeros((c * kk, kk), dtype)
    w[np.arange(c * kk), np.tile(np.arange(kk), c)] = 1
    return Tensor._make_plain(w.reshape((c * kk, 1) + tuple(k)))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) or (C, H, W) -> (N, C * kH * kW, L), column l the l-th window
    (row-major over the output positions), rows ordered (channel, kernel row, kernel col).

    L = prod over dims of floor((in + 2 padding - dilation (k - 1) - 1) / stride + 1).

    Raises:
        RuntimeError: an input over 4-D, windows that do not fit.
        IndexError: an input under 3-D (PyTorch's class).
    """
    if not isinstance(input, Tensor):
        raise TypeError("unfold(): argument 'input' must be Tensor, not %s"
                        % type(input).__name__)
    if input.dim() < 3:        # PyTorch's class: its kernel reads dim 2 first
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got "
                         "2). Fix: unfold takes (N, C, H, W) or (C, H, W)."
                         % (-max(input.dim(), 1), max(input.dim(), 1) - 1))
    if input.dim() > 4:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            "dimensions for input, but got: %s. Fix: give it (N, C, H, W) or (C, H, W)."
            % list(input.shape))
    x = input.unsqueeze(0) if input.dim() == 3 else input
    k = _pair(kernel_size, "kernel_size")
    n, c = x.shape[:2]
    w = _one_hot_weight(c, k, x._data.dtype)
    cols = _conv.conv2d(x, w, None, _pair(stride, "stride"), _pair(padding, "padding"),
                        _pair(dilation, "dilation"), c)
    cols = cols.reshape(n, cols.shape[1], -1)
    return _named(cols.squeeze(0) if input.dim() == 3 else cols, "Im2ColBackward0")


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of ``unfold``: (N, C * kH * kW, L) or (C * kH * kW, L) ->
    (N, C, *output_size), overlapping window entries summed.

    Raises:
        RuntimeError: a dim-1 size not divisible by kH * kW, an L that is not the number
            of windows of ``output_size``, an input that is not 2-D/3-D.
    """
    if not isinstance(input, Tensor):
        raise TypeError("fold(): argument 'input' must be Tensor, not %s" % type(input).__name__)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            "non-zero dimensions for input, but got: %s. Fix: give it (N, C * kH * kW, L)."
            % list(input.shape))
    size = _pair(output_size, "output_size")
    k, d = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    p, s = _pair(padding, "padding"), _pair(stride, "stride")
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck, length = x.shape
    kk = k[0] * k[1]
    if ck % kk:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            "kernel_size, but got input.size(1)=%d and kernel_size=%s. Fix: dim 1 must be "
            "C * kH * kW." % (ck, k))
    blocks = [(o + 2 * pp - dd * (kx - 1) - 1) // st + 1
              for o, pp, dd, kx, st in zip(size, p, d, k, s)]
    if min(blocks) < 1 or blocks[0] * blocks[1] != length:
        raise RuntimeError(
            "Given output_size=%s, kernel_size=%s, dilation=%s, padding=%s, stride=%s, expected "
            "size of input's dimension 2 to match the calculated number of sliding blocks %d * "
            "%d = %d, but got input.size(2)=%d. Fix: L must be the number of windows of "
            "output_size." % (size, k, d, p, s, blocks[0], blocks[1], blocks[0] * blocks[1],
                              length))
    c = ck // kk
    w = _one_hot_weight(c, k, x._data.dtype)
    low = [(b - 1) * st - 2 * pp + dd * (kx - 1) + 1
           for b, st, pp, dd, kx in zip(blocks, s, p, d, k)]
    out = conv_transpose2d(x.reshape(n, ck, *blocks), w, None, s, p,
                           tuple(o - lo for o, lo in zip(size, low)), c, d)
    return _named(out.squeeze(0) if unbatched else out, "Col2ImBackward0")


functional_ops(globals(), ("interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "fold"))
