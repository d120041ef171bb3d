"""Tensors across libraries without copies: DLPack and ``torch.asarray``.

``Tensor.__dlpack__``/``__dlpack_device__`` export a tensor's NumPy array through the
DLPack protocol (https://dmlc.github.io/dlpack/latest/python_spec.html), so
``torch.from_dlpack(t)`` and ``np.from_dlpack(t)`` share its memory; :func:`from_dlpack`
takes any object with ``__dlpack__`` (a ``torch.Tensor``, a NumPy array) or a legacy
DLPack capsule (``torch.utils.dlpack.to_dlpack``) and shares its memory too. Memory that
is shared is not watched: an in-place change made through the other library does not bump
leafgrad's version counter (as between PyTorch and NumPy).
"""
import enum

import numpy as np

from .._core import dtype as _dtype
from .._tensor.tensor import Tensor

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack", "asarray"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes, as ``torch.utils.dlpack.DLDeviceType`` names them."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a DLPack capsule of this tensor's memory (no copy).

    Raises:
        BufferError: the tensor requires grad (as PyTorch: export ``t.detach()``), or a
            device other than the CPU is asked for.
    """
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if dl_device is not None and tuple(dl_device) != (DLDeviceType.kDLCPU, 0):
        raise BufferError("leafgrad tensors live on the CPU; cannot export to device %r"
                          % (dl_device,))
    arr = self._data
    kwargs = {"copy": copy}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if not arr.flags.writeable and (max_version is None or tuple(max_version) < (1, 0)):
        arr = np.array(arr, copy=True)   # DLPack < 1.0 cannot say read-only: export a copy
    return arr.__dlpack__(**kwargs)


def _dlpack_device(self):
    """``Tensor.__dlpack_device__``: ``(DLDeviceType.kDLCPU, 0)``."""
    return (DLDeviceType.kDLCPU, 0)


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device


class _Capsule:
    """A legacy DLPack capsule seen through the protocol that ``np.from_dlpack`` reads."""
    __slots__ = ("capsule",)

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


def from_dlpack(ext_tensor):
    """A leafgrad tensor sharing memory with ``ext_tensor`` (``torch.from_dlpack``).

    Args:
        ext_tensor: an object with ``__dlpack__``/``__dlpack_device__`` on the CPU, or a
            DLPack capsule (consumed).

    Raises:
        BufferError: the producer refuses (a torch tensor that requires grad, a GPU tensor).
        TypeError: a dtype leafgrad has no equivalent of (bfloat16, uint16, ...).
    """
    if isinstance(ext_tensor, Tensor):
        return Tensor._make_plain(ext_tensor._data)
    src = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    try:
        arr = np.from_dlpack(src)
    except (TypeError, BufferError, RuntimeError) as exc:
        if "type" in str(exc).lower() and "requires grad" not in str(exc):
            raise TypeError("from_dlpack: the tensor's dtype has no leafgrad equivalent (%s). "
                            "Fix: convert it first, e.g. t.float() in PyTorch." % exc) from None
        raise
    _dtype.from_numpy_dtype(arr.dtype)
    return Tensor._make_plain(arr)


def to_dlpack(tensor):
    """A DLPack capsule of ``tensor``'s memory (``torch.utils.dlpack.to_dlpack``)."""
    return tensor.__dlpack__()


_UNSET = object()


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=_UNSET):
    """``torch.asarray``: a tensor from ``obj``, sharing memory when it can.

    Args:
        obj: a tensor (returned as is unless a copy or another dtype is asked for), an
            object with ``__dlpack__`` or the array/buffer protocols (a NumPy array, a
            ``torch.Tensor``: memory shared), or a (nested) sequence or number (copied).
        dtype: the result's dtype; another dtype than ``obj``'s means a copy.
        copy: ``True`` always copies; ``False`` raises ValueError where a copy is needed;
            ``None`` copies only when needed.
        requires_grad: default: ``obj.requires_grad`` for a tensor, else False.

    Raises:
        ValueError: ``copy=False`` and ``obj`` cannot be aliased (a sequence, a dtype change).
    """
    from .._tensor.creation import _require_cpu, tensor
    _require_cpu(device)
    dtype = _dtype.to_dtype(dtype)
    if isinstance(obj, Tensor):
        if dtype is not None and dtype is not obj.dtype:
            if copy is False:
                raise ValueError("can't alias tensor with dtype '%s' into dtype '%s'."
                                 % (_errors_type(obj.dtype), _errors_type(dtype)))
            out = obj.to(dtype)
        elif copy:
            out = obj.detach().clone()
            if obj.requires_grad and requires_grad is _UNSET:
                out.requires_grad_(True)
        else:
            out = obj
    else:
        arr = _shared_array(obj)
        if arr is None:
            if copy is False:
                raise ValueError("can't alias arbitrary sequence into a tensor.")
            out = tensor(obj, dtype=dtype)
        else:
            if dtype is not None and arr.dtype != dtype.np:
                if copy is False:
                    raise ValueError("can't alias %s with dtype '%s' into dtype '%s'."
                                     % (type(obj).__name__, arr.dtype, dtype.name))
                arr = arr.astype(dtype.np)
            elif copy:
                arr = np.array(arr, copy=True)
            _dtype.from_numpy_dtype(arr.dtype)
            out = Tensor._make_plain(arr)
    if requires_grad is not _UNSET and requires_grad and not out.requires_grad:
        out.requires_grad_(True)
    return out


def _errors_type(d):
    from .._core.errors import type_name
    return type_name(d)


def _shared_array(obj):
    """An ndarray sharing ``obj``'s memory, or None when ``obj`` has none to share."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.generic):
        try:
            return np.from_dlpack(obj)
        except (BufferError, TypeError, RuntimeError):
            if type(obj).__module__.split(".")[0] == "torch" and getattr(obj, "requires_grad",
                                                                          False):
                return np.from_dlpack(obj.detach())
            raise
    if hasattr(obj, "__array_interface__") and not isinstance(obj, np.generic):
        return np.asarray(obj)
    return None
