"""``torch.cholesky_solve`` and ``torch.cholesky_inverse``: solves and inverses from a
Cholesky factor (A = L Lᵀ, or A = Uᵀ U with ``upper=True``).

The value reads only the factor's triangle (as LAPACK's potrs). The backward is
PyTorch's closed form (FunctionsManual.cpp, cholesky_solve_backward): with
gB = cholesky_solve(g, F) and C = gB Xᵀ + X gBᵀ, gF = -C F (``upper``: -F C). It is
written with leafgrad ops, so it differentiates again. ``cholesky_inverse`` is
``cholesky_solve`` of the identity, whose gradient is PyTorch's cholesky_inverse_backward
(-A⁻¹ (G + Gᵀ) A⁻¹ L). Results have PyTorch's column-major LAPACK layout.
"""

import numpy as np

from ..._core import errors as _errors
from ...autograd.graph import Node
from .._dispatch import record, to_tensor
from .._named import grad_fn_named
from .._registry import defop
from ._lapack import _float_matrices, _lapack_layout, _swap
from .solvers import _trsolve

__all__ = ["cholesky_solve", "cholesky_inverse"]


def _floating(t, kernel):
    if t._data.dtype.kind not in "fc":
        raise NotImplementedError("\"%s\" not implemented for '%s'. Fix: convert first, "
                                  "e.g. x.double()" % (kernel, _errors.type_name(t._data.dtype)))


def _cholesky_solve_backward(ctx, g):
    F, B = ctx._checked_saved
    X = ctx.result
    upper = ctx.args
    gB = cholesky_solve(g, F, upper)
    common = gB @ X.mT
    common = common + common.mT
    gF = -(F @ common) if upper else -(common @ F)
    nB, nF = ctx.needs_input_grad
    return ((gB.sum_to_size(B.shape) if nB else None),
            (gF.sum_to_size(F.shape) if nF else None))


class CholeskySolveBackward0(Node):
    __slots__ = ()
    saves = True
    backward = _cholesky_solve_backward


@defop("cholesky_solve", out=True)
def cholesky_solve(input, input2, upper=False):
    """X with A X = B, B = ``input`` (*, n, k), from A's Cholesky factor ``input2``
    (*, n, n): ``A = L Lᵀ`` (``upper``: ``A = Uᵀ U``); batch dims broadcast.

    Raises:
        NotImplementedError: integer inputs (as PyTorch).
        RuntimeError: non-square factors, B of fewer than 2 dims, mismatched dtypes or
            sizes.
    """
    B, F = to_tensor(input), to_tensor(input2)
    _floating(F, "cholesky_solve_cpu")
    f = _float_matrices(F, "cholesky_solve")
    if B.dim() < 2:
        raise RuntimeError("b should have at least 2 dimensions, but has %d dimensions "
                           "instead. Fix: make B a column, e.g. b.unsqueeze(-1)" % B.dim())
    if B.dtype != F.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type %s "
                           "and A of type %s instead. Fix: b.to(A.dtype)"
                           % (_errors.type_name(B._data.dtype), _errors.type_name(f.dtype)))
    b = B._data
    if b.shape[-2] != f.shape[-1]:
        raise RuntimeError("Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           "%d by %d but each b matrix is %d by %d. Fix: B needs one row "
                           "per row of A" % (f.shape[-2], f.shape[-1], b.shape[-2],
                                             b.shape[-1]))
    tri = np.triu(f) if upper else np.tril(f)
    lower, up = (_swap(tri), tri) if upper else (tri, _swap(tri))
    x = _trsolve(up, _trsolve(lower, b, False, False), True, False)
    return record(CholeskySolveBackward0, _lapack_layout(x.astype(f.dtype, copy=False)),
                  (B, F), saved=(F, B), save_result=True, args=upper)


@defop("cholesky_inverse", out=True)
@grad_fn_named("CholeskyInverseBackward0")
def cholesky_inverse(input, upper=False):
    """A⁻¹ from A's Cholesky factor ``input`` (*, n, n): ``A = L Lᵀ`` (``upper``:
    ``A = Uᵀ U``). Shape (*, n, n).

    Raises:
        NotImplementedError: an integer input (as PyTorch).
        RuntimeError: a non-square input, fewer than 2 dims.
    """
    F = to_tensor(input)
    _floating(F, "cholesky_inverse_out_cpu")
    _float_matrices(F, "cholesky_inverse")
    from ..._tensor import creation as _C
    eye = _C.eye(F.shape[-1], dtype=F.dtype).expand(F.shape)
    return cholesky_solve(eye, F, upper)
