"""``out=`` for the factory functions (``zeros``, ``rand``, ``arange``, ...), with
PyTorch's rules: the result takes ``out``'s dtype when no ``dtype`` is given; a ``dtype``
other than ``out``'s raises ("dtype Float does not match dtype of out parameter (Long)");
``out`` requiring grad raises under grad mode; then ops/_out.write stores the result
(resize, version bump) and ``out`` is returned. The random factories draw exactly what
they draw without ``out`` (same stream).
"""
import functools

from .._core import dtype as _dtype, errors as _errors
from .tensor import Tensor
from ..autograd.grad_mode import mode


def takes_out(name, has_dtype=True, long_out=False, any_out=False):
    """Decorator: handle ``out=`` for factory ``name`` around the factory itself
    (``long_out``: ``out`` must be int64, as multinomial's; ``any_out``: the 0/1 result is
    stored into an ``out`` of any dtype, as bernoulli's)."""
    def deco(fn):
        @functools.wraps(fn)
        def factory(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            if not isinstance(out, Tensor):
                raise TypeError("%s(): argument 'out' must be Tensor, not %s"
                                % (name, type(out).__name__))
            if long_out and out.dtype is not _dtype.int64:
                raise RuntimeError("%s expects Long tensor out, got: %s. Fix: pass an out of "
                                   "dtype torch.int64 (indices)" % (name, _errors.type_name(out.dtype)))
            if has_dtype:
                dt = kwargs.get("dtype")
                if dt is None:
                    kwargs["dtype"] = out.dtype
                elif _dtype.to_dtype(dt) is not out.dtype:
                    raise RuntimeError(
                        "dtype %s does not match dtype of out parameter (%s). Fix: leave "
                        "dtype out (the result takes out's dtype) or pass an out of dtype %s."
                        % (_errors.type_name(_dtype.to_dtype(dt)), _errors.type_name(out.dtype),
                           _dtype.to_dtype(dt)))
            if kwargs.get("requires_grad") or (mode.enabled and out._requires_grad):
                raise RuntimeError(_errors.out_autograd(name))
            from ..ops._out import write
            res = fn(*args, **kwargs)
            if any_out:
                res = res._data.astype(out._data.dtype)
            return write(out, res, name)
        return factory
    return deco
