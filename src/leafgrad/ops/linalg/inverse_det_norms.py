"""``torch.linalg``: inv, det, solve, svdvals and the vector/matrix norms (and ``torch.norm``), with PyTorch's
backward formulas (derivatives.yaml: linalg_inv_ex, linalg_det, linalg_solve_ex, svdvals).
"""
import math

import numpy as np

from ..._core import errors as _errors
from ...autograd.graph import Node
from ..._core.quiet import quiet as _quiet
from .._dispatch import record, to_tensor
from .._out import with_out
from .._registry import defop, node
from .._select import select
from ..reduce.reduction import _dims, _long_name, _unreduce



# ------------------------------------------------------------ torch.linalg
# Derivative rules from PyTorch's tools/autograd/derivatives.yaml (real inputs):
#   inv:    A: -inv^T @ grad @ inv^T           (linalg_inv_ex)
#   det:    A: grad * det * A^{-T}, the cofactor matrix (linalg_det_backward)
#   solve:  B: solve(A^T, grad); A: -gB @ X^T  (linalg_solve_backward)
#   svdvals: A: U diag(grad) Vh                 (svd_backward with gU = gVh = 0)
def _float_matrices(A, name, square=True):
    """A's array, after PyTorch's checks of linalg inputs."""
    x = A._data
    if x.dtype.kind not in "fc":
        raise RuntimeError("%s: Expected a floating point or complex tensor as input. Got %s. "
                           "Fix: convert it first, e.g. A.float()"
                           % (name, _errors.type_name(A.dtype)))
    if x.ndim < 2:
        raise RuntimeError("%s: The input tensor A must have at least 2 dimensions." % name)
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError("%s: A must be batches of square matrices, but they are %d by %d "
                           "matrices" % (name, x.shape[-2], x.shape[-1]))
    return x


def _singular(name, x, what):
    # which matrix of the batch (PyTorch names it for batches)
    flat = x.reshape((-1,) + x.shape[-2:])
    bad = next((i for i, m in enumerate(flat) if np.linalg.matrix_rank(m) < m.shape[-1]), 0)
    where = " (Batch element %d)" % bad if x.ndim > 2 else ""
    return _errors.LinAlgError(
        "%s%s: %s because the input matrix is singular. Fix: check the matrix (a zero row or "
        "column, linearly dependent rows), or regularise it, e.g. A + eps * torch.eye(n)."
        % (name, where, what))


def _swap(a):
    return np.swapaxes(a, -1, -2)


def _lapack_layout(a, ld=None):
    """``a`` laid out as PyTorch's LAPACK-backed results are: each matrix column-major
    (strides (1, ld) in the last two dims, batches C-ordered), so ``stride()``,
    ``is_contiguous()`` and which ``view`` calls work match PyTorch. ``ld``: the leading
    dimension when PyTorch returns a slice of a taller buffer (``lstsq``)."""
    rows = a.shape[-2] if a.ndim >= 2 else 0
    if a.ndim < 2:
        return a
    if ld is None or ld == rows:
        return _swap(np.ascontiguousarray(_swap(a)))
    buf = np.zeros(a.shape[:-2] + (a.shape[-1], ld), a.dtype)
    buf[..., :rows] = _swap(a)
    return _swap(buf[..., :rows])


class LinalgInvExBackward0(Node):
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        r = ctx.result.mT
        return (-(r @ (g @ r)),)

    def np_backward(ctx, g):
        r = _swap(ctx.result_array())
        return (-(r @ (g @ r)),)


@with_out("linalg_inv")
def inv(A, *, out=None):
    """Inverse of a square matrix (or of each in a batch). Shapes: (*, n, n) -> (*, n, n).

    Gradient: -A^{-T} grad A^{-T} (derivatives.yaml, linalg_inv_ex), differentiable again.

    Raises:
        torch.linalg.LinAlgError (a RuntimeError): a singular matrix.
        RuntimeError: an integer input, fewer than 2 dims, non-square matrices.
    """
    x = _float_matrices(A, "linalg.inv")
    try:
        with _quiet():
            res = _lapack_layout(np.linalg.inv(x) if x.size else x.copy())
    except np.linalg.LinAlgError:
        raise _singular("linalg.inv", x, "the inversion could not be completed") from None
    return record(LinalgInvExBackward0, res, (A,), save_result=True)


def _cofactor(a):
    """d det(a) / da for every matrix of the batch ``a`` (n, k, k), singular ones
    included: det(U) det(Vh) U diag(prod of the other singular values) Vh."""
    u, s, vh = np.linalg.svd(a)
    k = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(k)], -1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[:, None, None] * ((u * others[:, None, :]) @ vh)


def _det_slope(a, d, cofactor):
    """d det / dA as an array: det A^{-T} where det != 0; at singular matrices the
    cofactor matrix (``cofactor``) or 0 (PyTorch's two answers there)."""
    n = a.shape[-1]
    singular = (d == 0)[..., None, None]
    with _quiet():
        res = d[..., None, None] * _swap(np.linalg.inv(np.where(singular, np.eye(n, dtype=a.dtype),
                                                                a)))
    if cofactor and singular.any():
        res = np.where(singular, _cofactor(a.reshape(-1, n, n)).reshape(a.shape), res)
    return np.where(singular & (not cofactor), 0, res).astype(a.dtype)


class LinalgDetBackward0(Node):
    # PyTorch's linalg_det_backward: g det A^{-T}. At an exactly singular matrix it
    # gives 0 when the backward is not recorded (det times the solve), and the
    # cofactor matrix (through the SVD) under create_graph.
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        d = ctx.result
        if not (d._data == 0).any():
            return ((g * d).unsqueeze(-1).unsqueeze(-1) * inv(A).mT,)
        # a singular matrix in the batch: a constant slope (its own dependence on A
        # is not recorded)
        from ..._tensor.tensor import Tensor
        slope = _det_slope(A._data, d._data, cofactor=True)
        return (g.unsqueeze(-1).unsqueeze(-1) * Tensor._make_plain(slope),)

    def np_backward(ctx, g):
        (a,) = ctx.saved_arrays()
        return (g[..., None, None] * _det_slope(a, ctx.result_array(), cofactor=False),)


@with_out("det")
def det(A, *, out=None):
    """Determinant of a square matrix (or of each in a batch). Shapes: (*, n, n) -> (*).

    Gradient (PyTorch's linalg_det_backward): grad det(A) A^{-T}, the cofactor
    matrix. At an exactly singular matrix it is 0 without create_graph and the
    cofactor matrix (through the SVD) with it, as in PyTorch; there leafgrad does
    not differentiate it again (elsewhere it is twice differentiable).

    Raises:
        RuntimeError: an integer input, fewer than 2 dims, non-square matrices.
    """
    x = _float_matrices(A, "linalg.det")
    with _quiet():
        res = np.linalg.det(x) if x.shape[-1] else np.ones(x.shape[:-2], x.dtype)
    return record(LinalgDetBackward0, np.asarray(res, x.dtype), (A,), saved=(A,),
                  save_result=True)


class LinalgSolveExBackward0(Node):
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        # PyTorch's linalg_solve_backward: gB = A^{-T} gX (left) or gX A^{-T} (right);
        # gA = -gB X^T (left) or -X^T gB (right); vectors as columns
        (A,) = ctx.saved_tensors
        x = ctx.result
        vector, left = ctx.args
        na, nb = ctx.needs_input_grad
        gb = solve(A.mT, g, left=left)
        if not na:
            return None, gb
        if vector:
            ga = -(gb.unsqueeze(-1) * x.unsqueeze(-2))
        else:
            ga = -(gb @ x.mT) if left else -(x.mT @ gb)
        return ga, (gb if nb else None)


@with_out("linalg_solve")
def solve(A, B, *, left=True, out=None):
    """X with A X = B (``left=False``: X A = B), for a square A (or a batch).

    Shapes: A (*, n, n); B (*, n, k), or a vector (n,) / (*, n) when B's shape is
    A's without the last dim; batch dims broadcast. Gradients (derivatives.yaml,
    linalg_solve_ex): gB = solve(A^T, grad), gA = -gB X^T.

    Raises:
        torch.linalg.LinAlgError (a RuntimeError): a singular A.
        RuntimeError: shapes that do not fit, dtypes that differ, integer inputs.
    """
    a = _float_matrices(A, "linalg.solve")
    B = to_tensor(B)
    b = B._data
    if b.dtype != a.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A "
                           "of type %s and B of type %s instead. Fix: B.to(A.dtype)"
                           % (_errors.type_name(A.dtype), _errors.type_name(B.dtype)))
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bm = b[..., None] if vector else b
    if not left:
        if vector or bm.shape[-1] != a.shape[-1]:
            raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation "
                               "XA = B (%dx%d and %s)" % (a.shape[-2], a.shape[-1],
                                                          "x".join(map(str, b.shape[-2:]))))
    elif bm.shape[-2] != a.shape[-1]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           "(%dx%d and %dx%d)" % (a.shape[-2], a.shape[-1], bm.shape[-2],
                                                  bm.shape[-1]))
    try:
        with _quiet():
            # X A = B is A^T X^T = B^T
            # PyTorch's layout: column-major for AX = B, row-major for XA = B
            res = (_lapack_layout(np.linalg.solve(a, bm)) if left else
                   np.ascontiguousarray(_swap(np.linalg.solve(_swap(a), _swap(bm)))))
    except np.linalg.LinAlgError:
        raise _singular("torch.linalg.solve", a, "The solver failed") from None
    except ValueError:
        raise _errors.ShapeError("linalg.solve: the batch dimensions of A %s and B %s cannot be "
                                 "broadcast together" % (list(a.shape[:-2]),
                                                         list(bm.shape[:-2]))) from None
    return record(LinalgSolveExBackward0, res[..., 0] if vector else res, (A, B), saved=(A,),
                  save_result=True, args=(vector, left))


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
    with _quiet():
        u, s, vh = np.linalg.svd(x, full_matrices=False)
    return record(LinalgSvdBackward0, s.astype(x.dtype, copy=False), (A,),
                  args=(u, vh, A._requires_grad))


# ---------------------------------------------------- torch.norm (vector p-norms)
def _norm_backward(ctx, g):
    (x,) = ctx.saved_tensors
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
        return (select(False, g),)      # zeros_like(self), whatever g holds
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


defop("inverse", inv)


@defop("det")
def _torch_det(input):
    """``torch.det`` / ``Tensor.det``: ``linalg.det`` without ``out=`` (PyTorch's has none)."""
    return det(input)


_torch_det.__name__ = _torch_det.__qualname__ = "det"
