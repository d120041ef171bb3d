"""Convolution and pooling: ``conv1d``, ``conv2d``, ``max_pool1d``/``max_pool2d``,
``avg_pool1d``/``avg_pool2d``, ``adaptive_avg_pool1d``/``adaptive_avg_pool2d`` (the
1-d poolings go through the 2-d ones, as PyTorch's do). The pooling functions are in
``ops.nn.pooling``; their geometry is here, their linear ops in ``ops.nn._pooling_linear``.

Shapes: input (N, C_in, *spatial) or unbatched (C_in, *spatial); conv weight
(C_out, C_in / groups, *kernel_size), bias (C_out,). Output size per spatial dim,
from PyTorch's ``Conv2d`` and ``MaxPool2d`` docs:

    out = floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)

(``ceil`` for pooling with ``ceil_mode=True``, dropping a last window that would
start in the right padding). Float32 stays float32 throughout.

How it is computed (NumPy). The input is copied once into a flat buffer that
holds its planes (one per sample and channel; channel-major for conv) one after
the other, each row and plane preceded by a gap of zeros as wide as the padding:
a gap serves as the right padding of the row before it too (``_Geom``). With
element strides B, tap k of the window at output position o of plane r is at
``r * plane + sum_i (o_i s_i + k_i d_i) B_i`` (plus a constant); with the last
dim's period a multiple of the last stride s, that is ``s * l + off_k`` with
``l = r * plane / s + sum_i o_i M_i``. So one tap of every window of every
plane is one strided 1-D view of the buffer, and

* conv: one copy of the view (C_in, taps, l) is the im2col matrix (C_in * taps
  long rows); one GEMM per group with the weight (C_out, C_in * taps) gives the
  result at every l, and the l that are no output position (gaps) are dropped
  when it is copied out to (N, C_out, *out);
* grad_weight = cols @ G^T (the forward's cols are kept); grad_input = W^T @ G
  added back tap by tap, one strided add each (col2im);
* pooling: a few NumPy ops per tap on the 1-D views.

Long contiguous runs (whole buffers, not rows of a few pixels) keep NumPy's
per-row overhead out of small images; large temporaries come from
``_scratch``, which reuses them across calls instead of page-faulting fresh
memory every training step.

Derivatives. A convolution is bilinear in (input, weight). Its two backward
maps, grad_input(grad, weight) and grad_weight(input, grad), are recorded ops
too (``ConvolutionBackwardBackward0``), and the vector-Jacobian products of all
three are one rule, ``_conv_vjp``: evaluated with the NumPy kernels when the
backward pass is not recorded and with the recorded ops when it is
(``create_graph=True``), so derivatives of every order exist. A pooling op is
linear in its input: its rule is its adjoint op (max pooling: the scatter of the
gradient to the selected elements), recorded, whose rule is the op again.

Errors (RuntimeError, as PyTorch): wrong channel count, an input smaller than
the kernel or window, bad stride/padding/dilation/groups, mismatched dtypes.
"""

import itertools
import math

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import _IGNORE, _reset, _set
from ..._tensor.meta import MetaArray
from ..._tensor.tensor import Tensor
from ...autograd.graph import Node
from .._dispatch import record
from .._registry import functional_ops
from ..._core.quiet import _IGNORE, _reset, _set
from ._scratch import _CACHE_SIZE, _matmul, _np_matmul, _scratch
from . import _conv_flat as _flat


# ------------------------------------------------------------------ geometry
class _Geom:
    """Where the windows of one call lie in the padded buffer (see the module doc),
    plus the call's constants the conv rule needs."""

    __slots__ = ("k", "s", "d", "lo", "out", "insp", "sb", "plane", "region", "direct", "taps",
                 "ctaps", "front", "tap_strides", "m", "L", "sn", "p1", "tail", "groups",
                 "xshape", "wshape", "bias_axes", "warn", "flat", "tiled")

    def __init__(self, insp, k, s, d, lo, out):
        nd = len(k)
        sn = s[-1]
        # zeros before each row's data, which also serve the previous row as its right
        # padding: as many as the windows reach out on either side
        reach = [(o - 1) * st + (kk - 1) * dd + 1 for o, st, kk, dd in zip(out, s, k, d)]
        gap = [max(a, r - a - i, 0) for a, r, i in zip(lo, reach, insp)]
        # a dim's period: gap + data, and long enough that output positions never collide
        sb = [max(g + i, (o - 1) * st + 1) for g, i, o, st in zip(gap, insp, out, s)]
        sb[-1] = -(-sb[-1] // sn) * sn
        b = [1] * nd
        for i in range(nd - 2, -1, -1):
            b[i] = b[i + 1] * sb[i + 1]
        front = sum((g - a) * bb for g, a, bb in zip(gap, lo, b))
        self.k, self.s, self.d, self.lo = tuple(k), tuple(s), tuple(d), tuple(lo)
        self.out, self.insp, self.sb = tuple(out), tuple(insp), tuple(sb)
        self.plane = b[0] * sb[0]
        self.region = (Ellipsis,) + tuple(slice(g, g + i) for g, i in zip(gap, insp))
        self.taps = list(itertools.product(*map(range, k)))
        self.ctaps = [(slice(None),) + t for t in self.taps]
        self.front = front
        self.tap_strides = tuple(dd * bb for dd, bb in zip(d, b))
        self.m = tuple(st * bb // sn for st, bb in zip(s, b))
        self.L = sum((o - 1) * mm for o, mm in zip(out, self.m)) + 1
        self.sn = sn
        self.p1 = self.plane // sn          # l per plane
        # zeros after the last plane, for the last windows' reach
        last = front + sum((kk - 1) * ts for kk, ts in zip(k, self.tap_strides))
        self.tail = max(0, last + sn * (self.L - 1) + 1 - self.plane)
        self.direct = not any(gap) and self.sb == self.insp and not self.tail
        self.flat = None        # a convolution's same-size geometry (ops.nn._conv_flat)
        self.tiled = None       # a pooling's windows tile the input (ops.nn._pooling_linear)


_GEOMS = {}


def _geometry(key, make):
    gm = _GEOMS.get(key)
    if gm is None:
        if len(_GEOMS) >= _CACHE_SIZE:
            _GEOMS.clear()
        gm = _GEOMS[key] = make()
    return gm


def _copy(a):
    """A C-contiguous copy of ``a`` (from ``_scratch`` when large)."""
    if a.size < 16384:
        return np.array(a, order="C")     # order K would keep a strided layout
    out = _scratch(a.shape, a.dtype)
    np.copyto(out, a)
    return out


def _quietly(kernel):
    """A NumPy kernel run with floating-point warnings off (PyTorch is silent on inf - inf,
    inf * 0 and overflow)."""
    def run(*args, **kwargs):
        tok = _set(_IGNORE)
        try:
            return kernel(*args, **kwargs)
        finally:
            _reset(tok)
    run.__name__, run.__doc__ = kernel.__name__, kernel.__doc__
    return run


def _strided(base, off, shape, strides):
    """A view of the contiguous array ``base`` (offset and strides in elements)."""
    e = base.itemsize
    return np.ndarray(shape, base.dtype, base, off * e, tuple([s * e for s in strides]))


def _tap_view(buf, gm, lead, lead_strides, n):
    """A view (*lead, *kernel_size, n) of a buffer: [..., tap, l] is tap ``tap`` of the
    window at l (``lead`` dims with ``lead_strides``, e.g. channels)."""
    return _strided(buf, gm.front, lead + gm.k + (n,), lead_strides + gm.tap_strides + (gm.sn,))


def _buffer(x, gm, fill=0):
    """``x`` (*lead, *in) in a flat buffer of planes (one per lead index, the data
    after the gaps, see ``_Geom``) followed by the tail; ``fill`` elsewhere. It is
    ``x``'s own memory when no padding is needed."""
    lead = x.shape[:-len(gm.sb)]
    if gm.direct:
        return (x if x.flags.c_contiguous else _copy(x)).reshape(-1)
    n = math.prod(lead) * gm.plane
    buf = _scratch((n + gm.tail,), x.dtype, fill, keep=(gm, fill))
    buf[:n].reshape(lead + gm.sb)[gm.region] = x
    return buf


def _region(buf, gm, lead):
    """The data of a buffer: a view (*lead, *in)."""
    if gm.direct:
        return buf.reshape(lead + gm.insp)
    return buf[:math.prod(lead) * gm.plane].reshape(lead + gm.sb)[gm.region]


def _length(rows, gm):
    """How many l the windows of ``rows`` planes span (row r's l at r * p1 + l)."""
    return max((rows - 1) * gm.p1 + gm.L, 0)


def _taps(buf, gm, rows):
    """Per kernel tap, a strided 1-D view of the buffer: tap k of the window at l."""
    v = _tap_view(buf, gm, (), (), _length(rows, gm))
    return [v[t] for t in gm.taps]


def _valid(full, gm, lead, lead_strides):
    """The output positions of a result laid out by l: a view (*lead, *out) of the
    contiguous ``full`` whose lead dims have ``lead_strides`` (elements)."""
    return _strided(full, 0, tuple(lead) + gm.out, tuple(lead_strides) + gm.m)


# ----------------------------------------------------------- conv kernels
# The buffer holds the input channel-major, (C, N, planes), so that in one channel
# the windows of all samples are one run of l: the im2col matrix has C * taps rows.

def _cols(x, gm):
    """im2col of x (N, C, *in): (C * taps, N l), rows in the weight's order."""
    n, c = x.shape[:2]
    buf = _buffer(x.swapaxes(0, 1), gm)
    ln = _length(n, gm)
    return _copy(_tap_view(buf, gm, (c,), (n * gm.plane,), ln)).reshape(c * len(gm.taps), ln)


def _conv_valid(full, gm):
    """The (N, C_out, *out) entries of a (C_out, N l) result (a strided view)."""
    n = gm.xshape[0]
    return _valid(full, gm, (n, gm.wshape[0]), (gm.p1, _length(n, gm)))


@_quietly
def _k_conv(x, w, gm, bias=None):
    """The convolution of x and w (plus bias): returns (output, im2col of x)."""
    if _flat.usable(gm, x.dtype):
        return _flat.conv(x, w, gm, bias)
    g = gm.groups
    cols = _cols(x, gm)
    full = _matmul(w.reshape(g, w.shape[0] // g, -1), cols.reshape(g, -1, cols.shape[1]))
    if bias is not None:
        full += bias.reshape(full.shape[:2] + (1,))
    return _copy(_conv_valid(full, gm)), cols


def _spread(g, gm):
    """A gradient (N, C_out, *out) at its l in zeros (groups, C_out / groups, N l)."""
    if _flat.usable(gm, g.dtype):
        return _flat.spread(g, gm)
    o = gm.wshape[0]
    full = _scratch((gm.groups, o // gm.groups, _length(gm.xshape[0], gm)), g.dtype, 0,
                    keep=gm)
    _conv_valid(full, gm)[...] = g
    return full


def _only_valid(a, gm):
    """``a`` (..., N l) with 0 at the l that are no output position: the windows there
    cross a row or the padding, and their 0 gradient times an inf / nan input or weight
    would be nan, which PyTorch's im2col never computes."""
    n = gm.xshape[0]
    ok = np.zeros(_length(n, gm), np.bool_)
    _valid(ok, gm, (n,), (gm.p1,))[...] = True
    return np.where(ok, a, a.dtype.type(0))


@_quietly
def _k_conv_weight(x, g, gm, cols=None, spread=None):
    """grad_weight = sum over samples and positions of grad * input window
    (``cols``, ``spread``: the im2col of x and the spread of g, when already made)."""
    if _flat.usable(gm, g.dtype):
        return _flat.weight(x, _spread(g, gm) if spread is None else spread, gm, cols)
    if cols is None:
        cols = _cols(x, gm)
    if not np.isfinite(cols).all():
        cols = _only_valid(cols, gm)
    gf = _spread(g, gm) if spread is None else spread
    cols = cols.reshape(gm.groups, -1, cols.shape[1])
    # (C * taps, N l) @ (N l, C_out): BLAS is faster with the long dim inside
    return _np_matmul(cols, gf.transpose(0, 2, 1)).transpose(0, 2, 1).reshape(gm.wshape)


@_quietly
def _k_conv_input(g, w, gm, spread=None):
    """grad_input: W^T @ grad, each tap's share added back to its input positions."""
    gf = _spread(g, gm) if spread is None else spread
    if _flat.usable(gm, g.dtype):
        return _flat.input(gf, w, gm)
    n, c = gm.xshape[:2]
    grp = gm.groups
    dcols = _matmul(w.reshape(grp, w.shape[0] // grp, -1).transpose(0, 2, 1), gf)
    if not np.isfinite(w).all():
        dcols = _only_valid(dcols, gm)
    dcols = dcols.reshape((c,) + gm.k + (-1,))
    buf = _scratch((c * n * gm.plane + gm.tail,), dcols.dtype, 0)
    view = _tap_view(buf, gm, (c,), (n * gm.plane,), dcols.shape[-1])
    for t in gm.ctaps:
        view[t] += dcols[t]
    return _copy(_region(buf, gm, (c, n)).swapaxes(0, 1))


class _NumPyConv:
    """The three bilinear maps of the conv rule on ndarrays; grad_weight reuses the
    forward's im2col of ``x`` when it is given that same ``x``, and grad_input and
    grad_weight of one gradient share its spread."""

    __slots__ = ("x", "cols", "g", "spread")

    def __init__(self, x=None, cols=None):
        self.x, self.cols, self.g, self.spread = x, cols, None, None

    def _spread(self, g, gm):
        if g is not self.g:
            self.g, self.spread = g, _spread(g, gm)
        return self.spread

    def conv(self, x, w, gm):
        return _k_conv(x, w, gm)[0]

    def input(self, g, w, gm):
        return _k_conv_input(g, w, gm, self._spread(g, gm))

    def weight(self, x, g, gm):
        return _k_conv_weight(x, g, gm, self.cols if x is self.x else None, self._spread(g, gm))


class _RecordedConv:
    """The same three maps as recorded ops (for create_graph=True)."""

    @staticmethod
    def conv(x, w, gm):
        return _record_conv(x, w, None, gm)

    @staticmethod
    def input(g, w, gm):
        return record(_ConvInputGrad, _k_conv_input(g._data, w._data, gm), (g, w), saved=(g, w),
                      args=gm)

    @staticmethod
    def weight(x, g, gm):
        return record(_ConvWeightGrad, _k_conv_weight(x._data, g._data, gm), (x, g),
                      saved=(x, g), args=gm)


def _conv_vjp(ops, role, a, b, g, gm, needs):
    """Vector-Jacobian products of the three bilinear ops, with ``ops`` NumPy or recorded.

    role 0: y = conv(x=a, w=b) + bias;  role 1: y = grad_input(grad=a, w=b);
    role 2: y = grad_weight(x=a, grad=b). grad_input and grad_weight are the adjoints
    of conv in x and in w, so each op's products are the other two ops (or conv).
    """
    if role == 0:
        return (ops.input(g, b, gm) if needs[0] else None,
                ops.weight(a, g, gm) if needs[1] else None,
                g.sum(0).sum(gm.bias_axes) if needs[2] else None)
    if role == 1:
        return (ops.conv(g, b, gm) if needs[0] else None,
                ops.weight(g, a, gm) if needs[1] else None)
    return (ops.input(b, g, gm) if needs[0] else None,
            ops.conv(a, g, gm) if needs[1] else None)


class _ConvNode(Node):
    __slots__ = ()
    saves = True
    role = 0

    def backward(ctx, g):
        a, b = ctx._checked_saved[:2]
        return _conv_vjp(_RecordedConv, ctx.role, a, b, g, ctx.args, ctx.needs_input_grad)

    def np_backward(ctx, g):
        saved = ctx.saved_arrays()
        ops = _NumPyConv(saved[0], saved[2]) if len(saved) == 3 else _NumPyConv()
        return _conv_vjp(ops, ctx.role, saved[0], saved[1], g, ctx.args, ctx.needs_input_grad)


ConvolutionBackward0 = type("ConvolutionBackward0", (_ConvNode,), {"__slots__": ()})
_ConvInputGrad = type("ConvolutionBackwardBackward0", (_ConvNode,),
                      {"__slots__": (), "role": 1})
_ConvWeightGrad = type("ConvolutionBackwardBackward0", (_ConvNode,),
                       {"__slots__": (), "role": 2})


def _record_conv(input, weight, bias, gm):
    if input._data.__class__ is MetaArray or weight._data.__class__ is MetaArray:
        # the 'meta' device: the result's shape and dtype only (_tensor/meta.py)
        out = MetaArray((gm.xshape[0], gm.wshape[0]) + tuple(gm.out), input._data.dtype)
        return record(ConvolutionBackward0, out, (input, weight, bias), saved=(input, weight),
                      args=gm)
    out, cols = _k_conv(input._data, weight._data, gm, None if bias is None else bias._data)
    saved = (input, weight, cols) if weight._requires_grad else (input, weight)
    return record(ConvolutionBackward0, out, (input, weight, bias), saved=saved, args=gm)


# ----------------------------------------------------------- argument checks
def _check_tensor(fn, name, t, pos):
    if not isinstance(t, Tensor):
        raise TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s"
                        % (fn, name, pos, type(t).__name__))


def _ints(v, nd, name, fn, what="the convolution dimensions"):
    """An int or a sequence of 1 or ``nd`` ints, as a tuple of ``nd`` ints."""
    if type(v) is int:
        return (v,) * nd
    if type(v) is tuple and len(v) == nd and all([type(e) is int for e in v]):
        return v
    vals = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    for e in vals:
        if not isinstance(e, (int, np.integer)) or isinstance(e, bool):
            raise TypeError("%s(): argument '%s' must be tuple of ints, not %s"
                            % (fn, name, type(e).__name__))
    if len(vals) == 1:
        return (int(vals[0]),) * nd
    if len(vals) != nd:
        raise RuntimeError("expected %s to be a single integer value or a list of %d values to "
                           "match %s, but got %s=%s" % (name, nd, what, name, list(vals)))
    return tuple(int(e) for e in vals)


_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
         "int32": "int"}


def _conv_geometry(fn, xshape, wshape, stride, padding, dilation, groups):
    nd = len(wshape) - 2
    s = _ints(stride, nd, "stride", fn)
    d = _ints(dilation, nd, "dilation", fn)
    pad = padding if isinstance(padding, str) else _ints(padding, nd, "padding", fn)
    if type(groups) is not int or groups <= 0:
        raise RuntimeError("non-positive groups is not supported (got groups=%s). Fix: groups "
                           "must be a positive integer that divides both channel counts."
                           % (groups,))
    return _geometry((xshape, wshape, s, pad, d, groups),
                     lambda: _make_conv_geom(xshape, wshape, s, pad, d, groups))


def _make_conv_geom(xshape, wshape, s, pad, d, groups):
    nd = len(wshape) - 2
    k = wshape[2:]
    if pad == "valid":
        lo = hi = (0,) * nd
    elif pad == "same":
        if any(v != 1 for v in s):
            raise RuntimeError("padding='same' is not supported for strided convolutions. "
                               "Fix: use stride=1, or give the padding as numbers.")
        total = [dd * (kk - 1) for dd, kk in zip(d, k)]
        lo = tuple(t // 2 for t in total)
        hi = tuple(t - a for t, a in zip(total, lo))
    elif isinstance(pad, str):
        raise RuntimeError("Invalid padding string: '%s'. Fix: use 'valid', 'same' or "
                           "numbers." % pad)
    else:
        lo = hi = pad
    if any(v <= 0 for v in s):
        raise RuntimeError("non-positive stride is not supported (got stride=%s)" % (s,))
    if any(v < 0 for v in lo):
        raise RuntimeError("negative padding is not supported (got padding=%s)" % (lo,))
    if any(v <= 0 for v in d):
        raise RuntimeError("non-positive dilation is not supported (got dilation=%s)" % (d,))
    if wshape[0] == 0 or wshape[0] % groups:
        raise RuntimeError("Given groups=%d, expected weight to be divisible by %d at dimension "
                           "0, but got weight of size %s instead. Fix: out_channels must be a "
                           "positive multiple of groups." % (groups, groups, list(wshape)))
    if xshape[1] != wshape[1] * groups:
        raise _errors.conv_channels("Conv%dd" % nd, groups, wshape, xshape)
    padded = [i + a + b for i, a, b in zip(xshape[2:], lo, hi)]
    kernel = [dd * (kk - 1) + 1 for dd, kk in zip(d, k)]
    if any(p < kk for p, kk in zip(padded, kernel)):
        raise _errors.conv_too_small(padded, kernel)
    out = [(p - kk) // st + 1 for p, kk, st in zip(padded, kernel, s)]
    gm = _Geom(xshape[2:], k, s, d, lo, out)
    gm.groups, gm.xshape, gm.wshape = groups, tuple(xshape), tuple(wshape)
    gm.bias_axes = tuple(range(1, len(xshape) - 1))   # of g.sum(0): batch first is faster
    gm.warn = lo != hi
    if all(v == 1 for v in s) and tuple(out) == tuple(xshape[2:]) and 0 not in xshape[1:]:
        gm.flat = _flat.Flat(xshape[2:], k, d, lo)
    return gm


def _check_operands(nd, fn, input, weight, layout="C_out, C_in / groups"):
    """The arrays of a convolution's input and weight, after the rank checks (also used by
    the transposed convolutions, whose weight ``layout`` differs)."""
    _check_tensor(fn, "input", input, 1)
    _check_tensor(fn, "weight", weight, 2)
    x, w = input._data, weight._data
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s. "
            "Fix: give it (N, C, *spatial) with %d spatial dims (or (C, *spatial) for a single "
            "sample)." % (nd + 1, nd + 2, fn, list(x.shape), nd))
    if w.ndim != nd + 2:
        raise RuntimeError("%s expects a %dD weight (%s, *kernel_size), but got weight of size %s"
                           % (fn, nd + 2, layout, list(w.shape)))
    return x, w


def _check_same_dtype(x, w):
    # PyTorch's message for an input and a weight of two dtypes (bias is checked first)
    if x.dtype != w.dtype:
        raise RuntimeError(
            "expected scalar type %s but found %s (the input is %s, the weight %s). Fix: "
            "convert one of them, e.g. x.to(layer.weight.dtype) or layer.to(x.dtype)."
            % (_errors.type_name(x.dtype), _errors.type_name(w.dtype), x.dtype.name,
               w.dtype.name))


def _conv(nd, fn, input, weight, bias, stride, padding, dilation, groups):
    x, w = _check_operands(nd, fn, input, weight)
    if x.ndim == nd + 1:       # unbatched, as PyTorch: a batch of one, squeezed after
        return _conv(nd, fn, input.unsqueeze(0), weight, bias, stride, padding, dilation,
                     groups).squeeze(0)
    if bias is not None:
        _check_tensor(fn, "bias", bias, 3)
        b = bias._data
        if b.dtype != x.dtype:
            raise RuntimeError("Input type (%s) and bias type (%s) should be the same. Fix: "
                               "convert one of them, e.g. x.to(layer.bias.dtype)"
                               % (_TYPE.get(x.dtype.name, x.dtype.name),
                                  _TYPE.get(b.dtype.name, b.dtype.name)))
    _check_same_dtype(x, w)
    if bias is not None and b.shape != (w.shape[0],):
        raise RuntimeError("Given weight of size %s, expected bias to be 1-dimensional with "
                           "%d elements, but got bias of size %s instead"
                           % (list(w.shape), w.shape[0], list(b.shape)))
    gm = _conv_geometry(fn, x.shape, w.shape, stride, padding, dilation, groups)
    if gm.warn:
        _errors.warn("Using padding='same' with even kernel lengths and odd dilation may "
                     "require a zero-padded copy of the input be created", UserWarning)
    return _record_conv(input, weight, bias, gm)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation, as PyTorch) over (N, C_in, L) or (C_in, L).

    weight (C_out, C_in / groups, k), bias (C_out,) -> (N, C_out, L_out); ``padding`` an
    int, 'valid' or 'same'. See ``conv2d`` for the errors.
    """
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation, as PyTorch) over (N, C_in, H, W) or (C_in, H, W).

    Shapes: weight (C_out, C_in / groups, kH, kW), bias (C_out,) -> (N, C_out, H_out,
    W_out), H_out = floor((H + 2 padding - dilation (kH - 1) - 1) / stride + 1) (PyTorch's
    Conv2d docs). ``stride``, ``padding``, ``dilation``: an int or a pair; ``padding``
    also 'valid' (none) or 'same' (output size = input size; stride 1 only). Input,
    weight and bias share one dtype, which the output keeps.

    Raises:
        RuntimeError: when the input's channel count is not ``C_in`` (weight dim 1 times
            groups), when the kernel (dilated) is larger than the padded input, for a
            non-4D weight or a 2D/5D input, for non-positive stride/dilation/groups,
            negative padding, or mismatched dtypes.
    """
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


functional_ops(globals(), ("conv1d", "conv2d"), function=True)

from .._named import _named
from .._registry import defop


# ------------------------------------------------------------------ conv_tbc
@defop("conv_tbc", method=False, functional=True)
def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution in (time, batch, channels) layout (fairseq's; PyTorch's
    ``conv_tbc``): input (T, B, C_in), weight (K, C_in, C_out), bias (C_out,) ->
    (T + 2 pad - K + 1, B, C_out): the bias plus one matrix product per kernel tap over
    the time steps it reaches (PyTorch's ConvolutionTBC.cpp loop, so padding is never
    multiplied), with their gradients.

    Raises:
        TypeError: bias not a tensor; RuntimeError: dims or sizes that do not fit, or
            T + 2 pad < K - 1 (PyTorch's messages).
    """
    if not isinstance(bias, Tensor):
        raise TypeError("conv_tbc(): argument 'bias' (position 3) must be Tensor, not %s. Fix: "
                        "pass zeros(C_out) for no bias" % type(bias).__name__)

    def bad(what):
        raise RuntimeError("%s. Fix: input (T, B, C_in), weight (K, C_in, C_out), bias (C_out,)"
                           % what)
    if input.dim() != 3:
        bad("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        bad("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        bad("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        bad("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        bad("Bias size must equal dim 2 in the weight tensor (output channels).")
    # PyTorch's loop (ConvolutionTBC.cpp): the bias, then for each kernel tap one GEMM of
    # the time steps it reaches, added into the output rows it writes. Padding is never
    # multiplied (an inf weight meets no padded zero: no nan there), in PyTorch's order
    from ..shape.joins import cat
    n_t, b, _ = input.shape
    k_w, _, c_out = weight.shape
    olen = n_t + 2 * pad - k_w + 1
    if olen < 0:
        raise RuntimeError("Trying to create tensor with negative dimension %d: [%d, %d, %d]. "
                           "Fix: T + 2 * pad >= K - 1" % (olen, olen, b, c_out))
    out = bias.expand(olen, b, c_out)
    for k in range(k_w):
        i_shift, o_shift = max(0, k - pad), max(0, pad - k)
        t = min(n_t + pad - k, olen) - o_shift
        if t <= 0:
            continue
        part = input.narrow(0, i_shift, t) @ weight[k]
        if t < olen:
            zeros = np.zeros((1, b, c_out), part._data.dtype)
            part = cat([Tensor._make_plain(np.broadcast_to(zeros, (o_shift, b, c_out))), part,
                        Tensor._make_plain(np.broadcast_to(zeros, (olen - o_shift - t, b,
                                                                   c_out)))])
        out = out + part
    return _named(out, "ConvTbcBackward0")
