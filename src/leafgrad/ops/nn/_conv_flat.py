"""Convolutions whose output has the input's size (stride 1, padding
``dilation * (kernel_size - 1)`` in total per dim: the common 3x3 / padding 1 layer),
by shifted flat views instead of ``ops.nn.conv``'s padded planes.

With the input channel-major and flat, (C, N * P) for P positions per plane, tap k of
the window at position p reads position ``p + shift_k`` (``shift_k = sum_i (k_i d_i -
lo_i) B_i``, B the plane's row-major strides) of the same plane, or nothing (padding)
where ``mask_k[p]`` is false: the window crosses the plane's edge. So the im2col
matrix is one contiguous, shifted slice per tap, ANDed with the tap's mask (a float's
bits with 0 or all ones: masked entries are exactly +0.0, whatever was read, as
PyTorch's zero padding), and every column is an output position: no gaps to drop,
smaller GEMMs, and copies in and out of the (N, C, *spatial) layout move runs of P
elements instead of rows of a few pixels.

* conv: (C_out, C * taps) @ cols -> (C_out, N P), transposed to (N, C_out, *out);
* grad_weight = cols @ G^T with G the gradient channel-major, (C_out, N P);
* grad_input: W^T @ G, each tap's row block masked and added back at its shift.

The same bilinear maps as ``ops.nn.conv``'s kernels, so its rule (``_conv_vjp``) and
its recorded double backward use these when the geometry has ``flat`` set.
Floating dtypes only (the masks are integer views); ``ops.nn.conv`` keeps the rest.
"""
import itertools
import math

import numpy as np

from ._scratch import _matmul, _np_matmul, _scratch

_INT = {2: np.int16, 4: np.int32, 8: np.int64}


class Flat:
    """The shifts and masks of one same-size geometry (see the module doc)."""

    __slots__ = ("p", "shifts", "full", "margin", "masks", "_int", "center")

    def __init__(self, insp, k, d, lo):
        nd = len(insp)
        b = [1] * nd
        for i in range(nd - 2, -1, -1):
            b[i] = b[i + 1] * insp[i + 1]
        self.p = math.prod(insp)
        pos = np.indices(insp).reshape(nd, -1)
        self.shifts, masks = [], []
        for tap in itertools.product(*map(range, k)):
            off = [t * dd - a for t, dd, a in zip(tap, d, lo)]
            self.shifts.append(sum(o * bb for o, bb in zip(off, b)))
            ok = np.ones(self.p, np.bool_)
            for i in range(nd):
                q = pos[i] + off[i]
                ok &= (q >= 0) & (q < insp[i])
            masks.append(ok)
        self.masks = np.array(masks)
        self.full = [bool(m.all()) for m in masks]
        self.margin = max(abs(s) for s in self.shifts)
        # a tap that reads every position in place: grad_input starts from its share
        self.center = next((t for t, (s, f) in enumerate(zip(self.shifts, self.full))
                            if s == 0 and f), None)
        self._int = {}

    def imasks(self, it, n):
        """The masks as 0 / -1 integers of type ``it``, repeated for ``n`` planes
        (taps, n P): a mask as long as the rows it is ANDed with runs ~3x faster
        than one broadcast per plane."""
        m = self._int.get((it, n))
        if m is None:
            if len(self._int) > 8:
                self._int.clear()
            m = self._int[it, n] = np.tile(np.negative(self.masks.view(np.int8), dtype=it),
                                           (1, n))
        return m


def usable(gm, dtype):
    return gm.flat is not None and dtype.kind == "f" and dtype.itemsize in _INT


def _flat_buffer(x, gm):
    """x (N, C, *in) channel-major and flat, (C N P), after a margin and before one (the
    margins' contents are masked away: never written)."""
    n, c = x.shape[:2]
    m, nl = gm.flat.margin, n * gm.flat.p
    buf = _scratch((c * nl + 2 * m,), x.dtype)
    p = gm.flat.p
    buf[m:m + c * nl].reshape(c, n, p)[...] = x.reshape(n, c, p).swapaxes(0, 1)
    return buf


def _blocks(gm, n):
    """(group, tap, start) of each (group, tap) block of rows of ``cols``: C / groups
    channels of N P columns each, one contiguous slice ``start`` of the flat buffer."""
    fl = gm.flat
    cg = gm.wshape[1]
    size = cg * n * fl.p
    return [(gi, t, fl.margin + gi * size + sft)
            for gi in range(gm.groups) for t, sft in enumerate(fl.shifts)], size


def cols(x, gm):
    """im2col of x (N, C, *in): (groups, taps * C / groups, N P), rows ordered (tap,
    channel) within a group (``weight_rows`` reorders the weight to match)."""
    fl = gm.flat
    n = x.shape[0]
    buf = _flat_buffer(x, gm)
    blocks, size = _blocks(gm, n)
    taps = len(fl.shifts)
    out = _scratch((gm.groups, taps, size), x.dtype)
    it = _INT[x.dtype.itemsize]
    src, dst, masks = buf.view(it), out.view(it), fl.imasks(it, gm.wshape[1] * n)
    for gi, t, a in blocks:
        if fl.full[t]:
            np.copyto(dst[gi, t], src[a:a + size])
        else:
            np.bitwise_and(src[a:a + size], masks[t], out=dst[gi, t])
    return out.reshape(gm.groups, taps * gm.wshape[1], n * fl.p)


def _weight_rows(w, gm):
    """The weight (C_out, C / groups, *k) as (groups, C_out / groups, taps * C / groups),
    columns ordered as the rows of ``cols``."""
    g, cg = gm.groups, w.shape[1]
    taps = len(gm.flat.shifts)
    w4 = w.reshape(g, w.shape[0] // g, cg, taps).transpose(0, 1, 3, 2)
    return np.ascontiguousarray(w4).reshape(g, w.shape[0] // g, taps * cg)


def _to_batch_major(full, shape):
    """(C, N P) -> a new (N, C, *spatial) array."""
    n, c = shape[:2]
    p = math.prod(shape[2:])
    out = _scratch(shape, full.dtype)
    out.reshape(n, c, p)[...] = full.reshape(c, n, p).swapaxes(0, 1)
    return out


def conv(x, w, gm, bias=None):
    """The convolution of x and w (plus bias): returns (output, im2col of x)."""
    cm = cols(x, gm)
    full = _matmul(_weight_rows(w, gm), cm)
    if bias is not None:
        full += bias.reshape(full.shape[:2] + (1,))
    return _to_batch_major(full, (x.shape[0], w.shape[0]) + gm.insp), cm


def spread(g, gm):
    """The gradient (N, C_out, *out) channel-major: (groups, C_out / groups, N P)."""
    n, o = g.shape[:2]
    full = _scratch((gm.groups, o // gm.groups, n * gm.flat.p), g.dtype)
    p = gm.flat.p
    full.reshape(o, n, p)[...] = g.reshape(n, o, p).swapaxes(0, 1)
    return full


def weight(x, gf, gm, cm=None):
    """grad_weight from the spread gradient ``gf`` (and the im2col of x, if made)."""
    if cm is None:
        cm = cols(x, gm)
    # (taps C, N P) @ (N P, C_out): BLAS is faster with the long dim inside
    gw = _np_matmul(cm, gf.transpose(0, 2, 1))           # (groups, taps * C / g, C_out / g)
    g, cog, cg = gm.groups, gm.wshape[0] // gm.groups, gm.wshape[1]
    taps = len(gm.flat.shifts)
    return np.ascontiguousarray(gw.reshape(g, taps, cg, cog).transpose(0, 3, 2, 1)).reshape(
        gm.wshape)


def input(gf, w, gm):
    """grad_input from the spread gradient ``gf``: W^T @ G, each (group, tap) block
    masked and added back at its shift."""
    fl = gm.flat
    n = gm.xshape[0]
    wr = _weight_rows(w, gm)
    dcols = _matmul(np.ascontiguousarray(wr.transpose(0, 2, 1)), gf)
    blocks, size = _blocks(gm, n)
    dcols = dcols.reshape(gm.groups, len(fl.shifts), size)
    m = fl.margin
    # margins start at 0 and only ever get masked zeros added: they stay 0
    buf = _scratch((gm.groups * size + 2 * m,), dcols.dtype, 0, keep=("flat-gi", fl))
    data = buf[m:m + gm.groups * size]
    if fl.center is None:
        data.fill(0)
    else:
        np.copyto(data.reshape(gm.groups, size), dcols[:, fl.center])
    it = _INT[dcols.dtype.itemsize]
    dint, masks = dcols.view(it), fl.imasks(it, gm.wshape[1] * n)
    for gi, t, a in blocks:
        if t == fl.center:
            continue
        if not fl.full[t]:
            np.bitwise_and(dint[gi, t], masks[t], out=dint[gi, t])
        v = buf[a:a + size]
        v += dcols[gi, t]
    return _to_batch_major(data, gm.xshape)
