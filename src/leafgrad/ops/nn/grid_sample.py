"""``nn.functional.affine_grid`` and ``grid_sample`` (bilinear / nearest / bicubic,
zeros / border / reflection padding, ``align_corners``), 4-D and 5-D.

The sampling locations follow PyTorch's CPU kernels arithmetic, in the input's dtype:
the 2-D (vectorised) kernel ``native/cpu/GridSamplerKernel.cpp`` (unnormalise
``(g + 1) * s`` with ``s = (size - 1) / 2``, or ``(g + 1) * size / 2 - 0.5``; reflection
by ``|x - low|`` folded by ``2 span``; clipping where the borders count as out of
bounds for the gradient) and the 5-D one in ``native/GridSampler.h``
(``((g + 1) * size - 1) / 2``, ``fmod`` reflection). Each location is a tensor whose
value is that exact location and whose derivative in the grid is PyTorch's multiplier
(the unnormalising scale, 0 where clipped, +-1 where reflected). The interpolation is
then written with recorded ops in the kernels' order (bilinear weights ``nw = s e``,
``ne = s w``, ...; the bicubic convolution with A = -0.75, Keys 1981), the values
gathered from the input (zero outside for ``zeros``), so gradients reach the input
(scatter-add) and the grid through the weights, as PyTorch's backward; the result is
shown as ``GridSampler2DBackward0`` / ``GridSampler3DBackward0`` (nearest: a zero grid
gradient, as PyTorch).
"""

import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor
from .._dispatch import record
from .._named import _named
from .._registry import defop, node
from .._select import select

# PyTorch's names for the modes' codes (nn.functional.GRID_SAMPLE_*)
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

_DEFAULT_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                    "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                    "old behavior is desired. See the documentation of grid_sample for details.")


def _sizes(shape):
    return "[%s]" % ", ".join(str(int(s)) for s in shape)


# ------------------------------------------------------------------ affine_grid
def _base_axis(n, align_corners, dtype):
    from ..._tensor.creation import linspace, tensor
    if n <= 1:
        return tensor(0.0, dtype=dtype)
    r = linspace(-1, 1, n, dtype=dtype)
    return r if align_corners else r * (n - 1) / n


@defop("affine_grid", function=False, method=False, functional=True)
def affine_grid(theta, size, align_corners=None):
    """The sampling grid of affine maps ``theta`` for ``grid_sample``: theta (N, 2, 3) and
    size (N, C, H, W) -> (N, H, W, 2); theta (N, 3, 4) and size (N, C, D, H, W) ->
    (N, D, H, W, 3). Base grid: ``linspace(-1, 1, n)`` per axis (times (n - 1) / n
    without ``align_corners``), then ``base @ theta^T`` (PyTorch's
    ``affine_grid_generator``). Gradient: to theta.

    Raises:
        ValueError: theta not floating, of a shape that does not fit size, or a
            non-positive size; NotImplementedError: size of neither 4 nor 5 dims.
    """
    if align_corners is None:
        _errors.warn(_DEFAULT_WARNING, UserWarning)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError("Expected theta to have floating point type, but got %s. Fix: "
                         "theta.float()" % theta.dtype)
    size = [int(s) for s in size]
    nd = len(size) - 2
    if nd not in (2, 3):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  "affine transforms, respectively. Got size %s." % size)
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
        raise ValueError("Expected a batch of %dD affine matrices of shape Nx%dx%d for size "
                         "%s. Got %s." % (nd, nd, nd + 1, size, theta.shape))
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        _errors.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                     "grids when align_corners=True. This is not an intended use case of "
                     "affine_grid. See the documentation of affine_grid for details.",
                     UserWarning)
    elif min(size) <= 0:
        raise ValueError("Expected non-zero, positive output size. Got %s" % size)
    npd = theta._data.dtype
    n = size[0]
    base = np.empty([n] + spatial + [nd + 1], npd)
    for k, length in enumerate(reversed(spatial)):      # x along W first, then H, (D)
        ax = np.asarray(_base_axis(length, align_corners, theta.dtype)._data)
        base[..., k] = ax.reshape((-1,) + (1,) * k) if ax.ndim else ax
    base[..., nd] = 1
    flat = Tensor._make_plain(base.reshape(n, -1, nd + 1))
    grid = flat.bmm(theta.transpose(1, 2)).reshape([n] + spatial + [nd])
    return _named(grid, "AffineGridGeneratorBackward0")


# ------------------------------------------------------------------ locations
def _clip_grad(c, size):
    # clip to [0, size - 1]; NaN -> 0; the borders count as out of bounds for the gradient
    hi = c.dtype.type(size - 1)
    lo = np.where(np.isnan(c), 0, np.maximum(c, 0)).astype(c.dtype)
    res = np.minimum(lo, hi)
    return res, ((lo != 0) & (res != hi)).astype(c.dtype)


def _loc2d(g, size, padding, align, unnormalize_only=False):
    """2-D kernel: (location, d location / d grid) arrays in g's dtype."""
    t = g.dtype.type
    if align:
        scale = t(size - 1) / t(2)
        x = (g + t(1)) * scale
    else:
        scale = t(size) / t(2)
        x = (g + t(1)) * scale - t(0.5)
    mult = np.full_like(x, scale)
    if unnormalize_only or padding == "zeros":
        return x, mult
    if padding == "border":
        x, inb = _clip_grad(x, size)
        return x, mult * inb
    x, sign = _reflect2d(x, size, align)
    x, inb = _clip_grad(x, size)
    return x, inb * (sign * mult)


def _reflect2d(x, size, align):
    t = x.dtype.type
    if align:
        if size <= 1:
            return np.zeros_like(x), np.zeros_like(x)
        low, twice = t(0), t(size - 1) * t(2)
    else:
        low, twice = t(-0.5), t(size) * t(2)
    d = x - low
    neg = d < 0
    a = np.abs(d)
    extra = a - np.trunc(a / twice) * twice
    refl = twice - extra
    flip = extra > refl
    out = np.where(flip, refl, extra) + low
    return out.astype(x.dtype), np.where(flip ^ neg, t(-1), t(1)).astype(x.dtype)


def _tap2d(c, size, padding, align):
    """A bicubic tap's integer coordinate (``compute_coordinates``), as int64."""
    if padding == "border":
        c = _clip_grad(c, size)[0]
    elif padding == "reflection":
        c = _clip_grad(_reflect2d(c, size, align)[0], size)[0]
    return _to_int(c)


def _to_int(c):
    # PyTorch converts with truncation; out-of-range and NaN land outside every size
    bad = ~np.isfinite(c) | (np.abs(c) > 2 ** 30)
    return np.where(bad, -(2 ** 31), np.trunc(np.where(bad, 0, c))).astype(np.int64)


def _loc3d(g, size, padding, align):
    """5-D kernel (GridSampler.h): (location, multiplier) arrays in g's dtype."""
    t = g.dtype.type
    if align:
        x = ((g + t(1)) / t(2)) * t(size - 1)
        mult = np.full_like(x, t(size - 1) / t(2))
    else:
        x = ((g + t(1)) * t(size) - t(1)) / t(2)
        mult = np.full_like(x, t(size) / t(2))
    if padding == "border":
        x, inb = _clip_grad3d(x, size)
        mult = mult * inb
    elif padding == "reflection":
        lo2, hi2 = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
        x, sign = _reflect3d(x, lo2, hi2)
        x, inb = _clip_grad3d(x, size)
        mult = mult * sign * inb
    bad = ~np.isfinite(x) | (x > 2 ** 31 - 2) | (x < -(2 ** 31))
    return np.where(bad, t(-100), x).astype(g.dtype), mult


def _clip_grad3d(x, size):
    hi = x.dtype.type(size - 1)
    res = np.minimum(hi, np.maximum(x, 0))
    res = np.where(np.isnan(x), x, res).astype(x.dtype)
    return res, ((x > 0) & (x < hi)).astype(x.dtype)


def _reflect3d(x, twice_low, twice_high):
    t = x.dtype.type
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low = t(twice_low) / t(2)
    span = t(twice_high - twice_low) / t(2)
    d = x - low
    sign = np.where(d < 0, t(-1), t(1))
    a = np.abs(d)
    with np.errstate(invalid="ignore"):     # an inf location: nan, as PyTorch (silently)
        extra = np.fmod(a, span)
        flips = np.floor(a / span)
    even = np.fmod(np.nan_to_num(flips, nan=0.0, posinf=0.0, neginf=0.0), 2) == 0
    out = np.where(even, extra + low, span - extra + low).astype(x.dtype)
    return out, np.where(even, sign, -sign).astype(x.dtype)


def _located(gk, loc, mult):
    """The location as a tensor: ``loc``'s value, derivative ``mult`` in the grid."""
    if not gk._requires_grad:
        return Tensor._make_plain(loc)
    m = Tensor._make_plain(mult)
    return Tensor._make_plain(loc) + m * (gk - gk.detach())


# ------------------------------------------------------------------ sampling
class _Gather:
    """Values of input (N, C, *spatial) at integer locations (N, *out) (zero where masked)."""

    def __init__(self, input, spatial):
        self.n, self.c = input.shape[:2]
        self.spatial = spatial
        self.flat = input.reshape(self.n, self.c, -1)

    def __call__(self, coords, mask, weight=None):
        """The values selected where ``mask`` (0 elsewhere), times ``weight`` (N, L): an
        out-of-bounds tap sends the input no gradient, even at an inf / nan weight
        (PyTorch's masked scatter; a 0/1 mask multiplied in would make 0 * inf = nan),
        while its value is 0 * weight (nan at an inf weight, as PyTorch's masked gather)."""
        idx = np.zeros(coords[0].shape, np.int64)
        for c, size in zip(coords, self.spatial):
            idx = idx * size + np.clip(c, 0, size - 1)
        idx = idx.reshape(self.n, 1, -1)
        vals = self.flat.gather(2, Tensor._make_plain(
            np.broadcast_to(idx, (self.n, self.c, idx.shape[-1])).copy()))
        vals = select(mask.reshape(self.n, 1, -1), vals)
        return vals if weight is None else vals * weight.reshape(self.n, 1, -1)


def _in(c, size):
    return (c > -1) & (c < size)


def _bilinear2d(gather, x, y, xl, yl, padding, H, W):
    x_w, y_n = np.floor(xl), np.floor(yl)
    w = x - Tensor._make_plain(x_w)
    e = 1 - w
    n = y - Tensor._make_plain(y_n)
    s = 1 - n
    nw, ne, sw, se = s * e, s * w, n * e, n * w
    ix, iy = _to_int(x_w), _to_int(y_n)
    if padding == "zeros":
        wm, nm, em, sm = _in(ix, W), _in(iy, H), _in(ix + 1, W), _in(iy + 1, H)
    else:
        wm = nm = np.ones(ix.shape, bool)
        em, sm = ix + 1 < W, iy + 1 < H
    out = None
    for (cy, cx, my, mx), wt in (((iy, ix, nm, wm), nw), ((iy, ix + 1, nm, em), ne),
                                 ((iy + 1, ix, sm, wm), sw), ((iy + 1, ix + 1, sm, em), se)):
        term = gather((cy, cx), my & mx, wt)
        out = term if out is None else out + term
    return out


def _cubic_coeffs(t):
    A = -0.75
    x = t + 1
    c0 = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    c1 = ((A + 2) * t - (A + 3)) * t * t + 1
    x = 1 - t
    c2 = ((A + 2) * x - (A + 3)) * x * x + 1
    x = 2 - t
    c3 = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return c0, c1, c2, c3


def _bicubic2d(gather, x, y, xl, yl, padding, align, H, W):
    ix, iy = np.floor(xl), np.floor(yl)
    cx = _cubic_coeffs(x - Tensor._make_plain(ix))
    cy = _cubic_coeffs(y - Tensor._make_plain(iy))
    n = xl.shape[0]
    rows = []
    for j in range(4):
        ty = _tap2d(iy + (j - 1), H, padding, align)
        acc = None
        for i in range(4):
            tx = _tap2d(ix + (i - 1), W, padding, align)
            mask = _in(tx, W) & _in(ty, H)
            term = gather((ty, tx), mask, cx[i])
            acc = term if acc is None else acc + term
        rows.append(acc)
    out = None
    for j in range(4):
        term = cy[j].reshape(n, 1, -1) * rows[j]
        out = term if out is None else out + term
    return out


def _trilinear3d(gather, x, y, z, xl, yl, zl, padding, D, H, W):
    fx, fy, fz = np.floor(xl), np.floor(yl), np.floor(zl)
    ix, iy, iz = _to_int(fx), _to_int(fy), _to_int(fz)
    X0, Y0, Z0 = (Tensor._make_plain(v) for v in (fx, fy, fz))
    X1, Y1, Z1 = X0 + 1, Y0 + 1, Z0 + 1
    # PyTorch's 8 corner weights, in its order (t/b: z, n/s: y, w/e: x)
    weights = [(X1 - x) * (Y1 - y) * (Z1 - z), (x - X0) * (Y1 - y) * (Z1 - z),
               (X1 - x) * (y - Y0) * (Z1 - z), (x - X0) * (y - Y0) * (Z1 - z),
               (X1 - x) * (Y1 - y) * (z - Z0), (x - X0) * (Y1 - y) * (z - Z0),
               (X1 - x) * (y - Y0) * (z - Z0), (x - X0) * (y - Y0) * (z - Z0)]
    n = xl.shape[0]
    out = None
    k = 0
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                cz, cy, cx = iz + dz, iy + dy, ix + dx
                mask = _in(cx, W) & _in(cy, H) & _in(cz, D)
                term = gather((cz, cy, cx), mask, weights[k])
                out = term if out is None else out + term
                k += 1
    return out


def _zero_grid_grad(ctx, g):
    shape, = ctx.args
    from ..._tensor.creation import zeros
    return g, zeros(shape, dtype=g.dtype)


def _pass_grad(ctx, g):
    return g, None


_NODES = {(nd, nearest): node("GridSampler%dDBackward0" % nd,
                              _zero_grid_grad if nearest else _pass_grad, saves=False)
          for nd in (2, 3) for nearest in (False, True)}


def _check(input, grid, mode):
    for name, t in (("input", input), ("grid", grid)):
        if not isinstance(t, Tensor):
            raise TypeError("grid_sample(): argument '%s' must be Tensor, not %s. Fix: pass "
                            "a tensor" % (name, type(t).__name__))
    if input.dtype != grid.dtype:
        raise RuntimeError("grid_sampler(): expected input and grid to have same dtype, but "
                           "input has %s and grid has %s. Fix: convert one, e.g. "
                           "grid.to(input.dtype)" % (input.dtype, grid.dtype))
    if input.dim() != grid.dim() or input.dim() not in (4, 5):
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number "
                           "of dimensions, but got input with sizes %s and grid with sizes %s. "
                           "Fix: input (N, C, H, W) with grid (N, H_out, W_out, 2)"
                           % (_sizes(input.shape), _sizes(grid.shape)))
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           "but got input with sizes %s and grid with sizes %s. Fix: one grid "
                           "per input" % (_sizes(input.shape), _sizes(grid.shape)))
    nd = input.dim() - 2
    if grid.shape[-1] != nd:
        raise RuntimeError("grid_sampler(): expected grid to have size %d in last dimension, "
                           "but got grid with sizes %s. Fix: (x, y%s) per location"
                           % (nd, _sizes(grid.shape), ", z" if nd == 3 else ""))
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               "dimensions, but input has sizes %s with dimension %d being "
                               "empty. Fix: a non-empty input" % (_sizes(input.shape), i))
    if mode == "bicubic" and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input. "
                           "Fix: mode='bilinear' (trilinear) for 5D input")
    if input._data.dtype.kind != "f":
        raise RuntimeError("grid_sampler_%dd_cpu not implemented for '%s'. Fix: convert "
                           "first, e.g. x.float()" % (nd, _errors.type_name(input._data.dtype)))


def _locations(raw, sizes, nd, mode, padding_mode, align_corners):
    """(location, multiplier) arrays of each grid component (x first)."""
    if nd == 3:
        return [_loc3d(r, s, padding_mode, align_corners) for r, s in zip(raw, sizes)]
    return [_loc2d(r, s, padding_mode, align_corners, unnormalize_only=mode == "bicubic")
            for r, s in zip(raw, sizes)]


@defop("grid_sample", function=False, method=False, functional=True)
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input (N, C, H, W) at grid (N, H_out, W_out, 2) locations in [-1, 1]
    ((x, y): x along W) -> (N, C, H_out, W_out); 5-D: input (N, C, D, H, W), grid
    (N, D_out, H_out, W_out, 3) -> (N, C, D_out, H_out, W_out) (bilinear is trilinear
    there). Modes: 'bilinear', 'nearest' (round half to even), 'bicubic' (4-D);
    padding: 'zeros', 'border', 'reflection'. Gradients to input and grid as PyTorch's
    (see the module docstring for the formulas).

    Raises:
        ValueError: an unknown mode or padding_mode; RuntimeError: shapes or dtypes that
            do not fit (PyTorch's grid_sampler checks).
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         "'nearest' or 'bicubic', but got: '%s'" % mode)
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         "'border', or 'reflection', but got: '%s'" % padding_mode)
    if align_corners is None:
        _errors.warn(_DEFAULT_WARNING, UserWarning)
        align_corners = False
    _check(input, grid, mode)
    nd = input.dim() - 2
    spatial = tuple(input.shape[2:])
    out_shape = tuple(input.shape[:2]) + tuple(grid.shape[1:-1])
    g = grid._data
    gather = _Gather(input, spatial)
    if input.numel() == 0 or grid.numel() == 0:
        from ..._tensor.creation import zeros
        return zeros(out_shape, dtype=input.dtype)
    n = g.shape[0]
    comps = [grid.select(-1, k).reshape(n, -1) for k in range(nd)]
    raw = [c._data for c in comps]
    sizes = spatial[::-1]                       # x runs along the last dim
    W, H, D = (sizes + (1,))[:3]
    with np.errstate(all="ignore"):     # inf / nan locations: silently, as PyTorch
        locs = _locations(raw, sizes, nd, mode, padding_mode, align_corners)
    ls = [lc for lc, _ in locs]
    if mode == "nearest":
        ints = [_to_int(np.rint(lc)) for lc in ls]
        mask = np.ones(ints[0].shape, bool)
        if padding_mode == "zeros":
            for c, s in zip(ints, sizes):
                mask &= _in(c, s)
        out = gather(tuple(ints[::-1]), mask)
    else:
        ts = [_located(c, lc, m) for c, (lc, m) in zip(comps, locs)]
        if nd == 3:
            out = _trilinear3d(gather, *ts, *ls, padding_mode, D, H, W)
        elif mode == "bicubic":
            out = _bicubic2d(gather, ts[0], ts[1], ls[0], ls[1], padding_mode, align_corners,
                             H, W)
        else:
            out = _bilinear2d(gather, ts[0], ts[1], ls[0], ls[1], padding_mode, H, W)
    out = out.reshape(out_shape)
    if out._grad_fn is None and not grid._requires_grad:
        return out
    return record(_NODES[nd, mode == "nearest"], out._data, (out, grid),
                  args=(tuple(grid.shape),))
