"""PyTorch's ``grad_fn`` names for ops leafgrad composes from smaller ones."""
import numpy as np

from .. import _errors
from .._tensor import Tensor
from ._dispatch import record
from ._registry import node


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
    return record(cls, out._data if data is None else arr, (out,))


def _renamed(fn, name):
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return _named(fn(*args, **kwargs), name)
    return wrapper
