"""vmap's batching rules for linear algebra: matmul (and ``@``), ``F.linear``,
``linalg.matrix_norm`` and ``linalg.norm``. PyTorch: BatchRulesLinearAlgebra.cpp,
BatchRulesReduceOps.cpp (norms).
"""
from ...autograd._batching_state import Unbatchable
from ..._tensor.tensor import Tensor
from .tensor import _all_dims, _dims, _is_b, _pad, _size_of, _tensor_args, _wrap


def _matmul(fn):
    def rule(a, b, **kwargs):
        size = _size_of((a, b))
        if size is None:
            return fn(a, b, **kwargs)
        if kwargs or not (isinstance(a, Tensor) and isinstance(b, Tensor)):
            raise Unbatchable()
        na, nb = a.dim(), b.dim()
        if na == 0 or nb == 0:
            raise Unbatchable()
        pa = a._bv if _is_b(a) else a
        pb = b._bv if _is_b(b) else b
        if na == 1:
            pa, na = pa.unsqueeze(-2), 2
        if nb == 1:
            pb, nb = pb.unsqueeze(-1), 2
        rank = max(na, nb)
        if _is_b(a):
            pa = _pad(pa, rank)
        if _is_b(b):
            pb = _pad(pb, rank)
        res = fn(pa, pb)
        if b.dim() == 1:
            res = res.squeeze(-1)
        if a.dim() == 1:
            res = res.squeeze(-1 if b.dim() == 1 else -2)
        return _wrap(res, size)
    return rule


def _linear(fn):
    def rule(input, weight, bias=None):
        size = _size_of((input, weight, bias))
        if size is None:
            return fn(input, weight, bias)
        if input.dim() == 0 or weight.dim() != 2:
            raise Unbatchable()
        if not _is_b(weight) and not _is_b(bias):
            return _wrap(fn(input._bv, weight, bias), size)
        res = input @ weight.t()
        return res if bias is None else res + bias
    return rule


def _matrix_norm(fn):
    def rule(A, ord="fro", dim=(-2, -1), keepdim=False, **kwargs):
        if not _is_b(A):
            return fn(A, ord, dim, keepdim, **kwargs)
        pd = _dims(dim, A.dim())
        if A.dim() < 2 or not isinstance(pd, tuple) or len(pd) != 2 or _tensor_args((),
                                                                                   kwargs):
            raise Unbatchable()
        return _wrap(fn(A._bv, ord, pd, keepdim, **kwargs), A._bb)
    return rule


def _linalg_norm(fn):
    """linalg.norm: a vector norm (1-D sample, or an int dim), a matrix norm (2-D sample
    or a pair of dims); ord None with dim None: the flattened 2-norm."""
    def rule(A, ord=None, dim=None, keepdim=False, **kwargs):
        if not _is_b(A):
            return fn(A, ord, dim, keepdim, **kwargs)
        nd = A.dim()
        if nd == 0 or _tensor_args((), kwargs):
            raise Unbatchable()
        if dim is None:
            if ord is not None and nd not in (1, 2):
                raise Unbatchable()     # PyTorch's error: per sample
            pd = _all_dims(nd)
            if ord is None and nd > 2:  # the flattened 2-norm
                from ...ops.linalg.norms import vector_norm
                return _wrap(vector_norm(A._bv, 2, pd, keepdim, **kwargs), A._bb)
        else:
            pd = _dims(dim, nd)
            if pd is None:
                raise Unbatchable()
        return _wrap(fn(A._bv, ord, pd, keepdim, **kwargs), A._bb)
    return rule


def install_methods(BatchedTensor):
    mm = _matmul(Tensor.matmul)
    BatchedTensor.matmul = BatchedTensor.__matmul__ = lambda a, b: mm(a, b)
    BatchedTensor.__rmatmul__ = lambda a, b: mm(b, a)


def function_rules(L, F):
    """(holder, name, rule factory) for the module-level functions with a rule here."""
    from ... import linalg
    return [(L, "matmul", _matmul), (F, "linear", _linear),
            (linalg, "matrix_norm", _matrix_norm), (linalg, "norm", _linalg_norm)]
