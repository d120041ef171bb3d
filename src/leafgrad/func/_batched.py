"""Batched execution for ``vmap``: the function runs once on the whole batch.

Inside a batched ``vmap`` call the mapped inputs are :class:`BatchedTensor` s: a tensor
whose *logical* shape is one sample's, holding a *physical* plain tensor with the batch
along dim 0. The common ops have a batching rule (``_batching/``, one file per family:
elementwise, reductions and norms, views / joins / indexing, linear algebra, nn ops)
that turns the logical call into one physical call of the same op; autograd then runs
on the physical tensors, so ``grad``, ``vjp`` and ``jacrev`` inside ``vmap`` are
batched too (a parameter that is not mapped is expanded along the batch, so its
gradient comes out per sample). This file is the batched call itself: the rules put
in place, ``run``, and ``grad`` / ``inner`` for the transforms inside.

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
from .._tensor.tensor import Tensor
from ..autograd._batching_state import Unbatchable, depth as _depth
from ._batching import elementwise, linalg, nn, reduce, shape
from ._batching.tensor import BatchedTensor, _any_batched, _is_b, _wrap, wrap  # noqa: F401

_sizes = []             # the batch size of each batched call running (innermost last)
_FAMILIES = (elementwise, reduce, shape, linalg, nn)     # nn last: see its function_rules


def active():
    return _depth[0] > 0


def size():
    """The batch size of the batched call running."""
    return _sizes[-1]


for _family in _FAMILIES:
    _family.install_methods(BatchedTensor)
del _family


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
    return [rule for family in _FAMILIES for rule in family.function_rules(L, F)]


_lock = threading.Lock()
_saved = []             # (holder, name, original) while batched calls run


def _swap_in():
    with _lock:
        _depth[0] += 1
        if _depth[0] > 1:
            return
        for holder, name, make in _function_rules():
            orig = holder.__dict__.get(name)
            if orig is None:
                continue
            _saved.append((holder, name, orig))
            fn = orig.__func__ if isinstance(orig, staticmethod) else orig
            rule = _delegating(fn, make(fn))
            setattr(holder, name, staticmethod(rule) if isinstance(holder, type) else rule)


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

