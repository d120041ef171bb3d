"""Memory-identity methods of Tensor: ``data_ptr``, ``untyped_storage``, ``nbytes``, ``itemsize``,
``_is_view``, as PyTorch answers them on the CPU.

Scripts use them to tell views from copies (``a.data_ptr() == b.data_ptr()``,
``x.untyped_storage().data_ptr()``). A tensor's storage is the NumPy array that owns the
memory (the end of the ``.base`` chain, as in ``_methods._storage_offset``); meta tensors
have no memory: data pointer 0, as PyTorch's meta tensors.
"""
import weakref

import numpy as np

from .meta import MetaArray

_ndarray = np.ndarray
# one storage object per owning array while it is in use: PyTorch gives the same Python
# object for x.untyped_storage() each time (the storage keeps its array, so the id is not reused)
_live = weakref.WeakValueDictionary()


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
        return False

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
           "get_device": get_device}
PROPERTIES = {"nbytes": nbytes, "itemsize": itemsize}
