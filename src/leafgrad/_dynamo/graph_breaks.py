"""What makes a compiled call a graph break: reading tensor values into Python.

While a compiled function's capturing call runs, ``watch()`` wraps the ``Tensor`` methods
whose result is a Python value or a shape that depends on the data (``item``, ``bool``,
``tolist``, ``numpy``, printing, ``nonzero``, boolean-mask indexing, ...) so that each use
notes a reason (PyTorch's wording, torch/_dynamo/variables/tensor.py) before running as
usual. Eager calls never go through the wrappers: they are installed for the capturing
call only and removed after it. Under ``fullgraph=True`` the first reason raises
``torch._dynamo.exc.Unsupported`` instead.
"""
import contextlib

from .._core.dtype import bool_
from .exc import Unsupported

_ITEM = "Unsupported Tensor.item() call with capture_scalar_outputs=False"
_DYNAMIC = "Dynamic shape operator (data-dependent output shape): aten.%s.default"
# method name -> the reason its use gives
_REASONS = {
    "item": _ITEM,
    "__float__": _ITEM, "__int__": _ITEM, "__index__": _ITEM, "__complex__": _ITEM,
    "__bool__": "Data-dependent branching: bool() of a tensor",
    "tolist": "Unsupported Tensor.tolist() call",
    "numpy": "Unsupported Tensor.numpy() call",
    "__repr__": "Unsupported: printing a tensor (Tensor.__repr__)",
    "__str__": "Unsupported: printing a tensor (Tensor.__str__)",
    "__format__": "Unsupported: formatting a tensor (Tensor.__format__)",
    "nonzero": _DYNAMIC % "nonzero", "argwhere": _DYNAMIC % "nonzero",
    "masked_select": _DYNAMIC % "masked_select", "unique": _DYNAMIC % "_unique2",
}
_MASK = _DYNAMIC % "index (boolean mask)"


class _Watch:
    """The reasons noted during one capturing call."""

    def __init__(self, fullgraph):
        self.fullgraph = fullgraph
        self.reasons = []

    def note(self, reason):
        if self.fullgraph:
            raise Unsupported(reason + ". torch.compile(fullgraph=True) refuses a graph break: "
                              "drop fullgraph=True to run this function eagerly, or keep the "
                              "value a tensor")
        if reason not in self.reasons:
            self.reasons.append(reason)


_active = []   # the watches of the capturing calls now running (innermost last)


def note(reason):
    """Note ``reason`` on the innermost capturing call, if one runs (compiler.disable uses it)."""
    if _active:
        _active[-1].note(reason)


def _wrap(fn, reason):
    def wrapper(*args, **kwargs):
        if _active:
            _active[-1].note(reason)
        return fn(*args, **kwargs)
    wrapper.__name__ = fn.__name__
    return wrapper


def _wrap_getitem(fn, tensor_cls):
    def __getitem__(self, index):
        if _active and _has_mask(index, tensor_cls):
            _active[-1].note(_MASK)
        return fn(self, index)
    return __getitem__


def _has_mask(index, tensor_cls):
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, tensor_cls) and i.dtype is bool_ for i in items) if items else False


@contextlib.contextmanager
def watch(fullgraph):
    """Note the graph breaks of the code run inside; yields the ``_Watch``."""
    from .._tensor.tensor import Tensor
    w = _Watch(fullgraph)
    installed = {}
    if not _active:
        for name, reason in _REASONS.items():
            fn = Tensor.__dict__.get(name)
            if fn is not None:
                installed[name] = fn
                setattr(Tensor, name, _wrap(fn, reason))
        fn = Tensor.__dict__.get("__getitem__")
        if fn is not None:
            installed["__getitem__"] = fn
            Tensor.__getitem__ = _wrap_getitem(fn, Tensor)
    _active.append(w)
    try:
        yield w
    finally:
        _active.pop()
        for name, fn in installed.items():
            setattr(Tensor, name, fn)
