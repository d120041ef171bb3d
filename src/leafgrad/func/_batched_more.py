"""More batching rules for ``vmap`` (see ``_batched.py`` for how rules work): max / min
(over everything, over a dim with indices, elementwise with a tensor), var / std, norms
(``torch.norm``, ``Tensor.norm``, ``linalg.vector_norm`` / ``matrix_norm`` / ``norm``),
tensor indexing (``x[idx]`` with integer index tensors), gather / scatter / scatter_add,
and ``embedding`` (``F.embedding`` and ``nn.Embedding``).

Each turns the logical call (one sample) into one physical call on the batch (batch at
dim 0; an unbatched operand that must be per sample is expanded along it), as PyTorch's
batching rules (aten/src/ATen/functorch/BatchRulesReduceOps.cpp, BatchRulesScatterOps.cpp,
BatchRulesIndexing.cpp); a call they do not cover raises :class:`Unbatchable`, and vmap
runs that function once per sample instead.
"""
from ..autograd._batching_state import Unbatchable
from .._core.dtype import bool_ as _bool
from .._tensor.tensor import Tensor
from ._batched import _dims, _elementwise, _is_b, _size_of, _tensor_args, _wrap


def _expand(t, n):
    """``t``'s physical tensor: its own for a batched one, else expanded along the batch."""
    return t._bv if _is_b(t) else t.unsqueeze(0).expand((n,) + tuple(t.shape))


def _all_dims(nd):
    return tuple(range(1, nd + 1))


def _reduced_dims(input, dim):
    """The physical dims a per-sample reduction over ``dim`` (None: all) covers; a 0-d
    sample or a dim that is not a plain int / tuple goes to the per-sample loop."""
    nd = input.dim()
    pd = None if nd == 0 else _all_dims(nd) if dim is None else _dims(dim, nd)
    if pd is None:
        raise Unbatchable()
    return pd


# ------------------------------------------------------------------ max / min
def _extreme(fn, amext, elementwise):
    """max / min: () -> over all of a sample (amax: ties share the gradient, as the full
    max's rule); (dim, keepdim) -> (values, indices); (other tensor) -> elementwise."""
    def rule(input, dim=None, keepdim=False, **kwargs):
        if not _is_b(input):
            if isinstance(dim, Tensor):
                return elementwise(input, dim)
            if _size_of(_tensor_args((dim,), kwargs)) is not None:
                raise Unbatchable()
            return fn(input, dim, keepdim, **kwargs)
        if kwargs:
            raise Unbatchable()
        if isinstance(dim, Tensor):
            return elementwise(input, dim)
        nd = input.dim()
        v = input._bv
        if dim is None:
            if keepdim or nd == 0 or v.numel() == 0:
                raise Unbatchable()     # PyTorch's errors and 0-d samples: per sample
            return _wrap(amext(v, _all_dims(nd)), input._bb)
        pd = _dims(dim, nd)
        if not isinstance(pd, int) or nd == 0:
            raise Unbatchable()
        r = fn(v, pd, keepdim)
        return type(r)(*[_wrap(e, input._bb) for e in r])
    return rule


# ------------------------------------------------------------------ var / std
def _var(fn):
    """var / std with PyTorch's overloads: (dim, unbiased, keepdim), (unbiased,), and the
    keywords dim / unbiased / keepdim / correction."""
    def rule(input, *args, **kwargs):
        if not _is_b(input):
            return fn(input, *args, **kwargs)
        args = list(args)
        if args and isinstance(args[0], bool):
            kwargs.setdefault("unbiased", args.pop(0))
        names = ("dim", "unbiased", "keepdim")
        for name, a in zip(names, args):
            if name in kwargs:
                raise TypeError("%s() got multiple values for argument '%s'"
                                % (fn.__name__, name))
            kwargs[name] = a
        if len(args) > 3 or set(kwargs) - {"dim", "unbiased", "keepdim", "correction"}:
            raise Unbatchable()
        dim = kwargs.pop("dim", None)
        pd = _reduced_dims(input, dim)
        return _wrap(fn(input._bv, pd, **kwargs), input._bb)
    return rule


# --------------------------------------------------------------------- norms
def _norm_over(fn, default_ord, pos_ord=True):
    """norm(x, ord/p, dim, keepdim, ...): ``dim`` None is every dim of a sample (the
    flattened vector), else shifted past the batch."""
    def rule(input, *args, **kwargs):
        if not _is_b(input):
            return fn(input, *args, **kwargs)
        args = list(args)
        ord_ = args.pop(0) if args else kwargs.pop("ord" if pos_ord else "p", default_ord)
        dim = args.pop(0) if args else kwargs.pop("dim", None)
        keepdim = args.pop(0) if args else kwargs.pop("keepdim", False)
        if args or _tensor_args((), kwargs) or isinstance(ord_, str) and dim is None \
                and ord_ not in ("fro",):
            raise Unbatchable()
        pd = _reduced_dims(input, dim)
        return _wrap(fn(input._bv, ord_, pd, keepdim, **kwargs), input._bb)
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
                from ..ops.linalg.norms import vector_norm
                return _wrap(vector_norm(A._bv, 2, pd, keepdim, **kwargs), A._bb)
        else:
            pd = _dims(dim, nd)
            if pd is None:
                raise Unbatchable()
        return _wrap(fn(A._bv, ord, pd, keepdim, **kwargs), A._bb)
    return rule


# ------------------------------------------------------------------ indexing
_MASK = ("vmap: We do not support batching operators that can support dynamic shape. "
         "Attempting to batch over indexing with a boolean mask.")


def _advanced(idx):
    """(positions of tensor indices, whether they form one run) of an index tuple; None
    when an element is neither a basic index nor an integer or (unbatched) bool tensor.

    Raises:
        RuntimeError: a batched boolean mask (PyTorch's vmap error: each sample would
            select a different number of elements).
    """
    pos = []
    for i, k in enumerate(idx):
        if isinstance(k, Tensor):
            if k.dtype.is_floating_point or k.dtype.is_complex:
                return None
            if k.dtype is _bool and _is_b(k):
                raise RuntimeError(_MASK)
            pos.append(i)
        elif not (k is None or k is Ellipsis or isinstance(k, slice) or
                  (isinstance(k, int) and not isinstance(k, bool))):
            return None
    return pos, (not pos or pos == list(range(pos[0], pos[-1] + 1)))


def getitem(self, index):
    """x[idx] on a batched x with integer index tensors (batched or not) in one run of
    the index (so the result's dims go where a sample's would); the batch of batched
    indices pairs with x's own (an arange index at the front)."""
    from .._tensor import creation as _creation
    from ._batched import _getitem
    idx = index if isinstance(index, tuple) else (index,)
    got = _advanced(idx)
    if got is None or not got[1]:
        raise Unbatchable()
    pos = got[0]
    if not pos:
        return _getitem(self, index)
    if any(k is None or k is Ellipsis or isinstance(k, int) for k in idx):
        # PyTorch applies an int next to index tensors as a select (not NumPy's way):
        # those and the placement of None / ... are left to the per-sample loop
        raise Unbatchable()
    n = self._bb
    batched = [k for k in idx if _is_b(k)]
    if not batched:
        return _wrap(self._bv[(slice(None),) + idx], n)
    if any(isinstance(k, Tensor) and k.dtype is _bool for k in idx):
        raise Unbatchable()
    # every index per sample: batch b of the result reads x[b][idx_b]; a batch arange in
    # front, broadcast against the indices, keeps the result's batch at dim 0 when the
    # tensor indices come first (pos[0] == 0) -- otherwise the sliced dims would come
    # after the broadcast ones
    if pos[0] != 0:
        raise Unbatchable()
    rank = max(k.dim() for k in idx if isinstance(k, Tensor))
    ar = _creation.arange(n).reshape((n,) + (1,) * rank)
    phys = [ar] + [(_pad_index(k, rank, n) if isinstance(k, Tensor) else k) for k in idx]
    return _wrap(self._bv[tuple(phys)], n)


def _pad_index(k, rank, n):
    v = _expand(k, n)
    extra = rank - (v.dim() - 1)
    return v.reshape((n,) + (1,) * extra + tuple(v.shape[1:])) if extra > 0 else v


def _gather(fn):
    def rule(input, dim, index, **kwargs):
        n = _size_of((input, index))
        if n is None:
            return fn(input, dim, index, **kwargs)
        nd = input.dim()
        pd = _dims(dim, nd)
        if not isinstance(pd, int) or nd == 0 or index.dim() != nd or kwargs:
            raise Unbatchable()
        return _wrap(fn(_expand(input, n), pd, _expand(index, n)), n)
    return rule


def _scatter(fn, with_value=True):
    def rule(input, dim, index, src=None, **kwargs):
        n = _size_of((input, index, src))
        if n is None:
            return fn(input, dim, index, src, **kwargs) if src is not None else \
                fn(input, dim, index, **kwargs)
        nd = input.dim()
        pd = _dims(dim, nd)
        if not isinstance(pd, int) or nd == 0 or index.dim() != nd or kwargs.get("reduce"):
            raise Unbatchable()
        x, i = _expand(input, n), _expand(index, n)
        if isinstance(src, Tensor):
            if src.dim() != nd:
                raise Unbatchable()
            return _wrap(fn(x, pd, i, _expand(src, n), **kwargs), n)
        if not with_value or (src is None and "value" not in kwargs):
            raise Unbatchable()
        if src is None:
            return _wrap(fn(x, pd, i, **kwargs), n)
        return _wrap(fn(x, pd, i, src, **kwargs), n)
    return rule


# ----------------------------------------------------------------- embedding
def _embedding(fn):
    def rule(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
             scale_grad_by_freq=False, sparse=False):
        n = _size_of((input, weight))
        if n is None:
            return fn(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                      sparse)
        if max_norm is not None or scale_grad_by_freq or weight.dim() != 2:
            raise Unbatchable()         # in-place renorm / per-sample counts: per sample
        if not _is_b(weight):
            return _wrap(fn(input._bv, weight, padding_idx, None, norm_type, False, sparse), n)
        if padding_idx is not None:
            raise Unbatchable()
        # per-sample tables: one table of n * num rows, each sample's indices offset
        from .._tensor import creation as _creation
        w = weight._bv
        num = w.shape[1]
        i = _expand(input, n)
        off = (_creation.arange(n) * num).reshape((n,) + (1,) * (i.dim() - 1))
        if i.numel() and (bool((i < 0).any()) or bool((i >= num).any())):
            raise Unbatchable()         # PyTorch's IndexError, per sample
        return _wrap(fn(i + off, w.reshape(n * num, w.shape[2])), n)
    return rule


# ------------------------------------------- ops whose result size depends on values
def _dynamic(message, which=None):
    """PyTorch's vmap error for an op of data-dependent size (nonzero, masked_select's
    mask): raised when the argument it names (``which``: the position; None: any) is
    batched; otherwise the per-sample loop."""
    def make(fn):
        def rule(*args, **kwargs):
            hit = [args[which]] if which is not None and len(args) > which else args
            if any(_is_b(a) for a in hit):
                raise RuntimeError(message)
            raise Unbatchable()
        return rule
    return make


_NONZERO = ("vmap: We do not support batching operators that can output dynamic shape. "
            "Attempted to vmap over aten::nonzero. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues if you need this feature.")
_MASKED_SELECT = ("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We "
                  "cannot support this because for each batch this would return a "
                  "differently shaped Tensor. Please file an issue at "
                  "https://github.com/pytorch/pytorch/issues if you need this feature.")


# -------------------------------------------------------------- installation
def install_methods(BatchedTensor):
    from ..ops.reduce import reduction as R
    elementwise_max = _elementwise(Tensor.maximum)
    elementwise_min = _elementwise(Tensor.minimum)
    BatchedTensor.max = _extreme(R.max, Tensor.amax, elementwise_max)
    BatchedTensor.min = _extreme(R.min, Tensor.amin, elementwise_min)
    BatchedTensor.var = _var(Tensor.var)
    BatchedTensor.std = _var(Tensor.std)
    BatchedTensor.norm = _norm_over(Tensor.norm, "fro", pos_ord=False)
    BatchedTensor.__getitem__ = getitem
    BatchedTensor.gather = _gather(Tensor.gather)
    BatchedTensor.scatter = _scatter(Tensor.scatter)
    BatchedTensor.scatter_add = _scatter(Tensor.scatter_add, with_value=False)
    BatchedTensor.nonzero = _dynamic(_NONZERO)(None)
    BatchedTensor.masked_select = _dynamic(_MASKED_SELECT, 1)(None)


def function_rules(L, F):
    """(holder, name, rule factory) for the module-level functions with a rule here."""
    from .. import linalg
    from ..nn.modules import sparse as sparse_modules
    out = [(L, "max", lambda fn: _extreme(fn, L.amax, _elementwise(L.maximum))),
           (L, "min", lambda fn: _extreme(fn, L.amin, _elementwise(L.minimum))),
           (L, "var", _var), (L, "std", _var), (L, "norm", lambda fn: _norm_over(fn, "fro",
                                                                             pos_ord=False)),
           (L, "gather", _gather), (L, "scatter", _scatter),
           (L, "scatter_add", lambda fn: _scatter(fn, with_value=False)),
           (linalg, "vector_norm", lambda fn: _norm_over(fn, 2)),
           (linalg, "matrix_norm", _matrix_norm), (linalg, "norm", _linalg_norm),
           (F, "embedding", _embedding), (sparse_modules, "embedding", _embedding),
           (L, "nonzero", _dynamic(_NONZERO)), (L, "argwhere", _dynamic(_NONZERO)),
           (L, "masked_select", _dynamic(_MASKED_SELECT, 1))]
    return out
