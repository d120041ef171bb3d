"""Shape ops: views (reshape, view, transpose, permute, expand, select, narrow, Tensor.unfold,
meshgrid, ...) and copies (clone, contiguous, to_dtype); joins are in ``joins.py``,
splits in ``splits.py``, diagonals in ``diagonals.py``.

Views share the input's array and version counter, as in PyTorch: an
in-place change through a view is seen by its base. Every rule here is a
re-arrangement of the gradient (the inverse view, or a sum for expand).
"""

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor import meta as _meta
from ..._tensor.aten import dispatch as _dispatch, WrapperArray
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import mark_view, record
from .._registry import defop, node
from .._trace import tape as _tape




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
ViewBackward0 = node("ViewBackward0", lambda ctx, g: (g.reshape(ctx.args),), saves=False)
ViewBackward0.np_backward = lambda ctx, g: (g.reshape(ctx.args),)
# reshape's nodes where PyTorch's reshape is not a plain view: a view of a non-contiguous
# tensor (_reshape_alias), and the copy of one it cannot view (clone, then _unsafe_view)
ReshapeAliasBackward0 = type("ReshapeAliasBackward0", (ViewBackward0,), {"__slots__": ()})
_UnsafeViewBackward0 = type("UnsafeViewBackward0", (ViewBackward0,), {"__slots__": ()})


@defop("reshape")
def reshape(input, *shape):
    """Same data in a new shape (a view when possible, else a copy); one -1 is inferred.

    Raises:
        RuntimeError: when the element counts differ.
    """
    x = input._data
    shape = _infer(_sizes(shape), x.size)
    out = x.reshape(shape)
    if out.base is not None and np.shares_memory(out, x):
        res = _as_view(record(ViewBackward0 if x.flags.c_contiguous else
                              ReshapeAliasBackward0, out, (input,), args=x.shape), input)
        if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
            _tape[0].op(_reshape_np, (x, shape), res)
        return res
    if out.__class__ is not np.ndarray:      # a meta array: contiguous, a view
        return record(ViewBackward0, out, (input,), args=x.shape)
    # a copy, recorded as PyTorch's: a contiguous clone, then _unsafe_view of it
    c = record(CloneBackward0, np.ascontiguousarray(x), (input,))
    return record(_UnsafeViewBackward0, out, (c,), args=x.shape)


@defop("view", function=False)
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
    res = _as_view(record(ViewBackward0, out, (input,), args=x.shape), input)
    if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
        _tape[0].op(_reshape_np, (x, shape), res)
    return res


def _reshape_np(x, shape):
    """reshape's and view's kernel where they give a view (replayed on the same layout)."""
    return x.reshape(shape)


@defop("ravel")
def ravel(input):
    """The elements as one dim (a view when the layout allows, else a copy), as reshape(-1)."""
    return reshape(input, -1)


@defop("flatten")
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


@defop("unflatten")
def unflatten(input, dim, sizes):
    x = input._data
    if x.ndim == 0:
        _wrap_dim(dim, 0)       # an out-of-range dim is an IndexError first
        raise RuntimeError("unflatten: a 0-d tensor has no dim to unflatten. Fix: "
                           "x.reshape(sizes) instead")
    d = _wrap_dim(dim, x.ndim)
    sizes = _infer(tuple(sizes), x.shape[d])
    return reshape(input, x.shape[:d] + sizes + x.shape[d + 1:])


def _transpose_backward(ctx, g):
    d0, d1 = ctx.args
    return (g.transpose(d0, d1),)


TransposeBackward0 = node("TransposeBackward0", _transpose_backward, saves=False)
TBackward0 = node("TBackward0", lambda ctx, g: (g.t(),), saves=False)


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


@defop("transpose", aliases=("swapaxes", "swapdims"), inplace="view")
def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    x = input._data
    d0, d1 = _wrap_dim(dim0, x.ndim), _wrap_dim(dim1, x.ndim)    # a 0-d tensor takes -1 and 0
    if x.ndim == 0:
        return _as_view(record(TransposeBackward0, x, (input,), args=(0, 0)), input)
    return _as_view(record(TransposeBackward0, np.swapaxes(x, d0, d1), (input,), args=(d0, d1)),
                    input)


@defop("t", inplace="view")
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


PermuteBackward0 = node("PermuteBackward0", _permute_backward, saves=False)


@defop("permute")
def permute(input, *dims):
    """Reorder dims (a view)."""
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    x = input._data
    dims = _sizes(dims)
    if len(dims) != x.ndim:     # PyTorch checks the length before the dims' range
        dims = (0,) * len(dims)
    else:
        dims = tuple(_wrap_dim(d, x.ndim) for d in dims)
    if sorted(dims) != list(range(x.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           "input.dim() = %d is not equal to len(dims) = %d" % (x.ndim, len(dims)))
    return _as_view(record(PermuteBackward0, x.transpose(dims), (input,), args=dims), input)


def T(input):
    x = input._data
    if x.ndim not in (0, 2):
        _errors.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                     "shape is deprecated and it will throw an error in a future release. "
                     "Consider `x.mT` to transpose batches of matrices or `x.permute(*torch."
                     "arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                     UserWarning)
    return permute(input, tuple(range(x.ndim - 1, -1, -1)))


def mT(input, _name="mT"):
    """The last two dims swapped (a view). Raises RuntimeError below 2-D, as PyTorch."""
    if input.ndim < 2:
        raise RuntimeError(_errors.matrix_attr(_name, input.ndim))
    return transpose(input, -2, -1)


def mH(input):
    """The last two dims swapped and, for complex dtypes, conjugated (``mT`` on real ones)."""
    out = mT(input, "mH")
    return out.conj() if out._data.dtype.kind == "c" else out


def H(input):
    """``T`` and, for complex dtypes, conjugated (``Tensor.H``)."""
    out = T(input)
    return out.conj() if out._data.dtype.kind == "c" else out


UnsqueezeBackward0 = node("UnsqueezeBackward0", lambda ctx, g: (g.squeeze(ctx.args),), saves=False)
UnsqueezeBackward0.np_backward = lambda ctx, g: (np.squeeze(g, ctx.args),)


@defop("unsqueeze", inplace="view")
def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim`` (a view)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim + 1)
    return _as_view(record(UnsqueezeBackward0, np.expand_dims(x, d), (input,), args=d), input)


SqueezeBackward0 = node("SqueezeBackward0", lambda ctx, g: (g.reshape(ctx.args),), saves=False)
SqueezeBackward0.np_backward = lambda ctx, g: (np.reshape(g, ctx.args),)
# PyTorch's names: squeeze() / squeeze(dim) / squeeze(dims)
SqueezeBackward1 = type("SqueezeBackward1", (SqueezeBackward0,), {"__slots__": ()})
SqueezeBackward2 = type("SqueezeBackward2", (SqueezeBackward0,), {"__slots__": ()})


@defop("squeeze", inplace="view")
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


ExpandBackward0 = node("ExpandBackward0", _expand_backward, saves=False)


@defop("expand", function=False)
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
    # PyTorch's strides: 0 for new dims and expanded size-1 dims, the others kept (NumPy
    # gives every size-1 dim 0); writable where no element is twice in memory (an empty
    # result, or no dim of size > 1 expanded), as PyTorch's in-place ops allow it
    if out.__class__ is np.ndarray and (1 in x.shape or not out.size or not any(
            n > 1 for n in shape[:lead])):
        # (else NumPy's strides are PyTorch's and elements are shared: kept as is)
        st = tuple(0 if i < lead or (x.shape[i - lead] == 1 and s != 1) else x.strides[i - lead]
                   for i, s in enumerate(shape))
        writeable = x.flags.writeable and (
            out.size == 0 or not any(t == 0 and n > 1 for n, t in zip(shape, st)))
        if writeable or st != out.strides:
            out = np.lib.stride_tricks.as_strided(x, shape, st, writeable=writeable)
    return _as_view(record(ExpandBackward0, out, (input,), args=x.shape), input)


@defop("expand_as", function=False)
def expand_as(input, other):
    return expand(input, other.shape)


@defop("broadcast_to")
def broadcast_to(input, size):
    return expand(input, size)


@defop("broadcast_tensors", method=False)
def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape; one already of that shape is returned
    itself (as PyTorch).

    Raises:
        RuntimeError: shapes that do not broadcast (the first such pair named).
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shapes = [t._data.shape for t in tensors]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        from ..._core import errors as _errors
        acc = ()
        for s in shapes:
            try:
                acc = np.broadcast_shapes(acc, s)
            except ValueError:
                raise _errors.broadcast(acc, s) from None
        raise
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


@defop("broadcast_shapes", method=False)
def broadcast_shapes(*shapes):
    from ..._tensor.tensor import Size
    try:
        return Size(np.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape: %s"
                           % (list(shapes),)) from None


SumToSizeBackward = node("SumBackward1", lambda ctx, g: (g.expand(ctx.args),), saves=False)


@defop("sum_to_size", function=False)
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
CloneBackward0 = node("CloneBackward0", lambda ctx, g: (g,), saves=False)
CloneBackward0.np_backward = lambda ctx, g: (g,)


@defop("clone")
def clone(input, memory_format=None):
    """A copy that stays in the graph (gradient flows back unchanged)."""
    if input._data.__class__ is WrapperArray:   # a wrapper subclass: its __torch_dispatch__
        return _dispatch(input, "clone", (input,), {})
    return record(CloneBackward0, input._data.copy(order="K"), (input,))


@defop("contiguous", function=False)
def contiguous(input, memory_format=None):
    """``input`` if it is laid out contiguously, else a contiguous copy."""
    x = input._data
    if x.flags.c_contiguous:
        return input
    out = x.copy() if x.__class__ is _meta.MetaArray else np.ascontiguousarray(x)
    return record(CloneBackward0, out, (input,))


def _to_copy_backward(ctx, g):
    if g.is_complex() and not ctx.args.is_complex:
        g = g.real      # a real input's gradient: the real part (PyTorch's handle_r_to_c)
    return (g.to(ctx.args),)


ToCopyBackward0 = node("ToCopyBackward0", _to_copy_backward, saves=False)


def to_dtype(input, dtype, copy=False):
    """Cast to ``dtype`` (same tensor when already that dtype and not ``copy``)."""
    if input._data.dtype == dtype.np and not copy:
        return input
    if input._data.__class__ is WrapperArray:   # a wrapper subclass: its __torch_dispatch__
        return _dispatch(input, "_to_copy", (input,), {"dtype": dtype})
    if not dtype.is_floating_point and not dtype.is_complex:
        return Tensor._make_plain(_cast(input._data, dtype.np))
    from ..._core.dtype import from_numpy_dtype
    return record(ToCopyBackward0, _cast(input._data, dtype.np), (input,),
                  args=from_numpy_dtype(input._data.dtype))


def _cast(x, npd):
    if x.dtype.kind == "f" and npd.kind in "iu":
        with _quiet():
            return np.trunc(x).astype(npd)
    return x.astype(npd)


def _no_0d(x, msg):
    if x.ndim == 0:
        raise RuntimeError("%s: a 0-d tensor has no dim to take parts of. Fix: x.reshape(1) "
                           "first, or use the tensor itself" % msg)


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


# ------------------------------------------------------------------- unfold
def _unfold_backward(ctx, g):
    from ..._tensor.creation import zeros
    shape, d, idx = ctx.args
    if d is None:       # a 0-d input: (size,) windows of its one element
        return (g.sum(),)
    nw, size = idx.shape
    gm = g.movedim(-1, d + 1)
    gm = gm.reshape(shape[:d] + (nw * size,) + shape[d + 1:])
    z = zeros(shape, dtype=g.dtype)
    return (z.index_add(d, Tensor._make_plain(idx.reshape(-1)), gm),)


UnfoldBackward0 = node("UnfoldBackward0", _unfold_backward, saves=False)


@defop("unfold", function=False)
def unfold(self, dimension, size, step):
    """``Tensor.unfold``: the windows of length ``size`` along ``dimension``, ``step``
    apart, as a view: that dim becomes the number of windows ``(n - size) // step + 1``
    and a last dim of length ``size`` is added.

    Raises:
        RuntimeError: ``size`` larger than the dim, or ``step`` not positive.
    """
    x = self._data
    n = x.shape[_wrap_dim(dimension, x.ndim)] if x.ndim else 1
    d = _wrap_dim(dimension, x.ndim) if x.ndim else None
    if size > n:
        raise RuntimeError("maximum size for tensor at dimension %d is %d but size is %d. "
                           "Fix: size <= x.shape[dim]" % (d or 0, n, size))
    if step <= 0:
        raise RuntimeError("step is %d but must be > 0. Fix: a positive step" % step)
    if size < 0:
        raise RuntimeError("size is %d but must be >= 0" % size)
    if d is None:
        out = x.reshape(1)[:size]
        return mark_view(record(UnfoldBackward0, out, (self,), args=((), None, None)), self)
    nw = (n - size) // step + 1
    st = x.strides
    shape = x.shape[:d] + (nw,) + x.shape[d + 1:] + (size,)
    strides = st[:d] + (st[d] * step,) + st[d + 1:] + (st[d],)
    if x.__class__ is _meta.MetaArray:
        out = _meta.strided(x, shape, strides)
    else:
        out = np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)
    idx = np.arange(nw)[:, None] * step + np.arange(size)[None, :]
    return mark_view(record(UnfoldBackward0, out, (self,), args=(x.shape, d, idx)), self)


# -------------------------------------------------------------- as_strided
def _storage_positions(shape, strides, offset):
    """The storage index (in elements) of every element of a (shape, strides, offset) view."""
    idx = np.full(tuple(shape), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        step = [1] * len(shape)
        step[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(step)
    return idx


def _as_strided_backward(ctx, g):
    # PyTorch's as_strided_backward (FunctionsManual.cpp): add the gradient into a zero
    # storage at the output's positions, read it out at the input's, dividing where the
    # input itself used one storage element several times (an expanded input)
    from ..._tensor.creation import zeros
    in_idx, out_idx, count = ctx.args
    n = int(max(in_idx.max(initial=-1), out_idx.max(initial=-1))) + 1
    storage = zeros(n, dtype=g.dtype).index_add(
        0, Tensor._make_plain(out_idx.reshape(-1)), g.reshape(-1))
    grad = storage[Tensor._make_plain(in_idx)]
    return (grad if count is None else grad / Tensor._make_plain(count),)


def _as_strided_np_backward(ctx, g):
    in_idx, out_idx, count = ctx.args
    n = int(max(in_idx.max(initial=-1), out_idx.max(initial=-1))) + 1
    storage = np.zeros(n, dtype=g.dtype)
    np.add.at(storage, out_idx.reshape(-1), np.asarray(g).reshape(-1))
    grad = storage[in_idx]
    return (grad if count is None else grad / count,)


AsStridedBackward0 = node("AsStridedBackward0", _as_strided_backward, saves=False)
AsStridedBackward0.np_backward = _as_strided_np_backward


@defop("as_strided", inplace="view")
def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage with the given ``size``, ``stride`` (in elements) and
    ``storage_offset`` (default: ``input``'s own), as ``torch.as_strided``: positions are
    counted in the storage, not in ``input``'s own layout. Elements may overlap.

    The gradient is PyTorch's ``AsStridedBackward0``: summed into the storage positions the
    output reads, then taken at ``input``'s positions (divided by how many times ``input``
    itself reads each one, where it overlaps).

    Raises:
        RuntimeError: ``size`` and ``stride`` of different lengths, a negative stride, a
            negative offset, or a view that reaches past the end of the storage (PyTorch's
            ``setStorage: ... out of bounds`` message).
    """
    from ..._tensor.storage import _root, _address
    x = input._data
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    meta = x.__class__ is _meta.MetaArray
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape. Fix: give one stride per "
                           "dimension (got %d sizes and %d strides)" % (len(size), len(stride)))
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           "strides: %s. Fix: use .flip() for a reversed view" % list(stride))
    item = x.itemsize
    root = x if meta else _root(x)
    own_offset = x.offset_bytes // item if meta else (_address(x) - _address(root)) // item
    offset = own_offset if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError("Tensor: invalid storage offset %d. Fix: an offset >= 0" % offset)
    if meta:
        # PyTorch's meta storage grows to what the view needs (it has no bytes to overrun)
        need = 0 if 0 in size else (offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)))
        out = _meta.MetaArray(size, x.dtype, tuple(s * item for s in stride), offset * item,
                              max(x.storage_nbytes, need * item))
        return mark_view(record(AsStridedBackward0, out, (input,)), input)
    have = root.nbytes // item
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > have:
        raise RuntimeError(
            "setStorage: sizes %s, strides %s, storage offset %d, and itemsize %d requiring a "
            "storage size of %d are out of bounds for storage of size %d. Fix: keep "
            "offset + sum((size - 1) * stride) below the storage's %d elements"
            % (list(size), list(stride), offset, item, need * item, have * item, have))
    flat = root.reshape(-1, order="A").view(np.uint8).view(x.dtype)
    out = np.lib.stride_tricks.as_strided(flat[min(offset, have):], size,
                                          tuple(s * item for s in stride),
                                          writeable=x.flags.writeable)
    args = None
    if input.requires_grad:
        in_idx = _storage_positions(x.shape, tuple(s // item for s in x.strides), own_offset)
        count = np.bincount(in_idx.reshape(-1))[in_idx] if in_idx.size else None
        count = None if count is None or (count == 1).all() else count.astype(x.dtype)
        args = (in_idx, _storage_positions(size, stride, offset), count)
    return mark_view(record(AsStridedBackward0, out, (input,), args=args), input)
