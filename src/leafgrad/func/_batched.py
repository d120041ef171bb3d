"""Batched execution for ``vmap``: the function runs once on the whole batch.

Inside a batched ``vmap`` call the mapped inputs are :class:`BatchedTensor` s: a tensor
whose *logical* shape is one sample's, holding a *physical* plain tensor with the batch
along dim 0. The common ops have a batching rule here that turns the logical call into
one physical call of the same op (elementwise with broadcasting, matmul / linear,
conv2d and 2-d pooling, reductions, softmax / log_softmax, nll_loss / cross_entropy,
views, basic indexing); autograd then runs on the physical tensors, so ``grad``,
``vjp`` and ``jacrev`` inside ``vmap`` are batched too (a parameter that is not mapped
is expanded along the batch, so its gradient comes out per sample).

Everything else is refused, never guessed: a BatchedTensor's storage slots (``_data``
and the rest) raise :class:`Unbatchable` when read, and so does any in-place op while a
batched call runs. ``vmap`` then runs the function once per sample instead (the loop in
``_vmap.py``), which is correct for any function. So an op without a rule costs speed,
not correctness.

The rules for module-level functions (``torch.tanh``, ``F.linear``, ``nn.Conv2d``'s
kernel, ...) are put in place of those functions for the duration of a batched call
(and put back after, also on errors); each delegates to the original function when no
argument is batched, so other threads see the same results meanwhile.

Source: PyTorch's batching rules (aten/src/ATen/functorch/BatchRules*.cpp): the same
reshapes (batch folded into N for convolution and pooling, into the groups when the
weights are batched).
"""
import threading

from .._random import generator as _random
from ..autograd._batching_state import Unbatchable, depth as _depth
from .._tensor.tensor import Tensor

_new = object.__new__
_sizes = []             # the batch size of each batched call running (innermost last)


def active():
    return _depth[0] > 0


def size():
    """The batch size of the batched call running."""
    return _sizes[-1]


def _refuse(*_):
    raise Unbatchable()


class BatchedTensor(Tensor):
    """A batch of tensors seen as one sample: ``shape`` and friends are a sample's;
    ``_bv`` is the physical tensor (batch at dim 0), ``_bb`` the batch size."""
    __slots__ = ("_bv", "_bb")

    # -- metadata (a sample's) ------------------------------------------------
    @property
    def shape(self):
        return self._bv.shape[1:]

    def size(self, dim=None):
        s = self._bv.shape[1:]
        if dim is None:
            return s
        return s[dim]

    def dim(self):
        return self._bv.dim() - 1

    ndimension = dim

    @property
    def ndim(self):
        return self._bv.dim() - 1

    def numel(self):
        n = 1
        for s in self._bv.shape[1:]:
            n *= s
        return n

    nelement = numel

    def __len__(self):
        if self._bv.dim() == 1:
            raise TypeError("len() of a 0-d tensor")
        return self._bv.shape[1]

    @property
    def dtype(self):
        return self._bv.dtype

    @property
    def device(self):
        return self._bv.device

    @property
    def requires_grad(self):
        return self._bv.requires_grad

    @property
    def is_leaf(self):
        return self._bv.is_leaf

    @property
    def grad_fn(self):
        return self._bv.grad_fn

    def is_floating_point(self):
        return self._bv.is_floating_point()

    def is_complex(self):
        return self._bv.is_complex()

    def element_size(self):
        return self._bv.element_size()

    def __repr__(self):
        # PyTorch prints a batched tensor inside vmap this way
        return "BatchedTensor(lvl=1, bdim=0, value=\n%s\n)" % "\n".join(
            "    " + line for line in repr(self._bv).splitlines())

    # -- autograd bookkeeping ---------------------------------------------------
    def detach(self):
        return _wrap(self._bv.detach(), self._bb)

    def requires_grad_(self, requires_grad=True):
        self._bv.requires_grad_(requires_grad)
        return self


# every storage slot of Tensor refuses: whatever has no rule reads one and falls back
for _slot in Tensor.__slots__:
    if _slot != "__weakref__":
        setattr(BatchedTensor, _slot, property(_refuse, _refuse))
del _slot


def _wrap(value, size):
    t = _new(BatchedTensor)
    t._bv = value
    t._bb = size
    return t


def wrap(value, size):
    """A BatchedTensor over ``value`` (batch at dim 0, of ``size``)."""
    return _wrap(value, size)


def _is_b(x):
    return type(x) is BatchedTensor


def _size_of(args):
    for a in args:
        if type(a) is BatchedTensor:
            return a._bb
    return None


def _pad(v, rank):
    """Physical ``v`` (batch first) with singleton dims after the batch so that its
    logical rank is ``rank`` (NumPy broadcasting then lines samples up)."""
    k = rank - (v.dim() - 1)
    if k <= 0:
        return v
    return v.reshape((v.shape[0],) + (1,) * k + tuple(v.shape[1:]))


def _tensor_args(args, kwargs):
    return [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]


def _any_batched(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if type(a) is BatchedTensor:
            return True
        if isinstance(a, (tuple, list)) and any(type(e) is BatchedTensor for e in a):
            return True
    return False


def _delegating(fn, rule):
    """``rule`` for calls with a batched argument, ``fn`` itself for the others (the
    swapped-in functions are seen by every caller, other threads included)."""
    def call(*args, **kwargs):
        if _any_batched(args, kwargs):
            return rule(*args, **kwargs)
        return fn(*args, **kwargs)
    call.__name__ = getattr(fn, "__name__", "rule")
    call.__wrapped__ = fn
    return call


# -------------------------------------------------------------------- rule kinds
def _elementwise(fn):
    """An op broadcasting its tensor operands elementwise (numbers pass through)."""
    def rule(*args, **kwargs):
        ts = _tensor_args(args, kwargs)
        size = _size_of(ts)
        if size is None:
            return fn(*args, **kwargs)
        rank = max(t.dim() for t in ts)

        def phys(a):
            return _pad(a._bv, rank) if type(a) is BatchedTensor else a
        return _wrap(fn(*[phys(a) for a in args], **{k: phys(v) for k, v in kwargs.items()}),
                     size)
    return rule


def _unary(fn):
    """An op of one batched tensor and non-tensor options (activations, clamp, ...)."""
    def rule(x, *args, **kwargs):
        if type(x) is not BatchedTensor:
            if _size_of(_tensor_args(args, kwargs)) is not None:
                raise Unbatchable()
            return fn(x, *args, **kwargs)
        if kwargs.get("inplace") or _tensor_args(args, kwargs):
            raise Unbatchable()
        return _wrap(fn(x._bv, *args, **kwargs), x._bb)
    return rule


def _dims(dim, nd):
    """Logical dim(s) -> physical (shifted by the batch dim); None when not simple."""
    if isinstance(dim, bool):
        return None
    if isinstance(dim, int):
        if not -max(nd, 1) <= dim < max(nd, 1):
            return None
        return dim % max(nd, 1) + 1
    if isinstance(dim, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool)
                                              for d in dim):
        out = [_dims(d, nd) for d in dim]
        return None if None in out else tuple(out)
    return None


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


# ----------------------------------------------------------- matmul and linear
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


# ------------------------------------------------------------------ losses
def _nll(input, target, ignore_index, reduction):
    """nll_loss of one sample (C,) / (N, C) against () / (N,), physically batched."""
    from .._core import dtype as _dtype
    from .._api import functions as T
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


# -------------------------------------------------------------------- methods
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


def _getitem(self, index):
    idx = index if isinstance(index, tuple) else (index,)
    for i in idx:
        if not (i is None or i is Ellipsis or isinstance(i, slice) or
                (isinstance(i, int) and not isinstance(i, bool))):
            raise Unbatchable()         # tensor / list / bool indices: per sample
    return _wrap(self._bv[(slice(None),) + idx], self._bb)


def _same(name):
    def method(self, *args, **kwargs):
        if _tensor_args(args, kwargs):
            raise Unbatchable()
        return _wrap(getattr(self._bv, name)(*args, **kwargs), self._bb)
    method.__name__ = name
    return method


_BINARY = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
           "__rtruediv__", "__pow__", "__rpow__", "__eq__", "__ne__", "__lt__", "__le__",
           "__gt__", "__ge__", "add", "sub", "mul", "div", "pow", "maximum", "minimum")
_UNARY = ("__neg__", "__abs__", "neg", "abs", "exp", "log", "tanh", "sigmoid", "relu", "sin",
          "cos", "sqrt", "rsqrt", "square", "log1p", "expm1", "reciprocal", "clamp", "clip",
          "float", "double", "softplus")


def _install_methods():
    for name in _BINARY:
        base = getattr(Tensor, name, None)
        if base is None:
            continue

        def method(self, *args, _base=base, **kwargs):
            return _elementwise(_base)(self, *args, **kwargs)
        method.__name__ = name
        setattr(BatchedTensor, name, method)
    for name in _UNARY:
        if hasattr(Tensor, name):
            setattr(BatchedTensor, name, _same(name))
    for name in ("sum", "mean", "amax", "amin"):
        setattr(BatchedTensor, name, _reduction(getattr(Tensor, name)))
    for name in ("softmax", "log_softmax"):
        setattr(BatchedTensor, name, _with_dim(getattr(Tensor, name)))
    mm = _matmul(Tensor.matmul)
    BatchedTensor.matmul = BatchedTensor.__matmul__ = lambda a, b: mm(a, b)
    BatchedTensor.__rmatmul__ = lambda a, b: mm(b, a)
    BatchedTensor.__hash__ = Tensor.__hash__
    for name, fn in (("reshape", _reshape), ("view", _view), ("flatten", _flatten),
                     ("unsqueeze", _unsqueeze), ("squeeze", _squeeze),
                     ("transpose", _transpose), ("swapaxes", _transpose), ("t", _t),
                     ("permute", _permute), ("__getitem__", _getitem),
                     ("contiguous", _same("contiguous")), ("clone", _same("clone"))):
        setattr(BatchedTensor, name, fn)
    BatchedTensor.T = property(lambda self: _t(self) if self.dim() <= 2 else _refuse())
    BatchedTensor.mT = property(lambda self: _transpose(self, -2, -1))


_install_methods()
from ._batched_more import install_methods as _more_methods  # noqa: E402  (uses the above)
_more_methods(BatchedTensor)


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


def grad(outputs, inputs, grad_outputs=None, **kwargs):
    """``autograd.grad`` on batched outputs/inputs: run on the physical tensors (a
    cotangent that is not batched is expanded along the batch); batched inputs get
    batched gradients."""
    from .._tensor import creation as _creation
    from .. import autograd
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if grad_outputs is None:
        gos = [None] * len(outs)
    else:
        gos = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    n = size()
    po, pg = [], []
    for o, g in zip(outs, gos):
        if _is_b(o):
            po.append(o._bv)
            if g is None:
                g = _creation.ones_like(o._bv)
            elif _is_b(g):
                g = g._bv
            else:
                g = g.unsqueeze(0).expand((n,) + tuple(g.shape))
        else:
            if _is_b(g):
                raise Unbatchable()     # a batched cotangent for an unbatched graph
            po.append(o)
        pg.append(g)
    pi = [x._bv if _is_b(x) else x for x in ins]
    res = autograd.grad(po, pi, pg, **kwargs)
    return tuple(None if r is None else (_wrap(r, n) if _is_b(x) else r)
                 for r, x in zip(res, ins))


def inner(x, requires_grad):
    """A differentiable stand-in for ``x`` in a batched grad transform: batched (an
    unbatched ``x`` is expanded along the batch, so its gradient is per sample),
    connected to ``x``'s graph when ``requires_grad``."""
    n = size()
    v = x._bv if _is_b(x) else x.unsqueeze(0).expand((n,) + tuple(x.shape))
    if requires_grad:
        return _wrap(v if not _is_b(x) else v.view_as(v), n)
    return _wrap(v.detach().requires_grad_(True), n)


# ---------------------------------------------- module-level functions, swapped in
def _function_rules():
    """(holder, name, rule factory) for the functions with a batching rule."""
    import leafgrad as L
    from ..nn import functional as F
    from ..nn.modules import conv as conv_modules, pooling as pool_modules
    out = []
    for name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "where"):
        out.append((L, name, _elementwise))
    for name in ("exp", "log", "tanh", "sigmoid", "relu", "sin", "cos", "sqrt", "rsqrt",
                 "square", "log1p", "expm1", "abs", "neg", "clamp", "clip", "reciprocal"):
        out.append((L, name, _unary))
    for name in ("relu", "gelu", "silu", "tanh", "sigmoid", "softplus", "elu", "leaky_relu",
                 "relu6", "hardtanh", "mish", "logsigmoid", "dropout"):
        out.append((F, name, _unary))
    for name in ("sum", "mean", "amax", "amin"):
        out.append((L, name, _reduction))
    for holder in (L, F):
        for name in ("softmax", "log_softmax"):
            out.append((holder, name, _with_dim))
    from .._api import functions as _functions
    for holder in (L, _functions):
        out.append((holder, "stack", lambda fn: _join(fn, True)))
        out.append((holder, "cat", lambda fn: _join(fn, False)))
    out += [(L, "matmul", _matmul), (F, "linear", _linear), (F, "conv2d", _conv2d),
            (F, "nll_loss", _nll_loss), (L, "flatten", lambda fn: _flatten_fn(fn))]
    for name in ("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"):
        out.append((F, name, _pool2d))
    from ._batched_more import function_rules
    out += function_rules(L, F)
    out.append((conv_modules.Conv2d, "_fn", _conv2d))
    for cls_name, fname in (("MaxPool2d", "max_pool2d"), ("AvgPool2d", "avg_pool2d"),
                            ("AdaptiveAvgPool2d", "adaptive_avg_pool2d")):
        cls = getattr(pool_modules, cls_name, None)
        if cls is not None and cls.__dict__.get("_fn") is getattr(F, fname):
            out.append((cls, "_fn", _pool2d))
    return out, F


def _flatten_fn(fn):
    def rule(input, start_dim=0, end_dim=-1):
        if not _is_b(input):
            return fn(input, start_dim, end_dim)
        return _flatten(input, start_dim, end_dim)
    return rule


_lock = threading.Lock()
_saved = []             # (holder, name, original) while batched calls run


def _swap_in():
    with _lock:
        _depth[0] += 1
        if _depth[0] > 1:
            return
        rules, F = _function_rules()
        for holder, name, make in rules:
            orig = holder.__dict__.get(name)
            if orig is None:
                continue
            _saved.append((holder, name, orig))
            fn = orig.__func__ if isinstance(orig, staticmethod) else orig
            rule = _delegating(fn, make(fn))
            setattr(holder, name, staticmethod(rule) if isinstance(holder, type) else rule)
        orig_ce = F.__dict__["cross_entropy"]
        _saved.append((F, "cross_entropy", orig_ce))
        F.cross_entropy = _delegating(orig_ce, _cross_entropy(orig_ce, F.log_softmax))


def _swap_out():
    with _lock:
        _depth[0] -= 1
        if _depth[0]:
            return
        while _saved:
            holder, name, orig = _saved.pop()
            setattr(holder, name, orig)


def run(func, args, kwargs, n):
    """``func(*args, **kwargs)`` over a batch of ``n`` with the batching rules in place
    (and random ops refused, as PyTorch's ``randomness='error'``); raises
    :class:`Unbatchable` when it needs the per-sample loop."""
    _swap_in()
    _sizes.append(n)
    _random.vmap_randomness.append("error")
    try:
        return func(*args, **kwargs)
    finally:
        _random.vmap_randomness.pop()
        _sizes.pop()
        _swap_out()
