"""``with_out(name)``: the ``out=`` keyword for ops written as plain functions (not
through a declaration's derived forms), one tensor or a tuple of them (``torch.max(x, 0,
out=(values, indices))``), with the rules of ops/_out.py (autograd refusal, casts,
resizing, version bump). Without it such a function would accept ``out=`` and ignore it.
"""
import functools

from .. import _errors
from .._tensor import Tensor
from ..autograd.grad_mode import mode
from ._out import _flat, out_call, write


def with_out(name):
    def deco(fn):
        @functools.wraps(fn)
        def op(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            if not isinstance(out, (tuple, list)):
                return out_call(name, fn, args, kwargs, out)
            return _tuple_out(name, fn, args, kwargs, out)
        return op
    return deco


def _tuple_out(name, fn, args, kwargs, out):
    if not all(isinstance(o, Tensor) for o in out):
        raise TypeError("%s(): argument 'out' must be tuple of Tensors" % name)
    if mode.enabled and any(isinstance(a, Tensor) and a._requires_grad
                            for a in list(_flat(args)) + list(out)):
        raise RuntimeError(_errors.out_autograd(name))
    res = fn(*args, **kwargs)
    if len(res) != len(out):
        raise RuntimeError("%s(): expected out= to be a tuple of %d tensors, got %d"
                           % (name, len(res), len(out)))
    for o, r in zip(out, res):
        write(o, r, name)
    return type(res)(*out) if hasattr(res, "_fields") else tuple(out)
