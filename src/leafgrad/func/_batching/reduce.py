"""vmap's batching rules for reductions: sum / mean / amax / amin, softmax /
log_softmax, max / min (over everything, over a dim with indices, elementwise with
a tensor), var / std and vector norms (``torch.norm``, ``Tensor.norm``,
``linalg.vector_norm``). PyTorch: BatchRulesReduceOps.cpp.
"""
from ...autograd._batching_state import Unbatchable
from ..._tensor.tensor import Tensor
from .elementwise import _elementwise
from .tensor import BatchedTensor, _all_dims, _dims, _is_b, _reduced_dims, _size_of, \
    _tensor_args, _wrap


def _reduction(fn):
    """sum / mean / amax / ...: ``dim`` (int, tuple or None), ``keepdim``, ``dtype``."""
    def rule(x, dim=None, keepdim=False, **kwargs):
        if type(x) is not BatchedTensor:
            return fn(x, dim, keepdim, **kwargs) if dim is not None else fn(x, **kwargs)
        if set(kwargs) - {"dtype"}:
            raise Unbatchable()
        v, nd = x._bv, x._bv.dim() - 1
        if nd == 0:
            raise Unbatchable()          # a 0-d sample: leave the edge cases to the loop
        if dim is None:
            if keepdim:
                raise Unbatchable()
            pd = tuple(range(1, nd + 1))
        else:
            pd = _dims(dim, nd)
            if pd is None:
                raise Unbatchable()
        return _wrap(fn(v, pd, keepdim, **kwargs), x._bb)
    return rule


def _with_dim(fn):
    """softmax / log_softmax (dim required)."""
    def rule(x, dim=None, *args, **kwargs):
        if type(x) is not BatchedTensor:
            return fn(x, dim, *args, **kwargs)
        pd = _dims(dim, x.dim()) if dim is not None else None
        if pd is None or x.dim() == 0 or not isinstance(pd, int) or _tensor_args(args, kwargs):
            raise Unbatchable()
        return _wrap(fn(x._bv, pd, *args, **kwargs), x._bb)
    return rule


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


def install_methods(BatchedTensor):
    from ...ops.reduce import reduction as R
    for name in ("sum", "mean", "amax", "amin"):
        setattr(BatchedTensor, name, _reduction(getattr(Tensor, name)))
    for name in ("softmax", "log_softmax"):
        setattr(BatchedTensor, name, _with_dim(getattr(Tensor, name)))
    BatchedTensor.max = _extreme(R.max, Tensor.amax, _elementwise(Tensor.maximum))
    BatchedTensor.min = _extreme(R.min, Tensor.amin, _elementwise(Tensor.minimum))
    BatchedTensor.var = _var(Tensor.var)
    BatchedTensor.std = _var(Tensor.std)
    BatchedTensor.norm = _norm_over(Tensor.norm, "fro", pos_ord=False)


def function_rules(L, F):
    """(holder, name, rule factory) for the module-level functions with a rule here."""
    from ... import linalg
    out = [(L, name, _reduction) for name in ("sum", "mean", "amax", "amin")]
    for holder in (L, F):
        for name in ("softmax", "log_softmax"):
            out.append((holder, name, _with_dim))
    out += [(L, "max", lambda fn: _extreme(fn, L.amax, _elementwise(L.maximum))),
            (L, "min", lambda fn: _extreme(fn, L.amin, _elementwise(L.minimum))),
            (L, "var", _var), (L, "std", _var),
            (L, "norm", lambda fn: _norm_over(fn, "fro", pos_ord=False)),
            (linalg, "vector_norm", lambda fn: _norm_over(fn, 2))]
    return out
