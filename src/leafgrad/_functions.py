"""``leafgrad.<op>`` functions (``torch.exp(x)``, ``torch.sum(x, dim)``, ...)."""
from .ops.comparison import (allclose, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, eq,
                             equal, ge, gt, isclose, isfinite, isinf, isnan, isneginf, isposinf,
                             le, logical_and, logical_not, logical_or, logical_xor, lt, ne,
                             signbit)
from .ops.elementwise import (abs, acos, add, asin, asinh, atan, atan2, atanh, ceil, cos, cosh,
                              div, erf, exp, exp2, expm1, floor, floor_divide, fmod, frac, log,
                              log10, log1p, log2, maximum, minimum, mul, neg, pow, reciprocal,
                              relu, remainder, round_, rsqrt, sigmoid, sign, sin, sinh, sqrt,
                              square, sub, tan, tanh, trunc)
from .ops.pointwise import (addcdiv, addcmul, clamp, nan_to_num, where)
from .ops.conv import conv1d, conv2d  # noqa: F401
from .ops.pooling import adaptive_avg_pool1d, avg_pool1d, max_pool1d, max_pool2d  # noqa: F401
from .ops.indexing import (argwhere, gather, index_select, masked_fill, masked_select, nonzero, index_add, unique_consecutive,
                           scatter, scatter_add, take_along_dim, tril, triu, unique)
from .ops.linalg import kron, tensordot, cdist, trace, addmm, bmm, dot, einsum, inner, matmul, mm, mv, outer, vdot
from .ops.linalg_fns import det
from .ops.linalg_fns import inv as inverse
from .ops.reduction import (all, amax, amin, any, argmax, argmin, count_nonzero, cumsum,
                            logsumexp, max, mean, cumprod, median, bincount, min, norm, prod, std, sum, var)
from .ops.joins import (cat, chunk, concat, concatenate, diag, diagonal, diff, flip, hstack,
                        meshgrid, movedim, narrow, repeat, repeat_interleave, roll, select, split,
                        stack, tile, unbind, vstack)
from .ops.shape import (broadcast_shapes, broadcast_tensors, broadcast_to, clone, flatten, permute,
                        reshape, squeeze, t, transpose, unflatten, unsqueeze)
from .ops.inplace import zero_  # noqa: F401

round = round_
clip = clamp
negative = neg
multiply = mul
subtract = sub
divide = div
true_divide = div
absolute = abs
arcsin, arccos, arctan = asin, acos, atan
greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne
swapaxes = swapdims = transpose
ger = outer


def softmax(input, dim, dtype=None):
    from .nn.functional import softmax as f
    return f(input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    from .nn.functional import log_softmax as f
    return f(input, dim, dtype=dtype)


def numel(input):
    return input.numel()


def detach(input):
    return input.detach()


def sort(input, dim=-1, descending=False, stable=False):
    from .ops.reduction import _return_type
    import numpy as np
    from ._tensor import Tensor
    x = input._data
    if x.ndim == 0:     # a 0-d tensor sorts as itself, index 0
        v, i = sort(input.reshape(1), 0, descending)
        return _return_type("sort")(v.reshape(()), i.reshape(()))
    idx = np.argsort(-x if descending else x, axis=dim, kind="stable").astype(np.int64)
    from .ops.indexing import SortBackward0, _take_along
    return _return_type("sort")(_take_along(SortBackward0, input, dim, idx),
                                Tensor._make_plain(idx))


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):
    from .ops.reduction import _return_type
    import numpy as np
    from ._tensor import Tensor
    from .ops.indexing import TopkBackward0, _take_along
    n = input.shape[dim] if input.dim() else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range: k=%d but dim %d has %d elements. "
                           "Fix: k between 0 and %d (e.g. k=min(k, x.shape[dim]))" % (k, dim, n, n))
    if input.dim() == 0:
        return _return_type("topk")(*sort(input, dim, descending=largest))
    i = sort(input.detach(), dim, descending=largest)[1].narrow(dim, 0, k)
    idx = np.ascontiguousarray(i._data)
    return _return_type("topk")(_take_along(TopkBackward0, input, dim, idx),
                                Tensor._make_plain(idx))


__all__ = [n for n in dir() if not n.startswith("_")]
