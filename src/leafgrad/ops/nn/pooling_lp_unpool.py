"""Power-average pooling (``lp_pool1d/2d/3d``), max unpooling (``max_unpool1d/2d/3d``)
and the ``*_with_indices`` forms of the max poolings.

``lp_pool``: PyTorch's composite, ``(sign(a) relu(|a|) * prod(k)) ** (1/p)`` with ``a``
the average pool of ``x ** p`` (``nn/functional.py``: same ops, same order, so the same
rounding and gradients; ``p = +-inf`` is the max pool of ``|x|``).

``max_unpool``: the inverse scatter of a max pool: each input value is written at its
index (flat into the output plane) of a zero output; the rule gathers the gradient at
the same indices (PyTorch's ``max_pool_double_backward``), itself linear, so it
differentiates again.
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor
from .. import elementwise as E
from .._dispatch import record
from .._registry import defop, node


def _tuple(v, nd):
    return tuple(int(a) for a in v) if isinstance(v, (tuple, list)) else (int(v),) * nd


# ------------------------------------------------------------------ lp_pool
def _pools(nd):
    from . import pooling_3d as pool3d, pooling
    if nd == 3:
        return pool3d.max_pool3d, pool3d.avg_pool3d
    return ((pooling.max_pool1d, pooling.avg_pool1d) if nd == 1
            else (pooling.max_pool2d, pooling.avg_pool2d))


def _lp_pool(nd, input, norm_type, kernel_size, stride, ceil_mode):
    max_pool, avg_pool = _pools(nd)
    if norm_type == float("inf"):
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    # lp_pool1d multiplies by kernel_size itself, as PyTorch (a tuple raises TypeError there)
    k = kernel_size if nd == 1 else int(np.prod(_tuple(kernel_size, nd)))
    return (out.sign() * E.relu(out.abs())).mul(k).pow(1.0 / norm_type)


_LP_DOC = """Power-average pooling over the last {nd} dim(s): ``(sum over the window of
    x ** p) ** (1 / p)`` (PyTorch's composite ``lp_pool{nd}d``; ``p = inf``: the max of
    ``|x|``). Shapes as ``avg_pool{nd}d`` without padding; dtype as input.

    Raises:
        ZeroDivisionError: ``norm_type == 0`` (as PyTorch); RuntimeError: the pooling's
            own (bad kernel, input too small).
    """


@defop("lp_pool1d", function=False, method=False, functional=True)
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


@defop("lp_pool2d", function=False, method=False, functional=True)
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


@defop("lp_pool3d", function=False, method=False, functional=True)
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


for _nd, _f in ((1, lp_pool1d), (2, lp_pool2d), (3, lp_pool3d)):
    _f.__doc__ = _LP_DOC.format(nd=_nd)


# ------------------------------------------------------------------ max_unpool
def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    # PyTorch's nn.functional._unpool_output_size (its ValueErrors)
    nd = len(kernel_size)
    default = [(input.shape[-nd + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(nd)]
    if output_size is None:
        ret = default
    else:
        output_size = [int(s) for s in output_size]
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError("output_size should be a sequence containing %d or %d elements, "
                             "but it has a length of '%d'. Fix: give the output's spatial "
                             "size" % (nd, nd + 2, len(output_size)))
        for d in range(nd):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError("invalid output_size \"%s\" (dim %d must be between %d and %d)"
                                 ". Fix: pass the pooled input's size"
                                 % (tuple(output_size), d, lo, hi))
        ret = output_size
    for d in range(nd):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             "dimensions, but got output_size[%d]=%d" % (d, ret[d]))
    return ret


def _unpool_backward(ctx, g):
    in_shape, idx = ctx.args
    flat = g.reshape(idx.shape[:-1] + (-1,))
    return (flat.gather(-1, Tensor._make_plain(idx)).reshape(in_shape),)


_UNPOOL_NODES = {nd: node("MaxUnpool%dDBackward0" % nd, _unpool_backward, saves=False)
                 for nd in (2, 3)}


def _max_unpool(nd, fn, input, indices, kernel_size, stride, padding, output_size):
    if not isinstance(input, Tensor) or not isinstance(indices, Tensor):
        raise TypeError("%s(): input and indices must be Tensors. Fix: pass max_pool's "
                        "(output, indices)" % fn)
    k = _tuple(kernel_size, nd)
    s = k if stride is None else _tuple(stride, nd)
    p = _tuple(padding, nd)
    size = _unpool_output_size(input, k, s, p, output_size)
    x, ix = input._data, indices._data
    if ix.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64 but got: %s. Fix: pass "
                           "the indices max_pool returned (int64)" % _errors.type_name(ix.dtype))
    if x.dtype.kind != "f":
        raise NotImplementedError("\"max_unpool%dd\" not implemented for '%s'. Fix: convert "
                                  "first, e.g. x.float()" % (nd, _errors.type_name(x.dtype)))
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError("%s: expected a %dD or %dD input, got one of size %s. Fix: (N, C, "
                           "*spatial) or (C, *spatial)" % (fn, nd + 1, nd + 2, list(x.shape)))
    if ix.shape != x.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           "(%s) but got indices tensor with shape: %s. Fix: pass the indices "
                           "of the same max_pool call" % (list(x.shape), list(ix.shape)))
    lead = x.shape[:-nd]
    plane = int(np.prod(size))
    flat_ix = ix.reshape(lead + (-1,))
    bad = (flat_ix < 0) | (flat_ix >= plane)
    if bad.any():
        raise RuntimeError("Found an invalid max index: %d (output volumes are of size %s). "
                           "Fix: kernel_size/stride/padding/output_size as in the max_pool "
                           "call" % (flat_ix[bad].flat[0], "x".join(map(str, size))))
    out = np.zeros(lead + (plane,), x.dtype)
    np.put_along_axis(out, flat_ix, x.reshape(lead + (-1,)), axis=-1)
    return record(_UNPOOL_NODES[nd], out.reshape(lead + tuple(size)), (input,),
                  args=(x.shape, flat_ix))


_UNPOOL_DOC = """Partial inverse of ``max_pool{nd}d``: a zero tensor of the pooled input's
    size (or ``output_size``) with each value of ``input`` at its index in ``indices``
    (flat over the {nd} spatial dim(s), as max_pool returns them; where indices repeat,
    one of the values is kept). Shapes: (N, C, *in) or (C, *in) -> (N, C, *out); dtype
    as input (floating only).

    Raises:
        RuntimeError: indices not int64, of another shape, or outside the output;
        ValueError: an ``output_size`` outside PyTorch's range.
    """


@defop("max_unpool1d", function=False, method=False, functional=True)
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # through max_unpool2d on a width-1 plane, as PyTorch (grad_fn SqueezeBackward1)
    k = _tuple(kernel_size, 1)
    s = k if stride is None else _tuple(stride, 1)
    p = _tuple(padding, 1)
    if not isinstance(input, Tensor) or not isinstance(indices, Tensor):
        raise TypeError("max_unpool1d(): input and indices must be Tensors. Fix: pass "
                        "max_pool1d's (output, indices)")
    size = _unpool_output_size(input, k, s, p, output_size) + [1]
    return _max_unpool(2, "max_unpool1d", input.unsqueeze(-1), indices.unsqueeze(-1),
                       k + (1,), s + (1,), p + (0,), size).squeeze(-1)


@defop("max_unpool2d", function=False, method=False, functional=True)
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(2, "max_unpool2d", input, indices, kernel_size, stride, padding,
                       output_size)


@defop("max_unpool3d", function=False, method=False, functional=True)
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(3, "max_unpool3d", input, indices, kernel_size, stride, padding,
                       output_size)


for _nd, _f in ((1, max_unpool1d), (2, max_unpool2d), (3, max_unpool3d)):
    _f.__doc__ = _UNPOOL_DOC.format(nd=_nd)
del _nd, _f


# ------------------------------------------------------------ *_with_indices
def _max_pool_with_indices(nd):
    from . import pooling_3d as pool3d, pooling
    pool = {1: pooling.max_pool1d, 2: pooling.max_pool2d, 3: pool3d.max_pool3d}[nd]

    def fn(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
           return_indices=False):
        return pool(input, kernel_size, stride, padding, dilation, ceil_mode, True)
    fn.__name__ = fn.__qualname__ = "max_pool%dd_with_indices" % nd
    fn.__doc__ = ("``max_pool%dd(..., return_indices=True)``: always the (output, indices) "
                  "pair, whatever ``return_indices`` says (as PyTorch)." % nd)
    return fn


def _adaptive_with_indices(nd):
    from . import pooling_3d as pool3d
    pool = getattr(pool3d, "adaptive_max_pool%dd" % nd)

    def fn(input, output_size, return_indices=False):
        return pool(input, output_size, True)
    fn.__name__ = fn.__qualname__ = "adaptive_max_pool%dd_with_indices" % nd
    fn.__doc__ = ("``adaptive_max_pool%dd(..., return_indices=True)``: always the (output, "
                  "indices) pair (as PyTorch)." % nd)
    return fn


for _nd in (1, 2, 3):
    for _make in (_max_pool_with_indices, _adaptive_with_indices):
        _f = _make(_nd)
        globals()[_f.__name__] = _f
        # PyTorch has torch.max_pool1d_with_indices too (not the 2d/3d or adaptive ones)
        defop(_f.__name__, _f, function=_f.__name__ == "max_pool1d_with_indices",
              method=False, functional=True)
del _nd, _make, _f
