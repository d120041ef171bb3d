"""vmap's batching rules for neural-network ops: conv2d (batched inputs fold the
batch into N, batched weights into the groups), 2-d pooling, nll_loss /
cross_entropy, embedding (``F.embedding`` and ``nn.Embedding``), and the kernels of
``nn.Conv2d`` and the 2-d pooling modules. PyTorch: BatchRulesConvolution.cpp,
BatchRulesPooling.cpp, BatchRulesLoss.cpp, BatchRulesModules.cpp.
"""
from ...autograd._batching_state import Unbatchable
from .tensor import _expand, _is_b, _size_of, _tensor_args, _wrap


# -------------------------------------------------- convolution and pooling (2-d)
def _fold(v, nd, spatial):
    """Physical (B, [N,] C, *spatial) -> (B*N, C, *spatial); returns it and the
    function restoring the batch."""
    if nd == spatial + 1:               # no N in the sample: B is the batch
        return v, lambda y: y
    b, n = v.shape[0], v.shape[1]
    return v.reshape((b * n,) + tuple(v.shape[2:])), \
        lambda y: y.reshape((b, n) + tuple(y.shape[1:]))


def _conv2d(fn):
    def rule(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        size = _size_of((input, weight, bias))
        if size is None:
            return fn(input, weight, bias, stride, padding, dilation, groups)
        nd = input.dim()
        if nd not in (3, 4) or weight.dim() != 4 or not isinstance(groups, int):
            raise Unbatchable()
        if not _is_b(weight) and not _is_b(bias):
            x, unfold = _fold(input._bv, nd, 2)
            return _wrap(unfold(fn(x, weight, bias, stride, padding, dilation, groups)), size)
        # batched weights: the batch goes into the channels and the groups
        x = input._bv if _is_b(input) else input.unsqueeze(0).expand((size,) + tuple(input.shape))
        if nd == 3:
            x = x.unsqueeze(1)
        b, n, c = x.shape[0], x.shape[1], x.shape[2]
        x = x.transpose(0, 1).reshape((n, b * c) + tuple(x.shape[3:]))
        w = weight._bv if _is_b(weight) else weight.unsqueeze(0).expand((size,) + tuple(weight.shape))
        o = w.shape[1]
        w = w.reshape((b * o,) + tuple(w.shape[2:]))
        bb = None
        if bias is not None:
            bb = (bias._bv if _is_b(bias) else bias.unsqueeze(0).expand(size, o)).reshape(b * o)
        y = fn(x, w, bb, stride, padding, dilation, groups * b)
        y = y.reshape((n, b, o) + tuple(y.shape[2:])).transpose(0, 1)
        return _wrap(y.squeeze(1) if nd == 3 else y, size)
    return rule


def _pool2d(fn):
    def rule(input, *args, **kwargs):
        if not _is_b(input):
            if _size_of(_tensor_args(args, kwargs)) is not None:
                raise Unbatchable()
            return fn(input, *args, **kwargs)
        nd = input.dim()
        if nd not in (3, 4) or kwargs.get("return_indices") or _tensor_args(args, kwargs) \
                or (len(args) >= 6 and args[5]):
            raise Unbatchable()
        x, unfold = _fold(input._bv, nd, 2)
        return _wrap(unfold(fn(x, *args, **kwargs)), input._bb)
    return rule


# ----------------------------------------------------------------------- losses
def _nll(input, target, ignore_index, reduction):
    """nll_loss of one sample (C,) / (N, C) against () / (N,), physically batched."""
    from ..._core import dtype as _dtype
    from ..._api import functions as T
    if reduction not in ("mean", "sum", "none") or input.dim() not in (1, 2) or \
            target.dim() != input.dim() - 1 or target.dtype is not _dtype.int64:
        raise Unbatchable()
    size = _size_of((input, target))
    x = input._bv if _is_b(input) else input.unsqueeze(0).expand((size,) + tuple(input.shape))
    t = target._bv if _is_b(target) else target.unsqueeze(0).expand((size,) + tuple(target.shape))
    keep = t != ignore_index
    c = x.shape[-1]
    tv = t._data
    if bool(((tv < 0) | (tv >= c))[keep._data].any()):
        raise Unbatchable()             # out-of-range targets: PyTorch's error, per sample
    idx = T.where(keep, t, 0)
    picked = -x.gather(-1, idx.unsqueeze(-1)).squeeze(-1) * keep.to(x.dtype)
    if reduction == "none":
        return _wrap(picked, size)
    if input.dim() == 1:
        total, count = picked, keep.to(x.dtype)
    else:
        total, count = picked.sum(-1), keep.to(x.dtype).sum(-1)
    return _wrap(total if reduction == "sum" else total / count, size)


def _nll_loss(fn):
    def rule(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
        if _size_of((input, target, weight)) is None:
            return fn(input, target, weight, size_average, ignore_index, reduce, reduction)
        if weight is not None or size_average is not None or reduce is not None:
            raise Unbatchable()
        return _nll(input, target, ignore_index, reduction)
    return rule


def _cross_entropy(fn, log_softmax):
    def rule(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean", label_smoothing=0.0):
        if _size_of((input, target, weight)) is None:
            return fn(input, target, weight, size_average, ignore_index, reduce, reduction,
                      label_smoothing)
        if weight is not None or size_average is not None or reduce is not None or \
                label_smoothing != 0.0 or input.dim() not in (1, 2) or not _is_b(input):
            raise Unbatchable()
        return _nll(log_softmax(input, 0 if input.dim() == 1 else 1), target, ignore_index,
                    reduction)
    return rule


# -------------------------------------------------------------------- embedding
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
        from ..._tensor import creation as _creation
        w = weight._bv
        num = w.shape[1]
        i = _expand(input, n)
        off = (_creation.arange(n) * num).reshape((n,) + (1,) * (i.dim() - 1))
        if i.numel() and (bool((i < 0).any()) or bool((i >= num).any())):
            raise Unbatchable()         # PyTorch's IndexError, per sample
        return _wrap(fn(i + off, w.reshape(n * num, w.shape[2])), n)
    return rule


def install_methods(BatchedTensor):
    pass        # no Tensor method of this family has a rule


def function_rules(L, F):
    """(holder, name, rule factory) for the module-level functions with a rule here;
    cross_entropy last: its rule calls the log_softmax swapped in before it."""
    from ...nn.modules import conv as conv_modules, pooling as pool_modules
    from ...nn.modules import sparse as sparse_modules
    out = [(F, "conv2d", _conv2d), (F, "nll_loss", _nll_loss)]
    for name in ("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"):
        out.append((F, name, _pool2d))
    out += [(F, "embedding", _embedding), (sparse_modules, "embedding", _embedding),
            (conv_modules.Conv2d, "_fn", _conv2d)]
    for cls_name, fname in (("MaxPool2d", "max_pool2d"), ("AvgPool2d", "avg_pool2d"),
                            ("AdaptiveAvgPool2d", "adaptive_avg_pool2d")):
        cls = getattr(pool_modules, cls_name, None)
        if cls is not None and cls.__dict__.get("_fn") is getattr(F, fname):
            out.append((cls, "_fn", _pool2d))
    out.append((F, "cross_entropy", lambda fn: _cross_entropy(fn, F.log_softmax)))
    return out
