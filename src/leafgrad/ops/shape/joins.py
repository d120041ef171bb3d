"""Joins, splits, slices and rearrangements: cat, stack, split, chunk, unbind, select,
narrow, diagonal, flip, repeat, movedim, roll, diag, tile, repeat_interleave, diff,
meshgrid. Each rule re-arranges the gradient (the inverse op).
"""

import numpy as np

from ..._core.dtype import result_type

from ..._tensor.tensor import Tensor, _wrap_dim
from ...autograd.graph import Node
from .._dispatch import record, record_multi, to_tensor
from .._out import out_call
from .._registry import defop, node

from .views import _as_view, _sizes, expand, permute, reshape, t, unsqueeze
from ..._core import errors as _errors




# ---------------------------------------------------------- joins & splits
def _cat_backward(ctx, g):
    dim, sizes = ctx.args
    out, start = [], 0
    for s, need in zip(sizes, ctx.needs_input_grad):
        out.append(g.narrow(dim, start, s) if need else None)
        start += s
    return tuple(out)


CatBackward0 = node("CatBackward0", _cat_backward, saves=False)


@defop("cat", method=False, aliases=("concat", "concatenate"), out=True)
def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dim.

    Raises:
        RuntimeError: for an empty list or mismatched shapes outside ``dim``.
    """
    if out is not None:
        return out_call("cat", cat, (tensors, dim), {}, out)
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError("zero-dimensional tensor (at position %d) cannot be "
                               "concatenated. Fix: torch.stack for 0-d tensors, or "
                               "t.reshape(1) first" % i)
    # PyTorch's legacy rule: 1-d empty tensors are skipped (any dim is then accepted)
    nonempty = [t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)]
    if not nonempty:
        return record(CatBackward0, np.zeros(0, result_type(*tensors).np), tuple(tensors),
                      args=(0, [0] * len(tensors)))
    ref = nonempty[0] if nonempty else tensors[0]
    d = _wrap_dim(dim, ref._data.ndim)
    npd = result_type(*tensors).np
    try:
        out = np.concatenate([t._data.astype(npd, copy=False) for t in nonempty or tensors], axis=d)
    except ValueError:
        raise RuntimeError(
            "Sizes of tensors must match except in dimension %d: got shapes %s. Fix: make every "
            "dimension other than %d the same." % (d, [tuple(t.shape) for t in tensors], d)) from None
    used = nonempty or tensors
    return record(CatBackward0, out, tuple(used), args=(d, [t._data.shape[d] for t in used]))


concat = concatenate = cat


def _stack_backward(ctx, g):
    return tuple(x if need else None for x, need in zip(g.unbind(ctx.args), ctx.needs_input_grad))


StackBackward0 = node("StackBackward0", _stack_backward, saves=False)


@defop("stack", method=False, out=True)
def stack(tensors, dim=0, *, out=None):
    """Join same-shape tensors along a new dim.

    Raises:
        RuntimeError: when the shapes differ.
    """
    if out is not None:
        return out_call("stack", stack, (tensors, dim), {}, out)
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {t._data.shape for t in tensors}
    if len(shapes) > 1:
        raise RuntimeError("stack expects each tensor to be equal size, but got %s"
                           % " and ".join(str(list(t.shape)) for t in tensors[:2]))
    d = _wrap_dim(dim, tensors[0]._data.ndim + 1)
    from ..._core.dtype import result_type
    npd = result_type(*tensors).np
    out = np.stack([t._data.astype(npd, copy=False) for t in tensors], axis=d)
    return record(StackBackward0, out, tuple(tensors), args=d)


@defop("hstack", out=True, method=False)
def hstack(tensors):
    """Concatenate along dim 1 (dim 0 for 1-d tensors), after PyTorch's atleast_1d."""
    tensors = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors and tensors[0].dim() == 1 else 1)


@defop("vstack", out=True, method=False)
def vstack(tensors):
    """Concatenate along dim 0 after PyTorch's atleast_2d (0-d and 1-d become rows)."""
    return cat([t.reshape(1, -1) if t.dim() < 2 else t for t in tensors], 0)


def _split_backward(ctx, *grads):
    return (cat(list(grads), ctx.args),)


class SplitBackward0(Node):
    __slots__ = ("n_outputs", "out_metas")
    backward = _split_backward


class SplitWithSizesBackward0(SplitBackward0):
    __slots__ = ()


class UnbindBackward0(Node):
    __slots__ = ("n_outputs", "out_metas")

    def backward(ctx, *grads):
        return (stack(list(grads), ctx.args),)

    def np_backward(ctx, *grads):
        # the slices' gradients stacked back; an output that got none contributes zeros
        if all(g is None for g in grads):
            return (None,)
        dt = next(g for g in grads if g is not None).dtype
        return (np.stack([np.zeros(m[0], dt) if g is None else g
                          for g, m in zip(grads, ctx.out_metas)], ctx.args),)


def _multi(cls, outs, input, dim):
    res = record_multi(cls, outs, (input,), args=dim)
    node = res[0]._grad_fn if res else None
    if node is not None:
        node.n_outputs = len(outs)
    # views of the input with or without a graph: in-place changes reach the base and
    # share its version counter (PyTorch's multi-output views)
    multi = cls.__name__[:-len("Backward0")]
    for r in res:
        _as_view(r, input, multi)
    return res


@defop("split")
def split(input, split_size_or_sections, dim=0):
    """Split into chunks of a size (last may be smaller) or of given sizes; views."""
    x = input._data
    _no_0d(x, "split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    cls = SplitBackward0
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        sizes = [min(s, n - i) for i in range(0, n, s)] if n else [0]
    else:
        sizes, cls = list(split_size_or_sections), SplitWithSizesBackward0
        if sum(sizes) != n:
            raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to %d (input "
                               "tensor's size at dimension %d), but got split_sizes=%s"
                               % (n, d, sizes))
    outs, start = [], 0
    for s in sizes:
        outs.append(x[(slice(None),) * d + (slice(start, start + s),)])
        start += s
    return _multi(cls, outs, input, d)


def _no_0d(x, msg):
    if x.ndim == 0:
        raise RuntimeError("%s: a 0-d tensor has no dim to take parts of. Fix: x.reshape(1) "
                           "first, or use the tensor itself" % msg)


@defop("chunk")
def chunk(input, chunks, dim=0):
    _no_0d(input._data, "chunk expects at least a 1-dimensional tensor")
    n = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    size = -(-n // chunks) if n else 1
    return split(input, max(size, 1), dim)


@defop("unbind")
def unbind(input, dim=0):
    """Remove ``dim``, returning a tuple of its slices (views)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    # the trailing ... keeps a 0-d slice a view (x[i] of a 1-d array is a NumPy scalar copy)
    outs = [x[(slice(None),) * d + (i, Ellipsis)] for i in range(x.shape[d])]
    return _multi(UnbindBackward0, outs, input, d)


def _narrow_backward(ctx, g):
    shape, dim, start = ctx.args
    pad = [(0, 0)] * len(shape)
    pad[dim] = (start, shape[dim] - start - g.shape[dim])
    return (g.pad_nd(pad),)


SliceBackward0 = node("SliceBackward0", _narrow_backward, saves=False)


@defop("select")
def select(input, dim, index):
    """``input[..., index, ...]`` at ``dim``: that dim removed (a view, SelectBackward0).

    Raises:
        IndexError: for an index out of range (PyTorch's message).
    """
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise IndexError("select(): index %d out of range for tensor of size %s at dimension "
                         "%d" % (index, list(x.shape), d))
    return input[(slice(None),) * d + (int(index),)]


def _diag_view(a, offset, d1, d2):
    # NumPy's diagonal is a view flagged read-only; it shares a's memory, so it
    # may be written when a may (PyTorch's diagonal is a writable view)
    v = np.diagonal(a, offset, d1, d2)
    if a.flags.writeable:
        v.flags.writeable = True
    return v


def _diagonal_backward(ctx, g):
    shape, offset, d1, d2 = ctx.args
    return (_diagonal_scatter(g, shape, offset, d1, d2),)


DiagonalBackward0 = node("DiagonalBackward0", _diagonal_backward, saves=False)


def _diagonal_np(ctx, g):
    shape, offset, d1, d2 = ctx.args
    out = np.zeros(shape, g.dtype)
    _diag_view(out, offset, d1, d2)[...] = g
    return (out,)


DiagonalBackward0.np_backward = _diagonal_np


def _scatter_backward(ctx, g):
    offset, d1, d2 = ctx.args
    return (diagonal(g, offset, d1, d2),)


DiagonalScatterBackward0 = node("DiagonalBackwardBackward0", _scatter_backward, saves=False)
DiagonalScatterBackward0.np_backward = lambda ctx, g: (np.diagonal(g, *ctx.args).copy(),)


def _diagonal_scatter(g, shape, offset, d1, d2):
    """zeros of ``shape`` with g on the diagonal: the adjoint of ``diagonal``."""
    out = np.zeros(shape, g._data.dtype)
    _diag_view(out, offset, d1, d2)[...] = g._data
    return record(DiagonalScatterBackward0, out, (g,), args=(offset, d1, d2))


@defop("diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal ``offset`` of the matrices spanned by ``dim1`` and ``dim2``, as a
    view whose last dim is the diagonal (``torch.diagonal``; DiagonalBackward0).

    Raises:
        RuntimeError: when dim1 and dim2 are the same dim.
    """
    x = input._data
    d1, d2 = _wrap_dim(dim1, x.ndim), _wrap_dim(dim2, x.ndim)
    if d1 == d2:
        raise RuntimeError("diagonal dimensions cannot be identical %d, %d" % (dim1, dim2))
    out = _diag_view(x, offset, d1, d2)
    return _as_view(record(DiagonalBackward0, out, (input,), args=(x.shape, offset, d1, d2)),
                    input)


@defop("narrow")
def narrow(input, dim, start, length):
    """The slice [start, start+length) of ``dim`` (a view)."""
    x = input._data
    _no_0d(x, "narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x.ndim)
    if start < 0:
        start += x.shape[d]
    if start < 0 or start + length > x.shape[d]:
        raise RuntimeError("start (%d) + length (%d) exceeds dimension size (%d)."
                           % (start, length, x.shape[d]))
    out = x[(slice(None),) * d + (slice(start, start + length),)]
    return _as_view(record(SliceBackward0, out, (input,), args=(x.shape, d, start)), input)


def _pad_backward(ctx, g):
    # PyTorch's constant_pad_nd_backward: the same pad, negated (crops what was added,
    # puts zeros back where the forward cropped)
    return (pad_nd(g, tuple((-lo, -hi) for lo, hi in ctx.args)),)


ConstantPadNdBackward0 = node("ConstantPadNdBackward0", _pad_backward, saves=False)


def pad_nd(input, pad_width, value=0.0):
    """Pad with a constant; ``pad_width`` is NumPy's per-dim (before, after); a negative
    width crops (as PyTorch's constant_pad_nd).

    Raises:
        RuntimeError: where cropping leaves a negative size.
    """
    x = input._data
    pad_width = tuple((int(lo), int(hi)) for lo, hi in pad_width)
    for i, (lo, hi) in enumerate(pad_width):
        if x.shape[i] + min(lo, 0) + min(hi, 0) < 0 or x.shape[i] + lo + hi < 0:
            raise RuntimeError(
                "The input size %d, plus negative padding %d and %d resulted in a negative "
                "output size, which is invalid. Check dimension %d of your input. Fix: crop "
                "at most the dim's size." % (x.shape[i], lo, hi, i))
    if any(lo < 0 or hi < 0 for lo, hi in pad_width):
        x = x[tuple(slice(max(-lo, 0), x.shape[i] - max(-hi, 0))
                    for i, (lo, hi) in enumerate(pad_width))]
    out = np.pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in pad_width], constant_values=value)
    return record(ConstantPadNdBackward0, out, (input,), args=pad_width)


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


# ------------------------------------------------- diagonals, tiling, grids
def _diag_len(shape, k):
    m, n = shape
    return max(0, min(m, n - k) if k >= 0 else min(m + k, n))


def _diag_index(shape, k):
    """Row and column indices of diagonal ``k`` of a matrix of ``shape``."""
    i = np.arange(_diag_len(shape, k))
    return (i, i + k) if k >= 0 else (i - k, i)


def _embed(v, k, shape):
    """Differentiable: a ``shape`` matrix of zeros with ``v`` on diagonal ``k``."""
    out = np.zeros(shape, v._data.dtype)
    out[_diag_index(shape, k)] = v._data
    return record(DiagEmbedBackward0, out, (v,), args=k)


def _extract(m, k):
    """Differentiable: diagonal ``k`` of the matrix ``m`` (a copy)."""
    x = m._data
    return record(DiagonalBackward0_copy, x[_diag_index(x.shape, k)], (m,),
                  args=(x.shape, k))


DiagEmbedBackward0 = node("DiagEmbedBackward0", lambda ctx, g: (_extract(g, ctx.args),), saves=False)
DiagonalBackward0_copy = node("DiagonalBackward0_copy",
                               lambda ctx, g: (_embed(g, ctx.args[1], ctx.args[0]),), saves=False)


@defop("diag", out=True)
def diag(input, diagonal=0):
    """1-D (n,) -> 2-D (n+|k|, n+|k|) with the vector on diagonal ``k``; 2-D (m, n) ->
    1-D diagonal ``k`` (empty when off the matrix). Same dtype as the input.

    The gradient of one is the other (PyTorch: DiagEmbedBackward0 /
    DiagonalBackward0_copy).

    Raises:
        RuntimeError: for an input that is not 1-D or 2-D.
    """
    nd = input._data.ndim
    k = int(diagonal)
    if nd == 1:
        n = input._data.shape[0] + abs(k)
        return _embed(input, k, (n, n))
    if nd == 2:
        return _extract(input, k)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % nd)


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


@defop("diff", out=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along ``dim``: ``x[1:] - x[:-1]`` applied ``n`` times,
    after concatenating ``prepend``/``append``; composed of narrow and sub (grad_fn
    SubBackward0 as PyTorch; bool inputs use logical_xor).

    Raises:
        RuntimeError: for a 0-d input.
    """
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(dim, input._data.ndim)
    parts = [t if isinstance(t, Tensor) else to_tensor(t) for t in (prepend, input, append)
             if t is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x._data.shape[d]
        if length == 0:
            break
        hi, lo = narrow(x, d, 1, length - 1), narrow(x, d, 0, length - 1)
        if x._data.dtype == np.bool_:
            from ..elementwise.comparison import logical_xor
            x = logical_xor(hi, lo)
        else:
            x = hi - lo
    return x


@defop("meshgrid", method=False)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D (or 0-d) tensors: ``indexing='ij'`` gives shape
    (len0, len1, ...); ``'xy'`` swaps the first two. Each grid is an expanded view
    (grad_fn ExpandBackward0). Without ``indexing``, 'ij' with PyTorch's UserWarning.

    Raises:
        RuntimeError: for an input of more than one dim, or mixed dtypes.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        _errors.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                     "indexing argument.", UserWarning)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           'received: %s' % indexing)
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               "but got: %s" % (t,))
    if len({t._data.dtype for t in tensors}) > 1:
        raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the "
                           "same dtype.")
    ts = [reshape(t, -1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t._data.shape[0] for t in ts)
    n = len(ts)
    grids = [expand(reshape(t, (1,) * i + (-1,) + (1,) * (n - i - 1)), shape)
             for i, t in enumerate(ts)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)
