"""PyTorch's ``grad_fn`` names for ops leafgrad composes from smaller ones."""
import numpy as np

from .._core import errors as _errors
from .._tensor.tensor import Tensor
from ._dispatch import record
from ._registry import node
from ._trace import tape as _tape


def _tname(npd):
    return _errors.type_name(np.dtype(npd))


_NAMED = {}


def _named(out, name, data=None):
    """``out`` behind a pass-through node called ``name``: ops that leafgrad builds
    from smaller ones (softplus, gelu, the logits BCE, ...) show PyTorch's
    ``grad_fn`` name when printed (``grad_fn=<SoftplusBackward0>``).

    ``data``: a function of ``out``'s array giving the value to return instead
    (a change autograd does not see, like PyTorch's in-place edits under no_grad)."""
    if data is not None:
        arr = data(out._data)
        if out._grad_fn is None:
            return Tensor._make_plain(arr)
    elif out._grad_fn is None:
        return out
    cls = _NAMED.get(name)
    if cls is None:
        cls = _NAMED[name] = node(name, lambda ctx, g: (g,), saves=False,
                                  np_backward=lambda ctx, g: (g,))
    res = record(cls, out._data if data is None else arr, (out,))
    if data is None and _tape[0] is not None:   # torch.compile's capture (ops/_trace.py)
        _tape[0].alias(res)
    return res


def _named_all(res, name):
    """``_named`` on a result or on each tensor of a tuple result (namedtuples kept);
    outputs without a graph stay as they are."""
    if isinstance(res, Tensor):
        return _named(res, name)
    if isinstance(res, tuple):
        items = [_named(r, name) if isinstance(r, Tensor) else r for r in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    return res


def _renamed(fn, name):
    """``fn`` whose result(s) show PyTorch's grad_fn ``name`` (not with ``out=``: the
    result is then ``out`` itself)."""
    import functools
    code = fn.__code__
    if "out" not in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return _named_all(fn(*args, **kwargs), name)
        return wrapper

    # the op writes out= itself: keep the keyword visible (ops/_forms._takes_out)
    @functools.wraps(fn)
    def wrapper_out(*args, out=None, **kwargs):
        if out is not None:
            return fn(*args, out=out, **kwargs)
        return _named_all(fn(*args, **kwargs), name)
    return wrapper_out


def grad_fn_named(name):
    """Decorator form of :func:`_renamed`, put under ``@defop``: a composite op shows
    PyTorch's grad_fn name (``torch.dist`` -> ``DistBackward0``)."""
    return lambda fn: _renamed(fn, name)
