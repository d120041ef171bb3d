"""``torch.gradient``: the derivative of sampled values along each dim, by second-order
central differences inside and one- or two-sided differences at the edges
(``edge_order`` 1 or 2), as ATen's ``gradient`` (ReduceOps.cpp): its overloads (spacing
a number, a list of numbers, or a list of 1-D coordinate tensors; ``dim`` an int, a list
or None; all keyword-only), its checks in its order, and its formulas term by term
(``gradient_helper_float`` for uniform spacing, ``gradient_helper`` for coordinates), so
float32 results round as PyTorch's. Written with recorded ops (narrow, arithmetic, cat):
it differentiates to any order.
"""
import numbers

from ..._tensor.tensor import Tensor, _wrap_dim
from .._registry import defop
from ..shape.joins import cat

_OVERLOADS = (" * (Tensor input, *, tuple of ints dim, int edge_order = 1)\n"
              " * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)\n"
              " * (Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)\n"
              " * (Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)\n"
              " * (Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)")


def _scalar(v):
    return (isinstance(v, numbers.Number) and not isinstance(v, bool)) or (
        isinstance(v, Tensor) and v.dim() == 0)


def _spacing(spacing, dims):
    """(kind, values, n): 'scalar' with one number per dim, or 'tensor' with the
    coordinates; ``n`` the spacing length ATen checks (None for a single number)."""
    if spacing is None:
        return "scalar", [1.0] * len(dims), None
    if _scalar(spacing):
        s = spacing.item() if isinstance(spacing, Tensor) else spacing
        return "scalar", [s] * len(dims), None
    if not isinstance(spacing, (list, tuple)):
        raise TypeError("gradient() received an invalid combination of arguments - got spacing "
                        "of type %s, but expected one of:\n%s\nFix: a number, a list of "
                        "numbers or a list of 1-D tensors" % (type(spacing).__name__, _OVERLOADS))
    if any(isinstance(v, Tensor) for v in spacing):
        for i, v in enumerate(spacing):
            if not isinstance(v, Tensor):
                raise TypeError("expected Tensor as element %d in argument 1, but got %s. Fix: "
                                "spacing is all numbers or all 1-D tensors"
                                % (i, type(v).__name__))
        return "tensor", list(spacing), len(spacing)
    for v in spacing:
        if not _scalar(v):
            raise TypeError("gradient(): argument 'spacing' must be tuple of Scalars, not %s. "
                            "Fix: numbers only" % type(v).__name__)
    return "scalar", list(spacing), len(spacing)


def _checks(x, n_spacing, dims, dim_given, edge_order):
    """ATen's pre_check_gradient, in its order."""
    if x._data.dtype.name == "uint8":
        raise RuntimeError("torch.gradient does not support uint8 input. Fix: convert first, "
                           "e.g. x.float()")
    if n_spacing is not None and not dim_given and n_spacing != x.dim():
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a "
                           "list of length equal to 'self.dim() = %d', since dim argument was "
                           "not given, but got a list of length %d" % (x.dim(), n_spacing))
    if n_spacing is not None and dim_given and n_spacing != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's "
                           "spacing and dim arguments to have the same length, but got a "
                           "spacing argument of length %d and a dim argument of length %d."
                           % (n_spacing, len(dims)))
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = [_wrap_dim(d, x.dim()) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError("dim %d appears multiple times in the list of dims" % d)
    for d in wrapped:
        if x.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1. Fix: at least %d samples along dim %d"
                               % (edge_order + 1, d))
    return wrapped


def _sl(x, d, start, stop=None):
    """at::slice(x, d, start, stop) for the small negative/positive bounds used here."""
    n = x.shape[d]
    a = start + n if start < 0 else start
    b = n if stop is None else (stop + n if stop < 0 else stop)
    return x.narrow(d, a, b - a)


def _uniform(x, d, h, edge_order):
    """gradient_helper_float: spacing ``h`` along ``d``."""
    center = (_sl(x, d, 2) - _sl(x, d, 0, -2)) / h
    if edge_order == 1:
        pre = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / h
        app = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / h
    else:
        pre = (-1.5 * _sl(x, d, 0, 1) + 2 * _sl(x, d, 1, 2) - 0.5 * _sl(x, d, 2, 3)) / h
        app = (0.5 * _sl(x, d, -3, -2) - 2 * _sl(x, d, -2, -1) + 1.5 * _sl(x, d, -1)) / h
    return cat([pre, center / 2, app], d)


def _coordinates(x, d, coords, edge_order):
    """gradient_helper: sample positions ``coords`` (1-D) along ``d``."""
    if coords.dim() != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one "
                           "dimension, but got an element with %d dimensions!" % coords.dim())
    shape = [1] * x.dim()
    shape[d] = -1
    dx = coords.diff(1, 0)
    dx1, dx2 = _sl(dx, 0, 0, -1), _sl(dx, 0, 1)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _sl(x, d, 0, -2) + b * _sl(x, d, 1, -1) + c * _sl(x, d, 2)
    h0, hl = dx[0], dx[-1]
    if edge_order == 1:
        pre = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / h0
        app = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / hl
    else:
        h1, hm = dx[1], dx[-2]
        a = -(2.0 * h0 + h1) / (h0 * (h0 + h1))
        b = (h0 + h1) / (h0 * h1)
        c = (-h0) / (h1 * (h0 + h1))
        pre = a * _sl(x, d, 0, 1) + b * _sl(x, d, 1, 2) + c * _sl(x, d, 2, 3)
        a = hl / (hm * (hl + hm))
        b = -(hl + hm) / (hl * hm)
        c = (2 * hl + hm) / (hl * (hl + hm))
        app = a * _sl(x, d, -3, -2) + b * _sl(x, d, -2, -1) + c * _sl(x, d, -1)
    return cat([pre, center, app], d)


@defop("gradient", method=False)
def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """The derivative of ``input`` sampled on a grid, one tensor per dim in ``dim`` (all
    dims by default): ``spacing`` the step (a number, one per dim, default 1) or the
    sample coordinates (a list of 1-D tensors, one per dim).

    Raises:
        RuntimeError: a uint8 input, a spacing/dim length mismatch, edge_order not 1 or 2,
            repeated dims, a dim shorter than edge_order + 1, a coordinate tensor not 1-D.
        IndexError: a dim out of range.
        TypeError: spacing mixing numbers and tensors.
    """
    dim_given = dim is not None
    if dim is None:
        dims = list(range(input.dim()))
    elif isinstance(dim, numbers.Integral):
        dims = [int(dim)]
    else:
        dims = [int(d) for d in dim]
    kind, values, n_spacing = _spacing(spacing, dims)
    dims = _checks(input, n_spacing, dims, dim_given, edge_order)
    if kind == "scalar":
        return tuple(_uniform(input, d, h, edge_order) for d, h in zip(dims, values))
    return tuple(_coordinates(input, d, c, edge_order) for d, c in zip(dims, values))
