"""The view scatters: slice_scatter, select_scatter, diagonal_scatter.

Each is a copy of ``input`` with ``src`` written into one view of it (a slice, a
select, a diagonal), in ``input``'s dtype (``src`` is cast, as PyTorch). Gradients
(derivatives.yaml): ``input`` gets the gradient with that view zeroed (the same scatter
of zeros), ``src`` gets the gradient's view (in ``src``'s dtype); both are recorded
ops, so they differentiate again.
"""

import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor, _wrap_dim
from .._dispatch import record
from .._registry import defop, node
from .diagonals import _diag_view


def _view_of(a, kind, params):
    """The view of array ``a`` that ``kind`` (slice / select / diagonal) names."""
    if kind == "diagonal":
        offset, d1, d2 = params
        return _diag_view(a, offset, d1, d2)
    dim, key = params
    return a[(slice(None),) * dim + (key, Ellipsis)]   # a 0-d view for a select of 1-D


def _tensor_view(g, kind, params):
    if kind == "diagonal":
        return g.diagonal(*params)
    dim, key = params
    if kind == "select":
        return g.select(dim, key)
    return g[(slice(None),) * dim + (key,)]


def _view_scatter_backward(ctx, g):
    kind, params, sdtype = ctx.args
    nin, nsrc = ctx.needs_input_grad
    gin = gsrc = None
    view = _tensor_view(g, kind, params)
    if nin:
        gin = _scatter(g, Tensor._make_plain(np.zeros(view.shape, g._data.dtype)), kind, params)
    if nsrc:
        gsrc = view if view.dtype == sdtype else view.to(sdtype)
    return gin, gsrc


SliceScatterBackward0 = node("SliceScatterBackward0", _view_scatter_backward, saves=False)
SelectScatterBackward0 = node("SelectScatterBackward0", _view_scatter_backward, saves=False)
DiagonalScatterBackward0 = node("DiagonalScatterBackward0", _view_scatter_backward, saves=False)
_NODES = {"slice": SliceScatterBackward0, "select": SelectScatterBackward0,
          "diagonal": DiagonalScatterBackward0}


def _scatter(input, src, kind, params):
    x, s = input._data, src._data
    out = x.copy()
    view = _view_of(out, kind, params)
    if view.shape != s.shape:
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           "%s, slice size = %s. Fix: give src the shape of that %s of input"
                           % (list(s.shape), list(view.shape), kind))
    if x.dtype.kind != "c" and s.dtype.kind == "c":
        s = s.real
    view[...] = s
    return record(_NODES[kind], out, (input, src), args=(kind, params, src.dtype))


def _check(fname, input, src):
    for i, (name, a) in enumerate((("input", input), ("src", src))):
        if not isinstance(a, Tensor):
            raise _errors.not_a_tensor(fname, name, i + 1, a)


def _dim_of(fname, input, dim):
    if input.ndim == 0:
        raise IndexError("%s() cannot be applied to a 0-dim tensor. Fix: reshape input to "
                         "at least 1 dim" % fname)
    return _wrap_dim(dim, input.ndim)


@defop("slice_scatter", out=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """Copy of ``input`` with ``src`` written into ``input[..., start:end:step]`` (the
    slice along ``dim``). SliceScatterBackward0.

    Raises:
        TypeError: input or src not a tensor. IndexError: a 0-dim input or dim out of
        range. RuntimeError: a step < 1, or src not the shape of the slice.
    """
    _check("slice_scatter", input, src)
    d = _dim_of("slice", input, dim)
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice step must be positive. Fix: pass step >= 1 (flip the "
                           "tensor for a reversed slice)")
    return _scatter(input, src, "slice", (d, slice(start, end, step)))


@defop("select_scatter")   # no out= in PyTorch's Python binding
def select_scatter(input, src, dim, index):
    """Copy of ``input`` with ``src`` written into ``input.select(dim, index)``.
    SelectScatterBackward0.

    Raises:
        TypeError: input or src not a tensor. IndexError: a 0-dim input, dim or index out
        of range. RuntimeError: src not the shape of the selected slice.
    """
    _check("select_scatter", input, src)
    d = _dim_of("select", input, dim)
    n = input.shape[d]
    i = int(index)
    if not -n <= i < n:
        raise IndexError("select(): index %d out of range for tensor of size %s at dimension "
                         "%d. Fix: pass an index in [-%d, %d]" % (i, list(input.shape), d, n,
                                                                   n - 1))
    return _scatter(input, src, "select", (d, i % n))


@defop("diagonal_scatter")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """Copy of ``input`` with ``src`` written into ``input.diagonal(offset, dim1, dim2)``.
    DiagonalScatterBackward0.

    Raises:
        TypeError: input or src not a tensor. IndexError: a dim out of range.
        RuntimeError: dim1 == dim2, or src not the shape of the diagonal.
    """
    _check("diagonal_scatter", input, src)
    nd = input.ndim
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError("diagonal dimensions cannot be identical %d, %d. Fix: pass two "
                           "different dims" % (dim1, dim2))
    return _scatter(input, src, "diagonal", (int(offset), d1, d2))
