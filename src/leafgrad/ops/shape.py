"""Shape ops: views (reshape, transpose, permute, expand, ...), joins and splits.

Views share the input's array and version counter, as in PyTorch: an
in-place change through a view is seen by its base. Every rule here is a
re-arrangement of the gradient (the inverse view, or a sum for expand).
"""
import warnings

import numpy as np

from .._dtype import result_type

from .._tensor import Tensor, _wrap_dim
from ..autograd.graph import Node
from .._quiet import quiet as _quiet
from ._dispatch import mark_view, record, record_multi, to_tensor


def _node(name, backward, saves=False, slots=()):
    return type(name, (Node,), {"__slots__": slots, "saves": saves, "backward": backward})


def _as_view(res, base, multi=None):
    """Make ``res`` share ``base``'s version counter (it shares its memory)."""
    return mark_view(res, base, multi)


def _sizes(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(int(a) for a in args)


def _infer(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if neg:
        rest = 1
        for i, s in enumerate(shape):
            if i != neg[0]:
                rest *= s
        if rest == 0 or numel % rest:
            raise RuntimeError("shape '%s' is invalid for input of size %d" % (list(shape), numel))
        shape[neg[0]] = numel // rest
    n = 1
    for s in shape:
        n *= s
    if n != numel or any(s < 0 for s in shape):
        raise RuntimeError(
            "shape '%s' is invalid for input of size %d: the new shape must hold exactly as "
            "many elements as the tensor has (%d)." % (list(shape), numel, numel))
    return tuple(shape)


# ------------------------------------------------------------------- views
ViewBackward0 = _node("ViewBackward0", lambda ctx, g: (g.reshape(ctx.args),))
ViewBackward0.np_backward = lambda ctx, g: (g.reshape(ctx.args),)


def reshape(input, *shape):
    """Same data in a new shape (a view when possible, else a copy); one -1 is inferred.

    Raises:
        RuntimeError: when the element counts differ.
    """
    x = input._data
    shape = _infer(_sizes(shape), x.size)
    out = x.reshape(shape)
    res = record(ViewBackward0, out, (input,), args=x.shape)
    if out.base is not None and np.shares_memory(out, x):
        _as_view(res, input)
    return res


def view(input, *shape):
    """A view with a new shape; never copies.

    Raises:
        RuntimeError: when the sizes do not match, or when the tensor's memory
            layout (e.g. after ``.t()``) cannot be viewed in the new shape; use
            ``.reshape()`` or ``.contiguous().view()`` then.
    """
    x = input._data
    if len(shape) == 1 and hasattr(shape[0], "np"):   # view(dtype): reinterpret bits
        return Tensor._make_plain(x.view(shape[0].np))
    shape = _infer(_sizes(shape), x.size)
    try:
        out = x.reshape(shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces): this tensor of shape %s is not "
            "laid out contiguously in memory (e.g. after .t() or .transpose()). Use "
            ".reshape(...) instead, or call .contiguous() before .view()."
            % (tuple(x.shape),)) from None
    return _as_view(record(ViewBackward0, out, (input,), args=x.shape), input)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (a view when possible)."""
    x = input._data
    if x.ndim == 0:
        _wrap_dim(start_dim, 0), _wrap_dim(end_dim, 0)     # -1 and 0 only, as PyTorch
        return reshape(input, 1)
    s, e = _wrap_dim(start_dim, x.ndim), _wrap_dim(end_dim, x.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return reshape(input, x.shape[:s] + (n,) + x.shape[e + 1:])


def unflatten(input, dim, sizes):
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    sizes = _infer(tuple(sizes), x.shape[d])
    return reshape(input, x.shape[:d] + sizes + x.shape[d + 1:])


def _transpose_backward(ctx, g):
    d0, d1 = ctx.args
    return (g.transpose(d0, d1),)


TransposeBackward0 = _node("TransposeBackward0", _transpose_backward)
TBackward0 = _node("TBackward0", lambda ctx, g: (g.t(),))


def _t_np(ctx, g):
    t = g.T
    b = t.base
    # g is the transpose of a whole C-ordered array (nn.Linear's rule hands its
    # weight gradient over that way): pass that array on, which AccumulateGrad
    # keeps without a copy (a view is copied: 4 MB per 1024x1024 weight per step)
    if b is not None and t.flags.c_contiguous and b.shape == t.shape \
            and b.flags.c_contiguous and b.dtype == t.dtype:
        return (b,)
    return (t,)


TBackward0.np_backward = _t_np


def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    x = input._data
    d0, d1 = _wrap_dim(dim0, x.ndim), _wrap_dim(dim1, x.ndim)    # a 0-d tensor takes -1 and 0
    if x.ndim == 0:
        return _as_view(record(TransposeBackward0, x, (input,), args=(0, 0)), input)
    return _as_view(record(TransposeBackward0, np.swapaxes(x, d0, d1), (input,), args=(d0, d1)),
                    input)


def t(input):
    """Transpose a tensor of at most 2 dims (a view).

    Raises:
        RuntimeError: for more than 2 dims (use transpose or mT).
    """
    x = input._data
    if x.ndim > 2:
        raise RuntimeError("t() expects a tensor with <= 2 dimensions, but self is %dD. Use "
                           ".transpose(dim0, dim1) or .mT for batches of matrices." % x.ndim)
    return _as_view(record(TBackward0, x.T, (input,)), input)


def _permute_backward(ctx, g):
    return (g.permute(tuple(np.argsort(ctx.args).tolist())),)


PermuteBackward0 = _node("PermuteBackward0", _permute_backward)


def permute(input, *dims):
    """Reorder dims (a view)."""
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    x = input._data
    dims = tuple(_wrap_dim(d, x.ndim) for d in _sizes(dims))
    if sorted(dims) != list(range(x.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           "input.dim() = %d is not equal to len(dims) = %d" % (x.ndim, len(dims)))
    return _as_view(record(PermuteBackward0, x.transpose(dims), (input,), args=dims), input)


def T(input):
    x = input._data
    if x.ndim not in (0, 2):
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or `x.permute(*torch."
                      "arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                      UserWarning, stacklevel=2)
    return permute(input, tuple(range(x.ndim - 1, -1, -1)))


def mT(input):
    return transpose(input, -2, -1)


UnsqueezeBackward0 = _node("UnsqueezeBackward0", lambda ctx, g: (g.squeeze(ctx.args),))
UnsqueezeBackward0.np_backward = lambda ctx, g: (np.squeeze(g, ctx.args),)


def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim`` (a view)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim + 1)
    return _as_view(record(UnsqueezeBackward0, np.expand_dims(x, d), (input,), args=d), input)


SqueezeBackward0 = _node("SqueezeBackward0", lambda ctx, g: (g.reshape(ctx.args),))
SqueezeBackward0.np_backward = lambda ctx, g: (np.reshape(g, ctx.args),)
# PyTorch's names: squeeze() / squeeze(dim) / squeeze(dims)
SqueezeBackward1 = type("SqueezeBackward1", (SqueezeBackward0,), {"__slots__": ()})
SqueezeBackward2 = type("SqueezeBackward2", (SqueezeBackward0,), {"__slots__": ()})


def squeeze(input, dim=None):
    """Remove size-1 dims (all, or only ``dim``, which may be a tuple); a view."""
    x = input._data
    if dim is None:
        axes = tuple(i for i, s in enumerate(x.shape) if s == 1)
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        axes = tuple(_wrap_dim(d, x.ndim) for d in dims if x.ndim and x.shape[_wrap_dim(d, x.ndim)] == 1)
        if x.ndim == 0:
            for d in dims:
                _wrap_dim(d, 0)
    cls = SqueezeBackward0 if dim is None else \
        SqueezeBackward2 if isinstance(dim, (tuple, list)) else SqueezeBackward1
    return _as_view(record(cls, np.squeeze(x, axes), (input,), args=x.shape), input)


def _expand_backward(ctx, g):
    return (g.sum_to_size(ctx.args),)


ExpandBackward0 = _node("ExpandBackward0", _expand_backward)


def expand(input, *sizes):
    """Broadcast to a larger shape without copying (-1 keeps a dim)."""
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    x = input._data
    sizes = _sizes(sizes)
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise RuntimeError(
            "expand(torch.FloatTensor{%s}, size=%s): the number of sizes provided (%d) must be "
            "greater or equal to the number of dimensions in the tensor (%d)"
            % (list(x.shape), list(sizes), len(sizes), x.ndim))
    shape = tuple(x.shape[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(sizes))
    try:
        out = np.broadcast_to(x, shape)
    except ValueError:
        raise RuntimeError(
            "The expanded size of the tensor must match the existing size at a non-singleton "
            "dimension: cannot expand shape %s to %s. Only dimensions of size 1 can be expanded."
            % (list(x.shape), list(shape))) from None
    return _as_view(record(ExpandBackward0, out, (input,), args=x.shape), input)


def expand_as(input, other):
    return expand(input, other.shape)


def broadcast_to(input, size):
    return expand(input, size)


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*[t._data.shape for t in tensors])
    return tuple(expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    from .._tensor import Size
    try:
        return Size(np.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape: %s"
                           % (list(shapes),)) from None


SumToSizeBackward = _node("SumBackward1", lambda ctx, g: (g.expand(ctx.args),))


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (the reverse of broadcasting); used by the engine.

    Raises:
        RuntimeError: when ``size`` is not broadcastable to the input's shape.
    """
    x = input._data
    size = _sizes(size)
    if x.shape == size:
        return input
    lead = x.ndim - len(size)
    if lead < 0 or any(s != 1 and s != x.shape[i + lead] for i, s in enumerate(size)):
        raise RuntimeError("size {%s} is not expandable to size {%s}."
                           % (", ".join(map(str, size)), ", ".join(map(str, x.shape))))
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(size)
                                      if s == 1 and x.shape[i + lead] != 1)
    out = x.sum(axis=axes, keepdims=True) if axes else x
    if lead:
        out = out.reshape(size)
    return record(SumToSizeBackward, out, (input,), args=x.shape)


# ------------------------------------------------------------------ copies
CloneBackward0 = _node("CloneBackward0", lambda ctx, g: (g,))
CloneBackward0.np_backward = lambda ctx, g: (g,)


def clone(input, memory_format=None):
    """A copy that stays in the graph (gradient flows back unchanged)."""
    return record(CloneBackward0, np.array(input._data, copy=True), (input,))


def contiguous(input, memory_format=None):
    """``input`` if it is laid out contiguously, else a contiguous copy."""
    if input._data.flags.c_contiguous:
        return input
    return record(CloneBackward0, np.ascontiguousarray(input._data), (input,))


def _to_copy_backward(ctx, g):
    return (g.to(ctx.args),)


ToCopyBackward0 = _node("ToCopyBackward0", _to_copy_backward)


def to_dtype(input, dtype, copy=False):
    """Cast to ``dtype`` (same tensor when already that dtype and not ``copy``)."""
    if input._data.dtype == dtype.np and not copy:
        return input
    if not dtype.is_floating_point and not dtype.is_complex:
        return Tensor._make_plain(_cast(input._data, dtype.np))
    from .._dtype import from_numpy_dtype
    return record(ToCopyBackward0, _cast(input._data, dtype.np), (input,),
                  args=from_numpy_dtype(input._data.dtype))


def _cast(x, npd):
    if x.dtype.kind == "f" and npd.kind in "iu":
        with _quiet():
            return np.trunc(x).astype(npd)
    return x.astype(npd)


# ---------------------------------------------------------- joins & splits
def _cat_backward(ctx, g):
    dim, sizes = ctx.args
    out, start = [], 0
    for s, need in zip(sizes, ctx.needs_input_grad):
        out.append(g.narrow(dim, start, s) if need else None)
        start += s
    return tuple(out)


CatBackward0 = _node("CatBackward0", _cat_backward)


def cat(tensors, dim=0):
    """Join tensors along an existing dim.

    Raises:
        RuntimeError: for an empty list or mismatched shapes outside ``dim``.
    """
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


StackBackward0 = _node("StackBackward0", _stack_backward)


def stack(tensors, dim=0):
    """Join same-shape tensors along a new dim.

    Raises:
        RuntimeError: when the shapes differ.
    """
    tensors = [to_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {t._data.shape for t in tensors}
    if len(shapes) > 1:
        raise RuntimeError("stack expects each tensor to be equal size, but got %s"
                           % " and ".join(str(list(t.shape)) for t in tensors[:2]))
    d = _wrap_dim(dim, tensors[0]._data.ndim + 1)
    from .._dtype import result_type
    npd = result_type(*tensors).np
    out = np.stack([t._data.astype(npd, copy=False) for t in tensors], axis=d)
    return record(StackBackward0, out, tuple(tensors), args=d)


def hstack(tensors):
    """Concatenate along dim 1 (dim 0 for 1-d tensors), after PyTorch's atleast_1d."""
    tensors = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors and tensors[0].dim() == 1 else 1)


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


def _multi(cls, outs, input, dim):
    res = record_multi(cls, outs, (input,), args=dim)
    node = res[0]._grad_fn if res else None
    if node is not None:
        node.n_outputs = len(outs)
        node.out_metas = tuple((o.shape, o.dtype) for o in outs)
        multi = cls.__name__[:-len("Backward0")]
        for r in res:
            _as_view(r, input, multi)
    return res


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


def chunk(input, chunks, dim=0):
    _no_0d(input._data, "chunk expects at least a 1-dimensional tensor")
    n = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    size = -(-n // chunks) if n else 1
    return split(input, max(size, 1), dim)


def unbind(input, dim=0):
    """Remove ``dim``, returning a tuple of its slices (views)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    outs = [x[(slice(None),) * d + (i,)] for i in range(x.shape[d])]
    return _multi(UnbindBackward0, outs, input, d)


def _narrow_backward(ctx, g):
    shape, dim, start = ctx.args
    pad = [(0, 0)] * len(shape)
    pad[dim] = (start, shape[dim] - start - g.shape[dim])
    return (g.pad_nd(pad),)


SliceBackward0 = _node("SliceBackward0", _narrow_backward)


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


DiagonalBackward0 = _node("DiagonalBackward0", _diagonal_backward)


def _diagonal_np(ctx, g):
    shape, offset, d1, d2 = ctx.args
    out = np.zeros(shape, g.dtype)
    _diag_view(out, offset, d1, d2)[...] = g
    return (out,)


DiagonalBackward0.np_backward = _diagonal_np


def _scatter_backward(ctx, g):
    offset, d1, d2 = ctx.args
    return (diagonal(g, offset, d1, d2),)


DiagonalScatterBackward0 = _node("DiagonalBackwardBackward0", _scatter_backward)
DiagonalScatterBackward0.np_backward = lambda ctx, g: (np.diagonal(g, *ctx.args).copy(),)


def _diagonal_scatter(g, shape, offset, d1, d2):
    """zeros of ``shape`` with g on the diagonal: the adjoint of ``diagonal``."""
    out = np.zeros(shape, g._data.dtype)
    _diag_view(out, offset, d1, d2)[...] = g._data
    return record(DiagonalScatterBackward0, out, (g,), args=(offset, d1, d2))


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


ConstantPadNdBackward0 = _node("ConstantPadNdBackward0", _pad_backward)


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


FlipBackward0 = _node("FlipBackward0", _flip_backward)


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


RepeatBackward0 = _node("RepeatBackward0", _repeat_backward)


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


RollBackward0 = _node("RollBackward0", _roll_backward)


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


DiagEmbedBackward0 = _node("DiagEmbedBackward0", lambda ctx, g: (_extract(g, ctx.args),))
DiagonalBackward0_copy = _node("DiagonalBackward0_copy",
                               lambda ctx, g: (_embed(g, ctx.args[1], ctx.args[0]),))


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
        return reshape(e, x.shape[:d] + (x.shape[d] * repeats,) + x.shape[d + 1:])
    r = np.asarray(repeats._data if isinstance(repeats, Tensor) else repeats).reshape(-1)
    if r.size != x.shape[d]:
        raise RuntimeError("repeats must have the same size as input along dim, but got "
                           "repeats.size(0) = %d and input.size(%d) = %d"
                           % (r.size, d, x.shape[d]))
    if (r < 0).any():
        raise RuntimeError("Repeats must be non-negative")
    from .indexing import index_select
    return index_select(input, d, np.repeat(np.arange(x.shape[d]), r))


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
            from .elementwise import logical_xor
            x = logical_xor(hi, lo)
        else:
            x = hi - lo
    return x


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
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
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
