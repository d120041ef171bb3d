"""``torch.utils.swap_tensors(t1, t2)``: swap the contents (type, attributes, data,
autograd state) of two tensors, keeping each object's identity.

Source: PyTorch's ``torch/utils/__init__.py`` (same checks and the same poisoned
gradient accumulator for a leaf that has one).
"""
import weakref

from .._tensor.tensor import Tensor

_POISONED = (
    "Trying to execute AccumulateGrad node that was poisoned by swap_tensors: this happens "
    "when backward runs through a tensor that was swapped after the forward pass used it. "
    "Fix: swap (or change the module's device/dtype with "
    "torch.__future__.set_swap_module_params_on_conversion(True)) before the forward pass, "
    "or after both forward and backward.")

_SLOTS = [s for s in Tensor.__slots__ if s != "__weakref__"]


class _Poisoned:
    """Stands for the variable of an accumulator recorded before a swap: backward through
    it raises (PyTorch poisons that node in the same way)."""
    __slots__ = ()

    def __getattr__(self, name):
        raise RuntimeError(_POISONED)


def swap_tensors(t1, t2):
    """Swap the contents of tensors ``t1`` and ``t2`` in place.

    Raises:
        RuntimeError: a tensor with weak references to it (PyTorch's rule), or not a tensor.
    """
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise RuntimeError("Cannot swap %s: swap_tensors needs two tensors, got %s"
                               % (name, type(t).__name__))
        if weakref.getweakrefcount(t):
            raise RuntimeError("Cannot swap %s because it has weakref associated with it" % name)
    for t in (t1, t2):
        # a graph recorded before the swap reaches the old leaf through its accumulator
        acc = t._acc() if t._acc is not None else None
        if acc is not None:
            acc.variable = _Poisoned()
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    d1, d2 = getattr(t1, "__dict__", None), getattr(t2, "__dict__", None)
    if d1 is not None or d2 is not None:
        t1.__dict__, t2.__dict__ = d2 or {}, d1 or {}
    for s in _SLOTS:
        a, b = getattr(t1, s, _MISSING), getattr(t2, s, _MISSING)
        for t, v in ((t1, b), (t2, a)):
            if v is _MISSING:
                if hasattr(t, s):
                    delattr(t, s)
            else:
                setattr(t, s, v)
    t1._acc = t2._acc = None


_MISSING = object()
