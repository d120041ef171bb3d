"""Norms and singular values: ``torch.norm``, ``linalg.vector_norm``, ``linalg.matrix_norm``,
``linalg.norm``, ``linalg.svdvals`` and ``torch.renorm``, with PyTorch's backward
formulas (derivatives.yaml: linalg_vector_norm, svdvals, renorm; matrix norms are
composed of these).
"""

import math

import numpy as np

from ..._core import dtype as dtypes
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor, _wrap_dim
from ...autograd.graph import Node
from .._dispatch import record
from .._out import out_call, with_out
from .._registry import defop, node
from .._select import select
from ..reduce.reduction import _dims, _long_name, _unreduce
from ._lapack import _float_matrices, _svd


# ---------------------------------------------------- torch.norm (vector p-norms)
def _norm_backward(ctx, g):
    (x,) = ctx._checked_saved
    p, dims, keepdim = ctx.args
    r = _unreduce(ctx.result, x.shape, dims, keepdim)
    g = _unreduce(g, x.shape, dims, keepdim)
    if p == 2:
        # g (x / ||x||), 0 where the norm is 0: PyTorch's norm_backward, op for op (so
        # the second derivative at a zero vector is nan, 0 * (1/0), as there)
        return (g * (x / r).masked_fill(r == 0, 0.0),)
    if p == 1:
        return (g * x.sign(),)
    if p == float("inf") or p == float("-inf"):
        # PyTorch's norm_backward: a nan element counts as an argmax (it made the norm nan)
        ax = x.abs()
        mask = (ax == r) | ax.isnan()
        return (x.sign() * ((g / mask.sum(dims, keepdim=True)) * mask),)
    if p == 0:
        return (None,)      # PyTorch's norm_backward returns an undefined gradient (grad None)
    # PyTorch's norm_backward op for op (the rounding of a second derivative that cancels
    # to 0 depends on it); its masked_fill_s select (an inf g stays out)
    ax = x.abs()
    if p < 1:
        scaled = x.sign() * select(x != 0, ax ** (p - 1))
        return (scaled * g * r ** (1 - p),)
    scaled = x.sign() * ax ** (p - 1) if p < 2 else x * ax ** (p - 2)
    return (scaled * select(r != 0, g / r ** (p - 1)),)


LinalgVectorNormBackward0 = node("LinalgVectorNormBackward0", _norm_backward, saves=True)


@defop("norm", out=True)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm over ``dim`` (2-norm / Frobenius by default; also 1, inf, -inf, 0, any p).

    Gradient of the 2-norm at 0 is 0 (as PyTorch).
    """
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("nuclear norm is not supported")
    x = input._data
    if x.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           "input. Got %s" % _long_name(x.dtype))
    dims = _dims(dim, x.ndim)
    if p in (float("inf"), float("-inf")) and x.size == 0:
        empty = [d for d in (range(x.ndim) if dims is None else np.atleast_1d(dims))
                 if x.shape[d] == 0]
        if dim is None or not x.ndim:
            raise RuntimeError("linalg.vector_norm cannot compute the %s norm on an empty tensor "
                               "because the operation does not have an identity. Fix: check "
                               "the input is not empty" % p)
        if empty:
            raise RuntimeError("linalg.vector_norm cannot compute the %s norm on the dimension "
                               "%d because this dimension is empty and the operation does not "
                               "have an identity. Fix: check the input is not empty along it"
                               % (p, empty[0]))
    ax = np.abs(x)
    with _quiet():
        if p == 2:
            out = np.sqrt((x * x).sum(axis=dims, keepdims=keepdim))
        elif p == float("inf"):
            out = ax.max(axis=dims, keepdims=keepdim)
        elif p == float("-inf"):
            out = ax.min(axis=dims, keepdims=keepdim)
        elif p == 0:
            out = (ax != 0).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
        else:
            out = (ax ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
        if p != 0 and math.prod(x.shape[d] for d in dims) == 1:
            # PyTorch's norm of one element is |x| for every p (no power: no overflow
            # of 1e30 ** 2 in float32, exactly |x|)
            out = ax.sum(axis=dims, keepdims=keepdim)
    return record(LinalgVectorNormBackward0, np.asarray(out, x.dtype), (input,), saved=(input,),
                  save_result=True, args=(p, dims, keepdim))


@with_out("linalg_vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The ord-norm of ``x`` viewed as a vector (flattened when ``dim`` is None, else
    over ``dim``): ord 2 (default), 1, inf, -inf, 0 or any real.

    Gradient (derivatives.yaml, linalg_vector_norm_backward): x / ||x|| for ord 2
    (0 at a zero vector), sign(x) for ord 1, split among the ties for +-inf.

    Raises:
        TypeError: a string ord (use matrix_norm for 'fro'/'nuc').
        RuntimeError: an integer input.
    """
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' must be Number, not str. Fix: "
                        "torch.linalg.matrix_norm(A, ord=%r) for a matrix norm." % ord)
    if dtype is not None:
        x = x.to(dtype)
    return norm(x, ord, dim, keepdim)


_MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf"))


@with_out("linalg_matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims ``dim``: 'fro' (default), 'nuc' (sum of the
    singular values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min
    column sum of |a|), inf / -inf (max / min row sum of |a|).

    Built as PyTorch builds it (vector_norm, amax/amin, svdvals), so the
    gradients and grad_fn are PyTorch's.

    Raises:
        RuntimeError: fewer than 2 dims, a dim that is not a 2-tuple, another ord.
    """
    from ..reduce import reduction
    if dtype is not None:
        A = A.to(dtype)
    nd = A.dim()
    if nd < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got %s"
                           % (" ".join(map(str, dim)) if isinstance(dim, (tuple, list))
                              else dim))
    if ord not in _MATRIX_ORDS:
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % (ord,))
    from ..._tensor.tensor import _wrap_dim
    d0, d1 = (_wrap_dim(d, nd) for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        res = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        for d in sorted((d0, d1)) if keepdim else ():
            res = res.unsqueeze(d)
        return res
    if abs(ord) == float("inf"):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = vector_norm(A, 1, d0, keepdim)
    return (reduction.amax if ord > 0 else reduction.amin)(sums, d1, keepdim)


@with_out("linalg_norm")
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """``torch.linalg.norm``: a vector norm (``dim`` an int, or a 1-D input) or a
    matrix norm (``dim`` a 2-tuple, or a 2-D input with ``ord`` given); with
    neither ``ord`` nor ``dim``, the 2-norm of the flattened input.

    Raises:
        RuntimeError: ``ord`` without ``dim`` on an input that is not 1-D or 2-D.
    """
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str):
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           "Got %s" % list(dim))
    if dim is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           "1D or 2D. Got %dD." % A.dim())
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2)):
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


_ACC = {dtypes.float32: dtypes.float64, dtypes.float16: dtypes.float32}


class _NormCtx:
    """What linalg_fns._norm_backward reads from a node, for renorm's rule."""
    __slots__ = ("_checked_saved", "args", "result")

    def __init__(self, x, p, dims, norm):
        self._checked_saved, self.args, self.result = (x,), (p, dims, True), norm


def _renorm_backward(ctx, g):
    # PyTorch's renorm_backward (FunctionsManual.cpp), op for op: the where selects, so
    # a slice left unscaled (its norm <= maxnorm, or nan) passes g through untouched
    from ..elementwise.pointwise import where
    (x,) = ctx._checked_saved
    p, others, maxnorm = ctx.args
    # the norm and the reduction in the CPU accumulation dtype (float32 -> float64), as
    # there; x's own powers stay in x's dtype (1e30 ** 2 overflows in float32 there too)
    acc = _ACC.get(x.dtype, x.dtype)
    norm = x.to(acc).norm(p, others, keepdim=True)
    go = (x * g).to(acc).sum(others, keepdim=True)
    (nb,) = _norm_backward(_NormCtx(x, p, others, norm), go)
    invnorm = (norm + 1e-7).reciprocal()
    grad_norm = maxnorm * invnorm * (g - invnorm * nb)
    return (where(norm > maxnorm, grad_norm.to(g.dtype), g),)


RenormBackward0 = node("RenormBackward0", _renorm_backward, saves=True)


@defop("renorm", inplace=True, out=True)
def renorm(input, p, dim, maxnorm, *, out=None):
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` is scaled to norm
    ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``, as PyTorch); the others (a nan norm
    included) are unchanged. Shapes and dtype kept.
    The gradient is PyTorch's renorm_backward (FunctionsManual.cpp: the derivative of
    that scaling, norm included, selected where the slice was scaled; g elsewhere).

    Raises:
        RuntimeError: fewer than 2 dims, a non-positive ``p`` or negative ``maxnorm``.
    """
    if out is not None:
        return out_call("renorm", renorm, (input, p, dim, maxnorm), {}, out)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported. Fix: p > 0")
    if maxnorm < 0:
        raise RuntimeError("renorm: expected maxnorm to be >= 0 but got %s" % maxnorm)
    nd = input.dim()
    if nd < 2:
        raise RuntimeError("renorm: input needs at least 2 dimensions, got %d dimensions. "
                           "Fix: x.unsqueeze(0)" % nd)
    d = _wrap_dim(dim, nd)
    others = tuple(i for i in range(nd) if i != d)
    x = input._data
    norm = Tensor._make_plain(x).norm(p, others, keepdim=True)._data
    with np.errstate(all="ignore"):
        factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(x.dtype)
        res = x * factor
    return record(RenormBackward0, res, (input,), saved=(input,), args=(p, others, maxnorm))


# svdvals: A: U diag(grad) Vh (derivatives.yaml: svd_backward with gU = gVh = 0)
class LinalgSvdBackward0(Node):
    __slots__ = ()

    def backward(ctx, g):
        u, vh, needs_graph = ctx.args
        from ...autograd.grad_mode import mode
        if mode.enabled and needs_graph:
            raise NotImplementedError(
                "leafgrad does not differentiate singular values twice (svdvals, and "
                "matrix_norm / linalg.norm with ord=2, -2 or 'nuc'). Fix: use ord='fro' for "
                "a twice-differentiable matrix norm.")
        from ..._tensor.tensor import Tensor
        return ((Tensor._make_plain(u) * g.unsqueeze(-2)) @ Tensor._make_plain(vh),)

    def np_backward(ctx, g):
        u, vh, _ = ctx.args
        return ((u * g[..., None, :]) @ vh,)


@with_out("linalg_svdvals")
def svdvals(A, *, driver=None, out=None):
    """Singular values of a matrix (or of each in a batch), in descending order.

    Shapes: (*, m, n) -> (*, min(m, n)). Gradient: U diag(grad) Vh (PyTorch's
    svd_backward without U/V gradients); not differentiable twice here.
    """
    x = _float_matrices(A, "linalg.svdvals", square=False)
    u, s, vh = _svd(x, full_matrices=False)
    return record(LinalgSvdBackward0, s.astype(x.dtype, copy=False), (A,),
                  args=(u, vh, A._requires_grad))
