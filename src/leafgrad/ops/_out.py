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
import warnings

import numpy as np

from .. import _errors
from .._tensor import Tensor
from ..autograd.grad_mode import mode


def out_call(name, fn, args, kwargs, out):
    """``fn(*args, **kwargs)`` written into ``out`` (the ``out=`` path of op ``name``); for
    an op with several outputs (``max(dim)``, ``svd``) ``out`` is a tuple of tensors, one
    per output, and the result is that tuple (the op's namedtuple type where it has one).

    Raises:
        TypeError: ``out`` not a tensor (not a tuple of them for a multi-output op).
        RuntimeError: an argument requires grad with grad mode on; see ``write``.
    """
    many = isinstance(out, (tuple, list))
    outs = tuple(out) if many else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError("%s(): argument 'out' must be Tensor, not %s"
                            % (name, type(o).__name__))
    if mode.enabled and (any(o._requires_grad for o in outs) or any(
            isinstance(a, Tensor) and a._requires_grad for a in _flat(args))):
        raise RuntimeError(_errors.out_autograd(name))
    res = fn(*args, **kwargs)
    if not many:
        if isinstance(res, tuple):
            raise TypeError(_errors.out_kind(name, "tuple of Tensors, not Tensor"))
        return write(out, res, name)
    if not isinstance(res, tuple) or len(res) != len(outs):
        raise TypeError(_errors.out_kind(
            name, "Tensor, not tuple" if not isinstance(res, tuple)
            else "a tuple of %d Tensors, not %d" % (len(res), len(outs))))
    for o, r in zip(outs, res):
        write(o, r, name)
    return type(res)(*outs) if hasattr(res, "_fields") else outs


def takes_out(name):
    """Decorator: ``out=`` for a function that computes its result without it (the
    function's own ``out`` parameter stays None): with ``out`` given, the result is
    written there by ``out_call`` (PyTorch's rules) and ``out`` is returned. No cost
    without ``out`` beyond one call."""
    def deco(fn):
        def op(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return out_call(name, fn, args, kwargs, out)
        functools.update_wrapper(op, fn)
        op._params_of = fn      # its parameters are fn's (leafgrad._numpy_compat reads them)
        return op
    return deco


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
            warnings.warn(_errors.out_resized(dst.shape, arr.shape), UserWarning, stacklevel=4)
        out._data = dst = np.empty(arr.shape, dst.dtype)
    np.copyto(dst, arr, casting="unsafe")
    out._bump_version()
    return out
