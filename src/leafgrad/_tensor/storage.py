"""Memory-identity methods of Tensor: ``data_ptr``, ``untyped_storage``, ``storage`` (the
deprecated ``TypedStorage``), ``share_memory_``/``is_shared``, ``nbytes``, ``itemsize``,
``_is_view``, ``is_signed``, ``is_nonzero``, as PyTorch answers them on the CPU.

Scripts use them to tell views from copies (``a.data_ptr() == b.data_ptr()``,
``x.untyped_storage().data_ptr()``). A tensor's storage is the NumPy array that owns the
memory (the end of the ``.base`` chain, as in ``_methods._storage_offset``); meta tensors
have no memory: data pointer 0, as PyTorch's meta tensors.
"""
import warnings
import weakref

import numpy as np

from .meta import MetaArray

_ndarray = np.ndarray
# one storage object per owning array while it is in use: PyTorch gives the same Python
# object for x.untyped_storage() each time (the storage keeps its array, so the id is not reused)
_live = weakref.WeakValueDictionary()
# owning arrays share_memory_() was called on (CPU: nothing moves; is_shared() says True after)
_shared = weakref.WeakValueDictionary()   # id -> array (arrays are not hashable)
_warned = []


def _root(a):
    while isinstance(a.base, _ndarray):
        a = a.base
    return a


def _address(a):
    return a.__array_interface__["data"][0]


class UntypedStorage:
    """The bytes a tensor and its views share (``torch.UntypedStorage``, CPU only).
    ``data_ptr()`` is where they start; ``nbytes()``/``size()``/``len()`` count bytes."""

    __slots__ = ("_array", "__weakref__")
    __module__ = "torch.storage"

    def __init__(self, array):
        self._array = array

    def data_ptr(self):
        return 0 if self._array is None else _address(self._array)

    def nbytes(self):
        return 0 if self._array is None else self._array.nbytes

    size = nbytes
    __len__ = nbytes

    def __sizeof__(self):
        # as PyTorch's: the object plus its bytes (sys.getsizeof; torchinfo's input size)
        return object.__sizeof__(self) + self.nbytes()

    def element_size(self):
        return 1

    @property
    def device(self):
        from .creation import device
        return device("meta" if self._array is None else "cpu")

    is_cuda = False

    def is_shared(self):
        return self._array is not None and _shared.get(id(self._array)) is self._array

    def share_memory_(self):
        if self._array is not None:
            _shared[id(self._array)] = self._array
        return self

    def type(self):
        return "torch.storage.UntypedStorage"

    def _bytes(self):
        if self._array is None:
            return np.zeros(0, np.uint8)
        return np.frombuffer(np.ascontiguousarray(self._array).tobytes(), np.uint8)

    def tolist(self):
        return self._bytes().tolist()

    def __getitem__(self, i):
        return self._bytes()[i].tolist()

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and self._array is other._array

    __hash__ = object.__hash__

    def __repr__(self):
        return " %s\n[torch.storage.UntypedStorage(device=%s) of size %d]" % (
            "\n ".join(str(b) for b in self._bytes().tolist()), self.device, self.nbytes())


class TypedStorage:
    """``Tensor.storage()``: the tensor's storage as elements of its dtype (PyTorch's
    deprecated ``torch.TypedStorage``; ``untyped()`` gives the bytes)."""

    __slots__ = ("_untyped", "dtype")
    __module__ = "torch.storage"

    def __init__(self, untyped, dtype):
        self._untyped, self.dtype = untyped, dtype

    def _values(self):
        a = self._untyped._array
        if a is None:
            return np.zeros(0, self.dtype.np)
        return np.ascontiguousarray(a).reshape(-1).view(np.uint8).view(self.dtype.np)

    def untyped(self):
        return self._untyped

    _untyped_storage = property(untyped)

    def size(self):
        return self._untyped.nbytes() // self.dtype.itemsize

    __len__ = size

    def nbytes(self):
        return self._untyped.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped.data_ptr()

    @property
    def device(self):
        return self._untyped.device

    is_cuda = False

    def is_shared(self):
        return self._untyped.is_shared()

    def share_memory_(self):
        self._untyped.share_memory_()
        return self

    def tolist(self):
        return self._values().tolist()

    def __getitem__(self, i):
        return self._values()[i].tolist()

    def __eq__(self, other):
        return isinstance(other, TypedStorage) and self._untyped == other._untyped and \
            self.dtype == other.dtype

    __hash__ = object.__hash__

    def __repr__(self):
        return " %s\n[torch.storage.TypedStorage(dtype=%s, device=%s) of size %d]" % (
            "\n ".join(str(v) for v in self.tolist()), self.dtype, self.device, self.size())


def storage(self):
    """The deprecated ``TypedStorage`` of the tensor, with PyTorch's warning (once)."""
    if not _warned:
        _warned.append(True)
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=2)
    return TypedStorage(untyped_storage(self), self.dtype)


def share_memory_(self):
    """CPU: the memory stays where it is (NumPy's); ``is_shared()`` is True afterwards, for
    this tensor and its views, as PyTorch's. Returns self."""
    untyped_storage(self).share_memory_()
    return self


def is_shared(self):
    return untyped_storage(self).is_shared()


def is_signed(input):
    """Whether the dtype has negative values (``torch.is_signed``): False for bool and
    uint8, True for the others (complex included, as PyTorch)."""
    return input.dtype.is_signed or input.dtype.is_complex


def is_nonzero(input):
    """``bool(input)`` for a tensor of one element (``torch.is_nonzero``).

    Raises:
        RuntimeError: no elements, or more than one.
    """
    return bool(input)


def data_ptr(self):
    """Address of the tensor's first element (0 for meta and for empty tensors, as PyTorch)."""
    a = self._data
    if a.__class__ is MetaArray or a.size == 0:
        return 0
    return _address(a)


def untyped_storage(self):
    """The tensor's ``UntypedStorage`` (the same object for a tensor and all its views)."""
    a = self._data
    if a.__class__ is MetaArray:
        return UntypedStorage(None)
    root = _root(a)
    got = _live.get(id(root))
    if got is None or got._array is not root:
        got = _live[id(root)] = UntypedStorage(root)
    return got


def nbytes(self):
    """numel * element size (of this view, not of its storage: PyTorch's ``Tensor.nbytes``)."""
    return self._data.size * self._data.itemsize


def itemsize(self):
    """Bytes per element (``element_size()``)."""
    return self._data.itemsize


def is_view(self):
    """Whether the tensor was made as a view of another (has a ``_base``)."""
    return self._base is not None


def get_device(self):
    """-1: the tensor is on the CPU (or meta), as PyTorch answers for non-CUDA tensors."""
    return -1


METHODS = {"data_ptr": data_ptr, "untyped_storage": untyped_storage, "_is_view": is_view,
           "get_device": get_device, "storage": storage, "share_memory_": share_memory_,
           "is_shared": is_shared, "is_signed": is_signed, "is_nonzero": is_nonzero}
PROPERTIES = {"nbytes": nbytes, "itemsize": itemsize}
