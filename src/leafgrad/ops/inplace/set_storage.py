"""``Tensor.set_``: point a tensor at another tensor's memory, or at a storage with an
offset, a size and strides (PyTorch's ``set_`` overloads, CPU).

As PyTorch: ``self`` keeps its identity, dtype, version counter and view status; the
version is bumped once; ``t.set_(src)`` takes src's storage, offset, size and strides
(dtypes must match); ``t.set_(storage, offset, size, stride=None)`` reinterprets the
storage's bytes in ``t``'s dtype (contiguous strides when ``stride`` is None);
``t.set_(storage)`` views all of it; ``t.set_()`` gives ``t`` a new empty storage. On a
leaf that requires grad it raises outside ``no_grad``; on a tensor in a graph (or from a
source that requires grad) the result's ``grad_fn`` is ``NotImplemented``, whose backward
raises, as PyTorch's.

One difference: where the storage is too small for the asked layout PyTorch grows it
(moving the memory of every tensor on it); NumPy memory cannot move, so this raises.
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.meta import MetaArray
from ..._tensor.storage import UntypedStorage, untyped_storage
from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import mode
from .._dispatch import record
from .._registry import node
from .arithmetic import _check_inference, _check_leaf

__all__ = ["set_"]

_OVERLOADS = (" * ()\n * (torch.Storage source)\n * (torch.Storage source, int storage_offset, "
              "tuple of ints size, tuple of ints stride = None)\n * (Tensor source)\n * (Tensor "
              "source, int storage_offset, tuple of ints size, tuple of ints stride = None)")


def _no_derivative(ctx, g):
    raise RuntimeError("derivative for aten::set_ is not implemented. Fix: set_ only inside "
                       "`with torch.no_grad():` (or on .data), or build the new value with "
                       "differentiable ops and copy_ it")


_SetNotImplemented = node("NotImplemented", _no_derivative, saves=False)


def _bad_call(args):
    return TypeError("set_() received an invalid combination of arguments - got (%s), but "
                     "expected one of:\n%s" % (", ".join(type(a).__name__ for a in args),
                                               _OVERLOADS))


def _ints(seq, what, args):
    if isinstance(seq, (int, np.integer)) or not hasattr(seq, "__iter__"):
        raise _bad_call(args)
    out = tuple(seq)
    if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in out):
        raise _bad_call(args)
    return tuple(int(s) for s in out)


def _flat_bytes(root):
    """The bytes of the array owning a storage, as a 1-D uint8 view (same memory)."""
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        raise RuntimeError("set_: this storage's memory is not one contiguous block (it "
                           "comes from a NumPy view); set_ needs a tensor that owns its memory")
    return root.ravel(order="K").view(np.uint8)


def _layout_error(offset, size, stride):
    if offset < 0:
        return RuntimeError("Tensor: invalid storage offset %d" % offset)
    if len(size) != len(stride):
        return RuntimeError("unequal size length (%d) and stride length (%d)"
                            % (len(size), len(stride)))
    if any(s < 0 for s in size):
        return RuntimeError("Trying to create tensor with negative dimension %d: %s"
                            % (min(size), list(size)))
    if any(s < 0 for s in stride):
        return RuntimeError("Storage size calculation overflowed with sizes=%s and strides=%s"
                            % (list(size), list(stride)))
    return None


def _on_storage(storage, dtype, offset, size, stride):
    """An ndarray of ``dtype`` viewing ``storage``'s memory with that layout."""
    if stride is None:
        stride, acc = [], 1
        for s in reversed(size):
            stride.insert(0, acc)
            acc *= max(s, 1)
        stride = tuple(stride)
    err = _layout_error(offset, size, stride)
    if err is not None:
        raise err
    if storage._array is None:
        return MetaArray(size, dtype)
    flat = _flat_bytes(storage._array)
    item = np.dtype(dtype).itemsize
    numel = int(np.prod(size, dtype=np.int64))
    need = 0 if numel == 0 else (offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1)
    if need * item > flat.size:
        raise RuntimeError(
            "set_: the storage has %d bytes and the layout (offset %d, size %s, stride %s) "
            "needs %d. PyTorch grows the storage here; leafgrad cannot move memory that "
            "other tensors share. Fix: set_ onto a tensor or storage large enough"
            % (flat.size, offset, list(size), list(stride), need * item))
    if numel == 0:
        return np.empty(size, dtype)
    return np.ndarray(size, dtype, buffer=flat, offset=offset * item,
                      strides=tuple(st * item for st in stride))


def _source_array(self, args, source, storage_offset, size, stride):
    """The array self is to hold, from set_'s arguments (the PyTorch overloads)."""
    dt = self._data.dtype
    if source is None:
        if storage_offset is not None or size is not None or stride is not None:
            raise _bad_call(args)
        return MetaArray((0,), dt) if self._data.__class__ is MetaArray else np.empty(0, dt)
    if isinstance(source, Tensor):
        if source._data.dtype != dt:
            raise RuntimeError(
                "Could not set tensor of type %s to a tensor of type %s: set_ shares memory, "
                "so the dtypes must match. Fix: convert the source first "
                "(src.to(t.dtype)), or give t the source's dtype"
                % (_errors.type_name(source._data.dtype).lower(), _errors.type_name(dt).lower()))
        if storage_offset is None and size is None and stride is None:
            d = source._data
            return d if d.__class__ is MetaArray else d.view()
        storage = untyped_storage(source)
    elif isinstance(source, UntypedStorage):
        storage = source
        if storage_offset is None and size is None and stride is None:
            n = storage.nbytes() // np.dtype(dt).itemsize
            return _on_storage(storage, dt, 0, (n,), (1,))
    else:
        raise _bad_call(args)
    if storage_offset is None or size is None:
        raise _bad_call(args)
    if not isinstance(storage_offset, (int, np.integer)) or isinstance(storage_offset, bool):
        raise _bad_call(args)
    size = _ints(size, "size", args)
    stride = None if stride is None else _ints(stride, "stride", args)
    return _on_storage(storage, dt, int(storage_offset), size, stride)


def set_(self, *args, **kwargs):
    """``t.set_()``, ``t.set_(source)``, ``t.set_(source, storage_offset, size, stride=None)``
    with ``source`` a Tensor or an ``UntypedStorage``: ``t`` shares that memory (see the
    module docstring). Returns ``t``.

    Raises:
        TypeError: arguments matching none of PyTorch's overloads.
        RuntimeError: a tensor source of another dtype; an invalid layout (negative offset,
            size or stride, size and stride of different lengths); a storage too small for
            the layout; a leaf that requires grad outside ``no_grad``.
    """
    names = ("source", "storage_offset", "size", "stride")
    if len(args) > 4 or set(kwargs) - set(names):
        raise _bad_call(args + tuple(kwargs.values()))
    given = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in given:
            raise _bad_call(args + tuple(kwargs.values()))
        given[k] = v
    _check_inference(self)
    if mode.enabled:
        _check_leaf(self, "set_")
    arr = _source_array(self, args + tuple(kwargs.values()), *(given.get(n) for n in names))
    source = given.get("source")
    self._data = arr
    self._bump_version()
    if mode.enabled and (self._grad_fn is not None or (
            isinstance(source, Tensor) and source.requires_grad)):
        res = record(_SetNotImplemented, arr, (self if self._grad_fn is not None else None,
                                               source if isinstance(source, Tensor) else None))
        self._grad_fn, self._output_nr, self._requires_grad = res._grad_fn, 0, True
    return self
