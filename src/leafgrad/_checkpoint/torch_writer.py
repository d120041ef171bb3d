"""Writing PyTorch's ``torch.save`` zip format without PyTorch (``torch.save(obj, f)`` with
``leafgrad.save(..., _use_new_zipfile_serialization=True)``): the object pickled at protocol
2 with tensors as persistent ids, each storage a 64-byte-aligned record, as PyTorch's
``torch/serialization.py`` writes them. Reading: ``_checkpoint/torch_reader.py``.
"""
import io
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np

from .._core import dtype as _dtype
from .._tensor.tensor import Tensor
from .torch_reader import _STORAGE_OF


class _Global:
    """A global written by name (``torch._utils._rebuild_tensor_v2``) without importing it."""
    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):       # pickle checks that a reduce function is callable
        raise TypeError("%s.%s is only written by name" % (self.module, self.name))


class _StorageRef:
    __slots__ = ("key", "array")

    def __init__(self, key, array):
        self.key, self.array = key, array


class _Writer(pickle._Pickler):
    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = []
        self._globals = {}

    def _global(self, module, name):
        key = (module, name)
        if key not in self._globals:
            self._globals[key] = _Global(module, name)
        return self._globals[key]

    def save_marker(self, obj):
        self.write(pickle.GLOBAL + ("%s\n%s\n" % (obj.module, obj.name)).encode("utf-8"))
        self.memoize(obj)
    dispatch[_Global] = save_marker

    def save_dtype(self, obj):
        self.save(self._global("torch", obj.name))
    dispatch[_dtype.dtype] = save_dtype

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            kind = self._global("torch", _STORAGE_OF[obj.array.dtype.name])
            return ("storage", kind, obj.key, "cpu", int(obj.array.size))
        return None

    def reducer_override(self, obj):
        from ..nn.parameter import Parameter
        from .._tensor.creation import device
        from .._tensor.tensor import Size
        if isinstance(obj, Tensor):
            arr = obj._data
            if arr.dtype.name not in _STORAGE_OF:
                raise TypeError("torch.save format: no PyTorch storage for dtype %s" % obj.dtype)
            flat = np.ascontiguousarray(arr).reshape(-1)
            flat = flat.astype(flat.dtype.newbyteorder("<"), copy=False)
            ref = _StorageRef(str(len(self.storages)), flat)
            self.storages.append(ref)
            stride = []
            acc = 1
            for n in reversed(arr.shape):
                stride.append(acc)
                acc *= n
            args = (ref, 0, tuple(arr.shape), tuple(reversed(stride)),
                    bool(obj._requires_grad) and not isinstance(obj, Parameter), OrderedDict())
            plain = (self._global("torch._utils", "_rebuild_tensor_v2"), args)
            if isinstance(obj, Parameter):
                return (self._global("torch._utils", "_rebuild_parameter"),
                        (_Rebuilt(plain), bool(obj._requires_grad), OrderedDict()))
            return plain
        if type(obj) is _Rebuilt:
            return obj.reduce
        if isinstance(obj, device):
            return (self._global("torch", "device"), (str(obj),))
        if isinstance(obj, Size):
            return (self._global("torch", "Size"), (tuple(obj),))
        return NotImplemented


class _Rebuilt:
    __slots__ = ("reduce",)

    def __init__(self, reduce):
        self.reduce = reduce


def writer(obj):
    """A function writing ``obj`` in PyTorch's zip format to a path or a file object (the
    object is pickled first, so an unpicklable one raises before anything is written)."""
    buf = io.BytesIO()
    w = _Writer(buf)
    w.dump(obj)
    pkl, storages = buf.getvalue(), w.storages

    def write(target):
        with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            records = [("archive/data.pkl", pkl), ("archive/.format_version", b"1"),
                       ("archive/.storage_alignment", b"64"), ("archive/byteorder", b"little")]
            records += [("archive/data/" + s.key, s.array) for s in storages]
            records += [("archive/version", b"3\n")]
            for name, payload in records:
                _write_record(zf, name, payload)
    return write


def _write_record(zf, name, payload):
    """One stored record, its bytes aligned to 64 as torch.save aligns them."""
    data = memoryview(payload).cast("B") if isinstance(payload, np.ndarray) else payload
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    zip64 = len(data) > 0x7FFFFFFF
    offset = zf.fp.tell() + 30 + len(name.encode()) + (20 if zip64 else 0)
    pad = -(offset + 4) % 64
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad      # 'FB' padding, as PyTorch
    info.file_size = len(data)
    with zf.open(info, "w", force_zip64=zip64) as out:
        out.write(data)
