"""``torch.linalg``'s inverse, determinant and solve: inv (``torch.inverse``), det
(``torch.det``), solve, with PyTorch's backward formulas (derivatives.yaml:
linalg_inv_ex, linalg_det, linalg_solve_ex). slogdet / logdet: ``decompositions.py``."""

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ...autograd.graph import Node
from .._dispatch import record, to_tensor
from .._out import with_out
from .._registry import defop
from ._lapack import _float_matrices, _lapack_layout, _singular, _svd, _swap


# ------------------------------------------------------------ torch.linalg
# Derivative rules from PyTorch's tools/autograd/derivatives.yaml (real inputs):
#   inv:    A: -inv^T @ grad @ inv^T           (linalg_inv_ex)
#   det:    A: grad * det * A^{-T}, the cofactor matrix (linalg_det_backward)
#   solve:  B: solve(A^T, grad); A: -gB @ X^T  (linalg_solve_backward)
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
    u, s, vh = _svd(a)
    k = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(k)], -1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[:, None, None] * ((u * others[:, None, :]) @ vh)


def _det_slope(a, d, cofactor):
    """d det / dA as an array: det A^{-T} where det != 0; at singular matrices the
    cofactor matrix (``cofactor``) or 0 (PyTorch's two answers there)."""
    n = a.shape[-1]
    if n == 1:              # d det / da of a 1x1 matrix is 1, singular or not (PyTorch too)
        return np.ones_like(a)
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
        (A,) = ctx._checked_saved
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


defop("inverse", inv)


@defop("det")
def _torch_det(input):
    """``torch.det`` / ``Tensor.det``: ``linalg.det`` without ``out=`` (PyTorch's has none)."""
    return det(input)


_torch_det.__name__ = _torch_det.__qualname__ = "det"


class LinalgSolveExBackward0(Node):
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        # PyTorch's linalg_solve_backward: gB = A^{-T} gX (left) or gX A^{-T} (right);
        # gA = -gB X^T (left) or -X^T gB (right); vectors as columns
        (A,) = ctx._checked_saved
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
