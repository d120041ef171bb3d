"""The pooling ops' linear machinery (used by ``ops.pooling`` and ``ops.pool3d``): a
pooling is linear in its input, so its op is a ``_LinearOp`` (a NumPy kernel and its
adjoint, each recorded as the other's rule: derivatives of every order), evaluated on
``ops.conv``'s window geometry (one strided view of the padded buffer per tap; see that
module's docstring). Kernels: max (gather the selected elements / scatter the gradient
back), average (sum of the taps / spread back), adaptive average (window sums).
"""
import math

import numpy as np

from ..autograd.graph import Node
from ._dispatch import record
from ._select import select
from .conv import _buffer, _copy, _length, _quietly, _region, _scratch, _taps, _valid


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
        saved = ctx.saved_tensors
        return (op.adjoint(g, p, saved[0] if saved else None),) + (None,) * (
            len(ctx.next_functions) - 1)

    def np_backward(ctx, g):
        op, p = ctx.args
        ctx.saved_tensors                 # the in-place check
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


@_quietly
def _gather_k(x, p):
    """The element at tap ``idx`` (laid out by l) of each window: max pooling, given its
    argmax."""
    gm, idx = p
    lead, taps = _pool_rows(x, gm)
    out = _scratch(idx.shape, x.dtype, 0)
    for t, v in enumerate(taps):
        out += select(idx == t, v)    # selects: an inf elsewhere in x stays out
    return _pool_out(out, gm, lead)


@_quietly
def _scatter_k(g, p):
    """Adjoint of ``_gather_k``: each window's gradient added at its tap ``idx``."""
    gm, idx = p
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
