"""``torch.Tensor._make_wrapper_subclass``: tensor subclass instances with a shape, a dtype
and a device and no storage, whose detach / to / clone go to the subclass's
``__torch_dispatch__`` (``_tensor/aten.py``: the dispatched ops and the data class).

Source: torch/csrc/autograd/python_variable.cpp (THPVariable_make_wrapper_subclass).
"""
from .._core import dtype as _dtype
from .aten import WrapperArray
from .creation import device as _device
from .tensor import Tensor


def make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None,
                          dtype=None, layout=None, device=None, pin_memory=False,
                          requires_grad=False, **kwargs):
    """``torch.Tensor._make_wrapper_subclass(cls, size, dtype=..., device=..., ...)``: an
    instance of ``cls`` (a Tensor subclass) with that shape, dtype and device and no
    storage; ``detach``, ``to`` / casts and ``clone`` on it call
    ``cls.__torch_dispatch__(torch.ops.aten.<op>.default, types, args, kwargs)``.

    Raises:
        TypeError: ``cls`` that is not a Tensor subclass.
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("_make_wrapper_subclass(): cls must be a subclass of Tensor, got %r"
                        % (cls,))
    dt = (_dtype.to_dtype(dtype) or _dtype.get_default_dtype()).np
    dev = _device(device if device is not None else "cpu")
    t = Tensor._make_plain(WrapperArray(tuple(size), dt, dev))
    if cls is not Tensor:
        t = _as_class(t, cls)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _as_class(t, cls):
    """``t`` (a plain Tensor) as an instance of the Python subclass ``cls`` (its slots
    copied; the subclass may add a __dict__)."""
    obj = object.__new__(cls)
    for s in Tensor.__slots__:
        if s != "__weakref__" and hasattr(t, s):
            setattr(obj, s, getattr(t, s))
    return obj
