"""The pooling ops' linear machinery (used by ``ops.nn.pooling`` and ``ops.nn.pooling_3d``): a
pooling is linear in its input, so its op is a ``_LinearOp`` (a NumPy kernel and its
adjoint, each recorded as the other's rule: derivatives of every order), evaluated on
``ops.nn.conv``'s window geometry (one strided view of the padded buffer per tap; see that
module's docstring). Kernels: max (gather the selected elements / scatter the gradient
back), average (sum of the taps / spread back), adaptive average (window sums).
"""
import math

import numpy as np

from ...autograd.graph import Node
from .._dispatch import record
from .._select import select
from ._scratch import _scratch
from .conv import _buffer, _copy, _length, _quietly, _region, _taps, _valid


class _LinearNode(Node):
    """y = A(x) for a linear map A fixed by ``ctx.args = (op, params)``: the rule is
    A's adjoint, recorded in turn (so every order of derivative exists).

    A pooling op saves its input x, as PyTorch does, and the recorded adjoint takes x as
    a second input with zero derivative: so a pooling layer's input gradient has a
    ``grad_fn`` (``MaxPool2DWithIndicesBackwardBackward0``) even when the incoming
    gradient is a constant, and an in-place change of x before backward is an error."""

    __slots__ = ()
    saves = True

    def backward(ctx, g):
        op, p = ctx.args
        saved = ctx._checked_saved
        return (op.adjoint(g, p, saved[0] if saved else None),) + (None,) * (
            len(ctx.next_functions) - 1)

    def np_backward(ctx, g):
        op, p = ctx.args
        ctx._checked_saved                 # the in-place check
        return (op.adjoint.kernel(g, p),) + (None,) * (len(ctx.next_functions) - 1)


class _LinearOp:
    """A linear map given by a NumPy ``kernel(x, params)``; ``adjoint``: its transpose."""

    def __init__(self, name, kernel):
        self.node = type(name, (_LinearNode,), {"__slots__": ()})
        self.kernel = kernel
        self.adjoint = None

    def __call__(self, x, p, dep=None):
        """A(x), recorded; ``dep``: a tensor the result also depends on, with zero
        derivative (the pooling input, for the recorded adjoint)."""
        if dep is None:
            return record(self.node, self.kernel(x._data, p), (x,), args=(self, p))
        return record(self.node, self.kernel(x._data, p), (x, dep), args=(self, p))

    def forward(self, x, out, p):
        """A pooling op's result ``out`` = A(x), recorded with x saved."""
        return record(self.node, out, (x,), saved=(x,), args=(self, p))


def _linear_pair(name, kernel, adjoint_kernel):
    """The op named ``name`` and its adjoint, named as PyTorch names a backward's backward."""
    op = _LinearOp(name, kernel)
    op.adjoint = _LinearOp(name.replace("Backward0", "BackwardBackward0"), adjoint_kernel)
    op.adjoint.adjoint = op
    return op


def _pool_rows(x, gm, fill=0):
    """x (*lead, *in): its lead dims, and one view per tap (see ``_taps``) of its buffer."""
    lead = x.shape[:-len(gm.out)]
    return lead, _taps(_buffer(x, gm, fill), gm, math.prod(lead))


def _pool_out(full, gm, lead):
    """A result laid out by l, at the output positions: a new array (*lead, *out)."""
    return _copy(_valid(full, gm, (math.prod(lead),), (gm.p1,))).reshape(lead + gm.out)


def _pool_spread(g, gm):
    """A gradient (*lead, *out) at its l in zeros."""
    rows = math.prod(g.shape[:-len(gm.out)])
    full = _scratch((_length(rows, gm),), g.dtype, 0, keep=gm)
    _valid(full, gm, (rows,), (gm.p1,))[...] = g.reshape((rows,) + gm.out)
    return full


def _pool_adjoint(g, gm, share):
    """Adds ``share(t)`` (laid out by l) to the input positions of tap t, for every tap."""
    lead = g.shape[:-len(gm.out)]
    rows = math.prod(lead)
    buf = _scratch((rows * gm.plane + gm.tail,), g.dtype, 0)
    for t, v in enumerate(_taps(buf, gm, rows)):
        v += share(t)
    region = _region(buf, gm, lead)
    return region if gm.direct else _copy(region)


# Tiled windows (stride = kernel_size, no padding or dilation, no partial window): the
# input (cropped to whole windows) reshaped to (rows, o_0, k_0, o_1, k_1, ...) holds every
# window in place, so tap k of all windows is a view (no buffer), and the adjoint of
# selecting taps writes each window's gradient at one flat index (the windows are
# disjoint: no sums). ``idx`` is then laid out as the output (rows, *out).
class Tiles:
    """A tiled geometry's flat offsets: of each tap in a window (``offs``) and of each
    window's first element (``starts``), in the row-major (*in) plane."""

    __slots__ = ("offs", "starts", "plane", "_base")

    def __init__(self, insp, k, out):
        b = np.cumprod((1,) + tuple(insp[:0:-1]))[::-1]       # the plane's strides

        def grid(n, step):          # row-major over n: sum_i n_i step_i b_i
            return sum(np.arange(nn).reshape([-1 if j == i else 1 for j in range(len(n))])
                       * st * bb for i, (nn, st, bb) in enumerate(zip(n, step, b)))
        self.offs = grid(k, (1,) * len(k)).reshape(-1).astype(np.intp)
        self.starts = grid(out, k).reshape(-1).astype(np.intp)
        self.plane = math.prod(insp)
        self._base = {}

    def flat(self, idx):
        """The flat indices into (rows, *in) of the taps ``idx`` (rows, *out)."""
        rows = idx.shape[0]
        base = self._base.get(rows)
        if base is None:
            if len(self._base) > 8:
                self._base.clear()
            base = self._base[rows] = np.add.outer(np.arange(rows, dtype=np.intp) * self.plane,
                                                   self.starts).reshape(idx.shape)
        f = np.take(self.offs, idx)
        f += base
        return f


def _tiles(x, gm):
    """x (*lead, *in) as (rows, o_0, k_0, o_1, k_1, ...) (a view of whole windows)."""
    lead = x.shape[:-len(gm.out)]
    crop = x[(Ellipsis,) + tuple(slice(0, o * k) for o, k in zip(gm.out, gm.k))]
    return lead, crop.reshape((math.prod(lead),) + sum(zip(gm.out, gm.k), ()))


def tile_taps(x, gm):
    """x's lead dims and one view (rows, *out) per tap (``gm.taps`` order)."""
    lead, t = _tiles(x, gm)
    return lead, [t[(slice(None),) + sum(((slice(None), k) for k in tap), ())]
                  for tap in gm.taps]


@_quietly
def _gather_k(x, p):
    """The element at tap ``idx`` (laid out by l) of each window: max pooling, given its
    argmax."""
    gm, idx = p
    if gm.tiled is not None:
        lead, taps = tile_taps(x, gm)
        out = np.zeros(idx.shape, x.dtype)
        for t, v in enumerate(taps):
            out += select(idx == t, v)
        return out.reshape(lead + gm.out)
    lead, taps = _pool_rows(x, gm)
    out = _scratch(idx.shape, x.dtype, 0)
    for t, v in enumerate(taps):
        out += select(idx == t, v)    # selects: an inf elsewhere in x stays out
    return _pool_out(out, gm, lead)


@_quietly
def _scatter_k(g, p):
    """Adjoint of ``_gather_k``: each window's gradient added at its tap ``idx``."""
    gm, idx = p
    if gm.tiled is not None:
        lead = g.shape[:-len(gm.out)]
        out = _scratch((math.prod(lead) * gm.tiled.plane,), g.dtype, 0)
        out[gm.tiled.flat(idx).reshape(-1)] = g.reshape(-1)
        return out.reshape(lead + gm.insp)
    gf = _pool_spread(g, gm)
    return _pool_adjoint(g, gm, lambda t: select(idx == t, gf))


@_quietly
def _avg_k(x, p):
    """Window sums divided by ``div`` (a number or an array of the output's spatial shape)."""
    gm, div = p
    lead, taps = _pool_rows(x, gm)
    acc = _copy(taps[0])
    for v in taps[1:]:
        acc += v
    out = _pool_out(acc, gm, lead)
    if out.dtype.kind in "fc":
        out /= div
        return out
    return (out / div).astype(out.dtype)   # integers: truncating, as PyTorch's kernel


@_quietly
def _avg_adjoint_k(g, p):
    gm, div = p
    gf = _pool_spread(g / div, gm)
    return _pool_adjoint(g, gm, lambda t: gf)


# p: per pooled (trailing) axis, (input size, PyTorch's windows [lo, hi) per output).
# Window sums, not a product with an averaging matrix: an inf or nan input must reach
# only the outputs whose window holds it (inf * 0 would be nan), as PyTorch's loops.
@_quietly
def _adaptive_k(x, p):
    for ax, (_, wins) in enumerate(p, -len(p)):
        x = np.concatenate([x[(Ellipsis, slice(lo, hi)) + (slice(None),) * (-1 - ax)]
                            .sum(ax, keepdims=True) / (hi - lo) for lo, hi in wins], ax)
    return x


@_quietly
def _adaptive_adjoint_k(g, p):
    for ax, (n_in, wins) in enumerate(p, -len(p)):
        shape = list(g.shape)
        shape[ax] = n_in
        out = np.zeros(shape, g.dtype)
        rest = (slice(None),) * (-1 - ax)
        for o, (lo, hi) in enumerate(wins):
            out[(Ellipsis, slice(lo, hi)) + rest] += g[(Ellipsis, slice(o, o + 1)) + rest] / (hi - lo)
        g = out
    return g


_MAX_POOL = _linear_pair("MaxPool2DWithIndicesBackward0", _gather_k, _scatter_k)
_AVG_POOL = _linear_pair("AvgPool2DBackward0", _avg_k, _avg_adjoint_k)
_ADAPTIVE_AVG = _linear_pair("AdaptiveAvgPool2DBackward0", _adaptive_k, _adaptive_adjoint_k)
