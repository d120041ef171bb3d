"""``out=``: write an op's result into a given tensor, with PyTorch's rules.

* With grad mode on, ``out=`` is refused when an argument (``out`` included)
  requires grad: such calls cannot be differentiated (PyTorch's RuntimeError).
* The result is cast to ``out``'s dtype when the cast stays in its category
  (int64 into float64, float32 into float64); a float into an integer ``out``
  raises, as PyTorch ("result type Float can't be cast ...").
* An ``out`` of another shape is resized: silently when it has no elements,
  with PyTorch's deprecation UserWarning otherwise.
* ``out`` is returned, its version counter bumped (views of it see the values).
"""
import functools

import numpy as np

from .._core import errors as _errors
from .._tensor.tensor import Tensor
from ..autograd.grad_mode import mode


def out_call(name, fn, args, kwargs, out):
    """``fn(*args, **kwargs)`` written into ``out`` (the ``out=`` path of op ``name``); for
    an op with several outputs (``max(dim)``, ``svd``) ``out`` is a tuple of tensors, one
    per output (``out_tuple_call``).

    Raises:
        TypeError: ``out`` not a tensor, or one tensor for an op with several outputs.
        RuntimeError: an argument requires grad with grad mode on; see ``write``.
    """
    if isinstance(out, (tuple, list)):
        return out_tuple_call(name, fn, args, kwargs, out, n=None)
    if not isinstance(out, Tensor):
        raise TypeError("%s(): argument 'out' must be Tensor, not %s"
                        % (name, type(out).__name__))
    if mode.enabled and (out._requires_grad or any(
            isinstance(a, Tensor) and a._requires_grad for a in _flat(args))):
        raise RuntimeError(_errors.out_autograd(name))
    res = fn(*args, **kwargs)
    if isinstance(res, tuple):
        raise TypeError(_errors.out_kind(name, "tuple of Tensors, not Tensor"))
    return write(out, res, name)


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def write(out, result, name):
    """Store ``result`` (a Tensor or ndarray) into ``out``; returns ``out``."""
    arr = result._data if isinstance(result, Tensor) else np.asarray(result)
    dst = out._data
    if arr.dtype != dst.dtype and not np.can_cast(arr.dtype, dst.dtype, "same_kind"):
        raise RuntimeError(_errors.out_cast(arr.dtype, dst.dtype))
    if dst.shape != arr.shape:
        if out._base is not None:
            raise RuntimeError("%s(): out= is a view of shape %s but the result has shape %s: a "
                               "view cannot be resized. Fix: pass an out of shape %s"
                               % (name, list(dst.shape), list(arr.shape), list(arr.shape)))
        if dst.size:
            _errors.warn(_errors.out_resized(dst.shape, arr.shape), UserWarning)
        out._data = dst = np.empty(arr.shape, dst.dtype)
    if not dst.flags.writeable and dst.size:
        raise _errors.write_refused(dst)
    np.copyto(dst, arr, casting="unsafe")
    out._bump_version()
    return out


def out_tuple_call(name, fn, args, kwargs, out, n=2):
    """``out=(values, indices)`` of an op returning a tuple (cummax, kthvalue, qr, ...):
    each part written into its tensor; returns the op's namedtuple of the ``out`` tensors.
    ``n``: the length ``out`` must have (checked before computing), None for any."""
    if not (isinstance(out, (tuple, list)) and (n is None or len(out) == n)
            and all(isinstance(o, Tensor) for o in out)):
        raise TypeError("%s(): argument 'out' must be tuple of Tensors, not %s. Fix: "
                        "out=(values, indices)" % (name, type(out).__name__))
    if mode.enabled and (any(o._requires_grad for o in out) or any(
            isinstance(a, Tensor) and a._requires_grad for a in _flat(args))):
        raise RuntimeError(_errors.out_autograd(name))
    res = fn(*args, **kwargs)
    if not isinstance(res, tuple):
        raise TypeError(_errors.out_kind(name, "Tensor, not tuple"))
    if len(res) != len(out):
        raise RuntimeError("%s(): expected out= to be a tuple of %d tensors, got %d"
                           % (name, len(res), len(out)))
    outs = [write(o, r, name) for o, r in zip(out, res)]
    return type(res)(*outs) if hasattr(res, "_fields") else tuple(outs)


def with_out(name):
    """Decorator: the ``out=`` keyword (one tensor or a tuple) for an op written as a
    plain function, not through a declaration's derived forms. Without it such a function
    would accept ``out=`` and ignore it."""
    def deco(fn):
        @functools.wraps(fn)
        def op(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return out_call(name, fn, args, kwargs, out)
        return op
    return deco
