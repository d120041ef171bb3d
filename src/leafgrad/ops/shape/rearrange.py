"""Rearranging elements: flip, fliplr, flipud, rot90, roll, movedim, repeat, tile,
repeat_interleave.

fliplr, flipud and rot90 are compositions of flip and transpose, as PyTorch defines them
(TensorTransformations.cpp), so their gradients and second order come from those ops;
the others' rules re-arrange the gradient back (the inverse op, or a sum over repeats).
"""

import numpy as np

from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record
from .._named import grad_fn_named
from .._registry import defop, node
from .views import expand, permute, reshape, _sizes, unsqueeze


# ------------------------------------------------------------- rotations, flips
@defop("rot90")
@grad_fn_named("Rot90Backward0")
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first dim
    towards the second): flips and a transpose, as PyTorch.

    Raises:
        RuntimeError: ``dims`` not two distinct dims, or an input of fewer than 2 dims.
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError("expected total rotation dims == 2, but got dims = %d. Fix: "
                           "dims=[d0, d1]" % len(dims))
    n = input.dim()
    if n < 2:
        raise RuntimeError("expected total dims >= 2, but got total dims = %d. Fix: rotate "
                           "a tensor of at least 2 dims" % n)
    d0, d1 = _wrap_dim(dims[0], n), _wrap_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError("expected rotation dims to be different, but got dim0 = %d and "
                           "dim1 = %d. Fix: two different dims" % (d0, d1))
    k %= 4
    if k == 1:
        return flip(input, (d1,)).transpose(d0, d1)
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:
        return flip(input, (d0,)).transpose(d0, d1)
    return input.clone()


@defop("fliplr")
def fliplr(input):
    """Reverse dim 1 (left/right). Raises RuntimeError for fewer than 2 dims."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d. Fix: x.flip(0) for a vector")
    return flip(input, (1,))


@defop("flipud")
def flipud(input):
    """Reverse dim 0 (up/down). Raises RuntimeError for a 0-d tensor."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d. Fix: a 0-d tensor has nothing to flip")
    return flip(input, (0,))


def _flip_backward(ctx, g):
    return (g.flip(ctx.args),)


FlipBackward0 = node("FlipBackward0", _flip_backward, saves=False)


@defop("flip")
def flip(input, dims):
    x = input._data
    dims = tuple(_wrap_dim(d, x.ndim) for d in ((dims,) if isinstance(dims, int) else dims))
    if x.ndim == 0:
        dims = ()
    return record(FlipBackward0, np.flip(x, dims).copy(), (input,), args=dims)


def _repeat_backward(ctx, g):
    shape, reps = ctx.args
    lead = len(reps) - len(shape)
    full = (1,) * lead + tuple(shape)
    # view (r0, s0, r1, s1, ...) and sum the repeat axes
    inter = []
    for r, s in zip(reps, full):
        inter += [r, s]
    g = g.reshape(inter).sum(tuple(range(0, 2 * len(full), 2)))
    return (g.reshape(shape),)


RepeatBackward0 = node("RepeatBackward0", _repeat_backward, saves=False)


@defop("repeat", function=False)
def repeat(input, *sizes):
    """Tile the tensor ``sizes`` times along each dim (a copy)."""
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    reps = _sizes(sizes)
    x = input._data
    if len(reps) < x.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    return record(RepeatBackward0, np.tile(x, reps), (input,), args=(x.shape, reps))


@defop("movedim", aliases=("moveaxis",))
def movedim(input, source, destination):
    x = input._data
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    dims = list(range(x.ndim))
    src = [_wrap_dim(s, x.ndim) for s in src]
    dst = [_wrap_dim(d, x.ndim) for d in dst]
    if x.ndim == 0:     # dims -1/0 of a 0-d tensor: nothing moves
        return permute(input, ())
    rest = [d for d in dims if d not in src]
    out = [None] * x.ndim
    for s, d in zip(src, dst):
        out[d] = s
    it = iter(rest)
    out = [o if o is not None else next(it) for o in out]
    return permute(input, tuple(out))


def _roll_backward(ctx, g):
    shifts, dims = ctx.args
    return (roll(g, tuple(-k for k in shifts), dims),)


RollBackward0 = node("RollBackward0", _roll_backward, saves=False)


@defop("roll")
def roll(input, shifts, dims=None):
    """Shift elements along ``dims`` (around the flattened tensor when ``dims`` is None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    x = input._data
    if x.size == 0 and x.ndim:      # PyTorch returns a copy of an empty tensor unchecked
        return record(RollBackward0, x.copy(), (input,), args=(shifts, None))
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError("shifts and dimensions must align. shifts: %d, dims:0"
                               % len(shifts))
        out = np.roll(x, shifts[0])
    else:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError("shifts and dimensions must align. shifts: %d, dims:%d"
                               % (len(shifts), len(dims)))
        if x.ndim == 0:
            raise IndexError("Dimension specified as %d but tensor has no dimensions: a 0-d "
                             "tensor has no dim to roll along. Fix: torch.roll(x, shift) "
                             "without dims, or roll a tensor with dims" % dims[0])
        dims = tuple(_wrap_dim(d, x.ndim) for d in dims)
        out = np.roll(x, shifts, axis=dims)
    return record(RollBackward0, out, (input,), args=(shifts, dims))


@defop("tile")
def tile(input, dims):
    """``repeat`` with ``dims`` padded by leading 1s to the input's rank (PyTorch's
    definition; grad_fn RepeatBackward0)."""
    dims = _sizes((dims,)) if not isinstance(dims, int) else (dims,)
    nd = input._data.ndim
    if len(dims) < nd:
        dims = (1,) * (nd - len(dims)) + tuple(dims)
    if not dims:        # a 0-d tensor tiled by (): itself, copied
        return repeat(input.reshape(1), 1).reshape(())
    return repeat(input, *dims)


@defop("repeat_interleave")
def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    """Each element (each slice along ``dim``; flattened when ``dim`` is None) repeated
    ``repeats`` times in place: [a, b] -> [a, a, b, b].

    ``repeats``: an int (unsqueeze/expand/reshape, grad_fn ViewBackward0 as PyTorch)
    or a 1-D int tensor of per-slice counts (an index_select).

    Raises:
        RuntimeError: for negative repeats or a repeats tensor of the wrong length.
    """
    if dim is None:
        input = reshape(input, -1)
        dim = 0
    x = input._data
    if x.ndim == 0:
        # PyTorch reads a dim of a 0-d tensor against its 1-d flattening plus one
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "%d): a 0-d tensor takes repeat_interleave without dim. Fix: drop "
                         "dim=" % (1 if dim in (0, -1) else dim))
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        input = reshape(input, 1)
        x = input._data
    if isinstance(repeats, Tensor) and repeats._data.ndim == 0:
        repeats = int(repeats._data)
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        u = unsqueeze(input, d + 1)
        e = expand(u, x.shape[:d + 1] + (repeats,) + x.shape[d + 1:])
        # PyTorch's graph: a contiguous clone of the expansion, then a view
        return e.contiguous().view(x.shape[:d] + (x.shape[d] * repeats,) + x.shape[d + 1:])
    r = np.asarray(repeats._data if isinstance(repeats, Tensor) else repeats).reshape(-1)
    if r.size != x.shape[d]:
        raise RuntimeError("repeats must have the same size as input along dim, but got "
                           "repeats.size(0) = %d and input.size(%d) = %d"
                           % (r.size, d, x.shape[d]))
    if (r < 0).any():
        raise RuntimeError("Repeats must be non-negative")
    from .indexing import index_select
    return index_select(input, d, np.repeat(np.arange(x.shape[d]), r))
