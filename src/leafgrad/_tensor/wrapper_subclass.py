"""``torch.Tensor._make_wrapper_subclass``: tensor subclass instances with a shape, a dtype
and a device and no storage, whose detach / to / clone go to the subclass's
``__torch_dispatch__`` (``_tensor/aten.py``: the dispatched ops and the data class);
``torch.Tensor._make_subclass``: an instance of a subclass that shares a tensor's memory.

Source: torch/csrc/autograd/python_variable.cpp (THPVariable_make_wrapper_subclass).
"""
from .._core import dtype as _dtype
from .aten import WrapperArray
from .creation import device as _device
from .tensor import Tensor, _in_class


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


_as_class = _in_class    # t (a plain Tensor) as an instance of the subclass cls


def make_subclass(cls, data, require_grad=False, dispatch_sizes_strides_policy=None,
                  dispatch_device=False, dispatch_layout=False, _extra_dispatch_keys=None,
                  storage_size=None):
    """``torch.Tensor._make_subclass(cls, data, require_grad=False)``: an instance of ``cls``
    (a Tensor subclass; ``__new__`` of subclasses such as geoopt's ``ManifoldTensor`` calls
    it) sharing ``data``'s memory and version counter, a leaf, with ``requires_grad`` set
    to ``require_grad`` (PyTorch: ``data.detach()`` given the class). The dispatch options
    concern ``__torch_dispatch__`` subclasses, which this path does not make: accepted and
    ignored.

    Raises:
        TypeError: ``cls`` not a Tensor subclass, ``data`` not a Tensor.
        RuntimeError: ``require_grad=True`` on an integer or bool tensor.
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    if not isinstance(data, Tensor):
        raise TypeError("_make_subclass(): argument 'data' (position 2) must be Tensor, not %s"
                        % type(data).__name__)
    t = Tensor._make_plain(data._data)
    t._share_version(data)
    if cls is not Tensor:
        t = _as_class(t, cls)
    if require_grad:
        t.requires_grad_(True)
    return t


def as_subclass(self, cls):
    """``t.as_subclass(cls)``: ``t`` seen as an instance of the Tensor subclass ``cls``,
    sharing its memory and staying in its graph (a view of ``t``; PyTorch records
    ``AliasBackward0``, leafgrad the view op's node, with the same gradient)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    v = _view_all[0](self)
    return v if cls is Tensor else _as_class(v, cls)


_view_all = [None]      # a view of the whole tensor (ops/shape, a layer above): bound there
