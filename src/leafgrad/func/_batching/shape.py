"""vmap's batching rules for shapes and indexing: views (reshape, view, flatten,
unsqueeze, squeeze, transpose, permute, ...), stack / cat, basic and integer-tensor
indexing, gather / scatter / scatter_add, and PyTorch's errors for ops of
data-dependent size (nonzero, masked_select's mask). PyTorch: BatchRulesViews.cpp,
BatchRulesIndexing.cpp, BatchRulesScatterOps.cpp, BatchRulesDynamic.cpp.
"""
from ...autograd._batching_state import Unbatchable
from ..._core.dtype import bool_ as _bool
from ..._tensor.tensor import Tensor
from .tensor import _dims, _expand, _is_b, _refuse, _same, _size_of, _wrap


# ---------------------------------------------------------------------- views
def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
        raise Unbatchable()
    return tuple(shape)


def _reshape(self, *shape):
    return _wrap(self._bv.reshape((self._bb,) + _shape_arg(shape)), self._bb)


def _view(self, *shape):
    if shape and not isinstance(shape[0], (int, tuple, list)):
        raise Unbatchable()             # view(dtype)
    try:
        return _wrap(self._bv.view((self._bb,) + _shape_arg(shape)), self._bb)
    except RuntimeError:
        raise Unbatchable() from None


def _flatten(self, start_dim=0, end_dim=-1):
    nd = self.dim()
    if nd == 0:
        return _wrap(self._bv.reshape(self._bb, 1), self._bb)
    s, e = _dims(start_dim, nd), _dims(end_dim, nd)
    if s is None or e is None:
        raise Unbatchable()
    return _wrap(self._bv.flatten(s, e), self._bb)


def _unsqueeze(self, dim):
    nd = self.dim() + 1
    if isinstance(dim, bool) or not isinstance(dim, int) or not -nd <= dim < nd:
        raise Unbatchable()
    return _wrap(self._bv.unsqueeze(dim % nd + 1), self._bb)


def _squeeze(self, dim=None):
    if dim is None:
        keep = [s for s in self.shape if s != 1]
        return _wrap(self._bv.reshape([self._bb] + keep), self._bb)
    pd = _dims(dim, self.dim())
    if pd is None or self.dim() == 0:
        raise Unbatchable()
    return _wrap(self._bv.squeeze(pd), self._bb)


def _transpose(self, dim0, dim1):
    a, b = _dims(dim0, self.dim()), _dims(dim1, self.dim())
    if a is None or b is None or self.dim() == 0:
        raise Unbatchable()
    return _wrap(self._bv.transpose(a, b), self._bb)


def _t(self):
    if self.dim() > 2:
        raise Unbatchable()
    return self if self.dim() < 2 else _transpose(self, 0, 1)


def _permute(self, *dims):
    dims = _shape_arg(dims)
    pd = _dims(dims, self.dim())
    if pd is None or len(pd) != self.dim() or self.dim() == 0:
        raise Unbatchable()
    return _wrap(self._bv.permute((0,) + pd), self._bb)


def _flatten_fn(fn):
    def rule(input, start_dim=0, end_dim=-1):
        if not _is_b(input):
            return fn(input, start_dim, end_dim)
        return _flatten(input, start_dim, end_dim)
    return rule


# ---------------------------------------------------------------------- joins
def _join(fn, is_stack):
    """stack / cat of tensors some of which are batched (the others are expanded)."""
    def rule(tensors, dim=0, **kwargs):
        ts = list(tensors)
        n = _size_of(ts)
        if kwargs or not ts or not all(isinstance(t, Tensor) for t in ts) or \
                isinstance(dim, bool) or not isinstance(dim, int):
            raise Unbatchable()
        rank = ts[0].dim() + (1 if is_stack else 0)
        if rank == 0 or not -rank <= dim < rank:
            raise Unbatchable()
        phys = [t._bv if _is_b(t) else t.unsqueeze(0).expand((n,) + tuple(t.shape)) for t in ts]
        return _wrap(fn(phys, dim % rank + 1), n)
    return rule


# ------------------------------------------------------------------- indexing
def _getitem(self, index):
    idx = index if isinstance(index, tuple) else (index,)
    for i in idx:
        if not (i is None or i is Ellipsis or isinstance(i, slice) or
                (isinstance(i, int) and not isinstance(i, bool))):
            raise Unbatchable()         # tensor / list / bool indices: per sample
    return _wrap(self._bv[(slice(None),) + idx], self._bb)


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
    from ..._tensor import creation as _creation
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


def install_methods(BatchedTensor):
    for name, fn in (("reshape", _reshape), ("view", _view), ("flatten", _flatten),
                     ("unsqueeze", _unsqueeze), ("squeeze", _squeeze),
                     ("transpose", _transpose), ("swapaxes", _transpose), ("t", _t),
                     ("permute", _permute), ("__getitem__", getitem),
                     ("contiguous", _same("contiguous")), ("clone", _same("clone"))):
        setattr(BatchedTensor, name, fn)
    BatchedTensor.T = property(lambda self: _t(self) if self.dim() <= 2 else _refuse())
    BatchedTensor.mT = property(lambda self: _transpose(self, -2, -1))
    BatchedTensor.gather = _gather(Tensor.gather)
    BatchedTensor.scatter = _scatter(Tensor.scatter)
    BatchedTensor.scatter_add = _scatter(Tensor.scatter_add, with_value=False)
    BatchedTensor.nonzero = _dynamic(_NONZERO)(None)
    BatchedTensor.masked_select = _dynamic(_MASKED_SELECT, 1)(None)


def function_rules(L, F):
    """(holder, name, rule factory) for the module-level functions with a rule here."""
    from ..._api import functions as _functions
    out = []
    for holder in (L, _functions):
        out.append((holder, "stack", lambda fn: _join(fn, True)))
        out.append((holder, "cat", lambda fn: _join(fn, False)))
    out += [(L, "flatten", lambda fn: _flatten_fn(fn)),
            (L, "gather", _gather), (L, "scatter", _scatter),
            (L, "scatter_add", lambda fn: _scatter(fn, with_value=False)),
            (L, "nonzero", _dynamic(_NONZERO)), (L, "argwhere", _dynamic(_NONZERO)),
            (L, "masked_select", _dynamic(_MASKED_SELECT, 1))]
    return out
