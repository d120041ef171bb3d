"""PyTorch's ``torch.save`` format, read and written without PyTorch.

The zip format (PyTorch >= 1.6): a zip archive of uncompressed records
``<archive>/data.pkl`` (a protocol-2 pickle of the object, tensors replaced by persistent
ids ``('storage', torch.FloatStorage, key, 'cpu', numel)``), ``<archive>/data/<key>`` (each
storage's raw bytes), ``<archive>/byteorder`` and ``<archive>/version``. The legacy format
(``_use_new_zipfile_serialization=False``) is five pickles in a row (magic number,
protocol version, system info, the object, the storage keys) followed by each storage as
an 8-byte element count and its bytes. Both are described by PyTorch's
``torch/serialization.py``; nothing of PyTorch is imported here.

Reading is done by :class:`_Restricted`, an unpickler that resolves only the globals
PyTorch's ``weights_only=True`` unpickler allows (tensor and storage rebuild functions,
dtypes, ``OrderedDict``, ``torch.Size``, ``torch.device``, sets, bytes, complex) and what
``torch.serialization.add_safe_globals`` added, so a hostile file cannot run code; with
``weights_only=False`` a full unpickler reads anything (for trusted files only).
Writing: ``_checkpoint/torch_writer.py``.
"""
import _compat_pickle
import io
import pickle
import struct
from _thread import _local as thread_local  # threading.local (importing threading: ~1.5 ms)
import zipfile
from collections import Counter, OrderedDict

import numpy as np

from .._core import dtype as _dtype, errors as _errors
from .._tensor.tensor import Tensor

_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_STORAGES = {"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
             "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
             "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
             "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
             "BFloat16Storage": "bfloat16"}
_STORAGE_OF = {v: k for k, v in _STORAGES.items()}
_DTYPE_NAMES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
                "int": "int32", "short": "int16", "cfloat": "complex64",
                "cdouble": "complex128"}


# -- the globals a weights-only load may resolve --------------------------------------------

class _StorageType:
    """Stands for ``torch.FloatStorage`` & co. in a persistent id (never called)."""
    __slots__ = ("name", "dtype")

    def __init__(self, name):
        self.name = name
        self.dtype = _STORAGES.get(name)

    def __repr__(self):
        return "torch." + self.name


class _Storage:
    """One storage of the file: a flat, writeable array that the file's tensors view (as
    ``torch.load`` keeps them: a tensor and its views share memory). A legacy file's
    storages are allocated empty when the object pickle names them and filled (``fill``)
    once the bytes after it have been read."""
    __slots__ = ("array", "key", "dtype", "numel")

    def __init__(self, array, key):
        self.array = array
        self.key = key
        self.dtype = array.dtype
        self.numel = array.size


class _Budget:
    """The bytes of tensor memory a load may allocate (``load(..., memory_budget=)``): every
    storage is charged when it is allocated, before any byte of it is read. Tensors are views
    of the storages, so a legal file needs at most its own size."""
    __slots__ = ("limit", "used")

    def __init__(self, limit):
        self.limit = limit
        self.used = 0

    def charge(self, nbytes, what):
        self.used += nbytes
        if self.used > self.limit:
            raise _errors.checkpoint_over_budget(self.used, self.limit, what)


def _int_tuple(x, what):
    if type(x) not in (tuple, list) or not all(type(v) is int and v >= 0 for v in x):
        raise pickle.UnpicklingError("tensor %s %r is not a tuple of non-negative ints" % (what, x))
    return tuple(x)


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False,
                    backward_hooks=None, metadata=None):
    """``torch._utils._rebuild_tensor_v2``: a tensor viewing ``storage`` (bounds checked)."""
    if not isinstance(storage, _Storage):
        raise pickle.UnpicklingError("a tensor's storage must come from the file, got %s"
                                     % type(storage).__name__)
    size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    if type(storage_offset) is not int or storage_offset < 0 or len(size) != len(stride):
        raise pickle.UnpicklingError("tensor offset %r / size %r / stride %r do not fit"
                                     % (storage_offset, size, stride))
    numel = int(np.prod(size, dtype=object))
    if numel:
        last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride))
        if last >= storage.numel:
            raise _errors.not_a_checkpoint(
                "a tensor of size %s (offset %d, stride %s) reaches element %d of storage "
                "%r, which holds %d" % (list(size), storage_offset, list(stride), last,
                                        storage.key, storage.numel))
    t = Tensor._make_plain(_view(storage, storage_offset, size, stride, numel))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _overlaps(size, stride):
    """Whether two elements of the view share memory (a stride-0 expand, say): checked from
    the smallest stride up, each must step past everything the smaller ones reach. Such a
    view is made read-only, so that an in-place write is refused as PyTorch refuses it."""
    reach = 0
    for s, n in sorted((s, n) for n, s in zip(size, stride) if n > 1):
        if s <= reach:
            return True
        reach += s * (n - 1)
    return False


def _view(storage, offset, size, stride, numel):
    """The tensor's array: a view of the storage's memory (never a copy, so a file of
    ``expand(3000, 3000)`` tensors costs what the file holds), read-only where it overlaps
    itself."""
    arr = storage.array
    itemsize = arr.itemsize
    try:
        if not numel:
            return np.ndarray(size, arr.dtype, buffer=arr[:0] if arr.size else
                              np.zeros(0, arr.dtype))
        view = np.ndarray(size, arr.dtype, buffer=arr, offset=offset * itemsize,
                          strides=[s * itemsize for s in stride])
    except ValueError as exc:      # a shape NumPy cannot hold ([0, 2**62]: "array is too big")
        raise _errors.not_a_checkpoint("a tensor of size %s, which leafgrad cannot hold (%s)"
                                       % (list(size), exc)) from None
    if _overlaps(size, stride):
        view.flags.writeable = False
    return view


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    if not isinstance(storage, _Storage) or not isinstance(dtype, _dtype.dtype):
        raise pickle.UnpicklingError("_rebuild_tensor_v3 needs a storage and a dtype")
    raw = storage.array.view(np.uint8)
    usable = raw.size - raw.size % dtype.itemsize
    return _rebuild_tensor(_Storage(raw[:usable].view(dtype.np), storage.key), storage_offset,
                           size, stride, requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    from ..nn.parameter import Parameter
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError("a Parameter's data must be a tensor")
    return Parameter(data, requires_grad=bool(requires_grad))


def _rebuild_from_type_v2(func, new_type, args, state):
    if func not in (_rebuild_tensor, _rebuild_tensor_v3, _rebuild_parameter) or \
            new_type not in (Tensor, _parameter_class()):
        raise pickle.UnpicklingError("leafgrad rebuilds only plain tensors and Parameters, "
                                     "not %r" % (new_type,))
    return func(*args)


def _parameter_class():
    from ..nn.parameter import Parameter
    return Parameter


def _unsupported(what):
    def refuse(*args, **kwargs):
        raise pickle.UnpicklingError("the file holds %s, which leafgrad cannot rebuild" % what)
    return refuse


def _device(*args):
    from .._tensor.creation import device
    return device(*args)


def _size(*args):
    from .._tensor.tensor import Size
    return Size(*args)


def _dtype_global(name):
    real = _DTYPE_NAMES.get(name, name)
    if real == "bfloat16":
        raise _errors.no_bfloat16("(dtype torch.bfloat16)")
    return _dtype._NAMES.get(real)


def _allowed(module, name):
    """What a weights-only load resolves ``module.name`` to, or None."""
    full = module + "." + name
    fixed = {"collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
             "builtins.set": set, "builtins.frozenset": frozenset,
             "builtins.bytearray": _bytearray, "builtins.complex": complex,
             "_codecs.encode": _codecs_encode, "torch.Size": _size, "torch.device": _device,
             "torch.Tensor": Tensor, "torch.nn.parameter.Parameter": _parameter_class(),
             "torch._utils._rebuild_tensor": _rebuild_tensor,
             "torch._utils._rebuild_tensor_v2": _rebuild_tensor,
             "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
             "torch._utils._rebuild_parameter": _rebuild_parameter,
             "torch._utils._rebuild_parameter_with_state": _rebuild_parameter,
             "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2}
    if full in fixed:
        return fixed[full]
    if module == "torch._utils" and name.startswith("_rebuild_"):
        return _unsupported("a tensor of a kind PyTorch rebuilds with %s (quantized, sparse, "
                            "nested or on another device)" % full)
    if module in ("torch", "torch.storage") and name.endswith("Storage"):
        return _StorageType(name)
    if module == "torch":
        return _dtype_global(name)
    return None


def _bytearray(*args):
    """``bytearray`` for what pickle writes (bytes, or text and its encoding), never a size."""
    if args and type(args[0]) not in (bytes, str):
        raise pickle.UnpicklingError("bytearray is allowed from bytes only, got %s"
                                     % type(args[0]).__name__)
    return bytearray(*args)


def _codecs_encode(text, encoding="latin1"):
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode is allowed for bytes only")
    return text.encode("latin1")


# -- safe globals (torch.serialization.add_safe_globals) ------------------------------------

_user_globals = set()
_local = thread_local()


def _user_allowed():
    entries = set(_user_globals) | set(getattr(_local, "extra", ()))
    out = {}
    for entry in entries:
        if isinstance(entry, tuple):
            obj, name = entry
        else:
            obj = entry
            name = "%s.%s" % (obj.__module__, obj.__qualname__)
        out[name] = obj
    return out


# -- the restricted unpickler --------------------------------------------------------------

_OP = {name: getattr(pickle, name)[0] for name in (
    "REDUCE", "BUILD", "NEWOBJ", "NEWOBJ_EX", "INST", "OBJ", "EXT1", "EXT2", "EXT4", "APPEND",
    "APPENDS", "SETITEM", "SETITEMS", "ADDITEMS", "PERSID", "BINPERSID", "NEXT_BUFFER",
    "READONLY_BUFFER")}


class _Restricted(pickle._Unpickler):
    """An unpickler that calls nothing it has not allowlisted (see the module docstring)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, persistent_load, encoding="utf-8"):
        super().__init__(file, encoding=encoding)
        self._persistent = persistent_load
        self._user = _user_allowed()
        self._callables = set(map(id, self._user.values()))

    def find_class(self, module, name):
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full = module + "." + name
        if full in self._user:
            return self._user[full]
        obj = _allowed(module, name)
        if obj is None:
            shown = full[len("builtins."):] if full.startswith("builtins.") else full
            raise pickle.UnpicklingError(
                "Unsupported global: GLOBAL %s was not an allowed global by default. Please use "
                "`torch.serialization.add_safe_globals([%s])` or the "
                "`torch.serialization.safe_globals([%s])` context manager to allowlist this "
                "global if you trust this class/function." % (shown, shown, shown))
        self._callables.add(id(obj))
        return obj

    def persistent_load(self, pid):
        if type(pid) is not tuple or not pid or pid[0] not in ("storage", b"storage"):
            raise pickle.UnpicklingError("Only persistent_load of storage is allowed, but got %r"
                                         % (pid[:1] if type(pid) is tuple else type(pid),))
        return self._persistent(pid)

    def _callable(self, func):
        if id(func) not in self._callables:
            raise pickle.UnpicklingError("Trying to call reduce for unrecognized function %r"
                                         % (func,))

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        self._callable(func)
        if type(args) is not tuple:
            raise pickle.UnpicklingError("REDUCE arguments must be a tuple")
        self.stack[-1] = func(*args)
    dispatch[_OP["REDUCE"]] = load_reduce

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self._callable(cls)
        if not isinstance(cls, type) or type(args) is not tuple or cls is Tensor:
            raise pickle.UnpicklingError("Can only create new object for classes allowlisted "
                                         "via `add_safe_globals` but got %r" % (cls,))
        if cls is _parameter_class():
            self.append(cls(*args))
        else:
            self.append(cls.__new__(cls, *args))
    dispatch[_OP["NEWOBJ"]] = load_newobj

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        kind = type(inst)
        if kind is OrderedDict or id(kind) in self._callables and kind not in (
                Tensor, _parameter_class(), set, frozenset, bytearray, complex, Counter):
            if kind is not OrderedDict and hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
                return
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if state:
                if not isinstance(state, dict):
                    raise pickle.UnpicklingError("BUILD state must be a dict")
                inst.__dict__.update(state)
            for k, v in (slots or {}).items():
                setattr(inst, k, v)
        elif kind in (Tensor, _parameter_class()):
            pass          # PyTorch keeps Python attributes of tensors here; leafgrad has none
        else:
            raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                         "allowlisted via `add_safe_globals`, but got %r" % kind)
    dispatch[_OP["BUILD"]] = load_build

    def load_append(self):
        item = self.stack.pop()
        self._container(list, "append to").append(item)
    dispatch[_OP["APPEND"]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        self._container(list, "extend").extend(items)
    dispatch[_OP["APPENDS"]] = load_appends

    def load_setitem(self):
        v, k = self.stack.pop(), self.stack.pop()
        self._container(dict, "set items of")[k] = v
    dispatch[_OP["SETITEM"]] = load_setitem

    def load_setitems(self):
        items = self.pop_mark()
        target = self._container(dict, "set items of")
        for i in range(0, len(items) - 1, 2):
            target[items[i]] = items[i + 1]
    dispatch[_OP["SETITEMS"]] = load_setitems

    def load_additems(self):
        items = self.pop_mark()
        self._container(set, "add items to").update(items)
    dispatch[_OP["ADDITEMS"]] = load_additems

    def _container(self, kind, verb):
        if not self.stack or not isinstance(self.stack[-1], kind) or type(self.stack[-1]) not in (
                kind, OrderedDict, Counter):
            raise pickle.UnpicklingError("Can only %s %ss, but got %r"
                                         % (verb, kind.__name__, type(self.stack[-1]) if
                                            self.stack else None))
        return self.stack[-1]

    def _refuse(self):
        raise pickle.UnpicklingError("the pickle uses an opcode that a weights-only load "
                                     "does not allow (INST/OBJ/NEWOBJ_EX/EXT/buffers)")
    for _name in ("NEWOBJ_EX", "INST", "OBJ", "EXT1", "EXT2", "EXT4", "NEXT_BUFFER",
                  "READONLY_BUFFER", "PERSID"):
        dispatch[_OP[_name]] = _refuse
    del _name


class _Full(pickle.Unpickler):
    """``weights_only=False``: any global (PyTorch's tensor globals map to leafgrad's)."""

    def __init__(self, file, persistent_load, encoding="utf-8"):
        super().__init__(file, encoding=encoding)
        self._persistent = persistent_load

    def persistent_load(self, pid):
        return self._persistent(pid)

    def find_class(self, module, name):
        obj = _allowed(module, name) if module.split(".")[0] in ("torch", "collections") else None
        if obj is not None:
            return obj
        if module == "torch" or module.startswith("torch."):
            module = "leafgrad" + module[len("torch"):]
        return super().find_class(module, name)


# -- reading -------------------------------------------------------------------------------

_DAMAGED = (EOFError, ValueError, IndexError, KeyError, struct.error, OverflowError,
            UnicodeDecodeError, MemoryError, TypeError, AttributeError, RecursionError,
            LookupError)        # LookupError: bytearray(text, "an unknown codec")


def _run(stream, persistent_load, weights_only, encoding):
    """One pickle from ``stream``; errors as PyTorch's (weights-only refusals) or ours."""
    cls = _Restricted if weights_only else _Full
    try:
        return cls(stream, persistent_load, encoding=encoding).load()
    except (_errors.NotACheckpointError, _errors.CheckpointDtypeError):
        raise
    except pickle.UnpicklingError as exc:
        if weights_only:
            raise _errors.weights_only_refused(str(exc)) from None
        raise
    except _DAMAGED as exc:
        if not weights_only and not isinstance(exc, (EOFError, struct.error)):
            raise
        raise _errors.not_a_checkpoint("its pickle is damaged (%s: %s)"
                                       % (type(exc).__name__, exc),
                                       _errors.CheckpointCodecError if isinstance(
                                           exc, LookupError) and not isinstance(
                                           exc, (IndexError, KeyError)) else
                                       _errors.NotACheckpointError) from None


def _storage_kind(kind, key):
    if not isinstance(kind, _StorageType):
        raise pickle.UnpicklingError("bad storage type %r" % (kind,))
    if kind.dtype == "bfloat16":
        raise _errors.no_bfloat16("(storage %s)" % key)
    if kind.name == "UntypedStorage":
        return np.dtype(np.uint8)
    if kind.dtype is None:
        raise pickle.UnpicklingError("the file holds a %r, which leafgrad cannot hold" % kind)
    return np.dtype(kind.dtype)


def _storage_loader(read_into, byteorder, budget):
    cache = {}

    def load(pid):
        if len(pid) < 5 or type(pid[4]) is not int or pid[4] < 0:
            raise pickle.UnpicklingError("bad storage id %r" % (pid,))
        _, kind, key, _location, numel = pid[:5]
        key = key.decode("ascii") if isinstance(key, bytes) else str(key)
        np_dtype = _storage_kind(kind, key)
        if key not in cache:
            cache[key] = _Storage(read_into(key, numel, np_dtype, budget, byteorder), key)
        elif cache[key].numel != numel or cache[key].dtype != np_dtype:
            # PyTorch keeps the first id's storage; a file naming one key two ways is refused
            raise _errors.not_a_checkpoint(
                "its pickle names storage %r twice, as %d x %s and as %d x %s"
                % (key, cache[key].numel, cache[key].dtype, numel, np_dtype))
        return cache[key]
    return load


def _native(arr, byteorder):
    """``arr`` (read in the file's byte order) in the machine's, swapped in place."""
    if byteorder != ("<" if np.little_endian else ">") and arr.dtype.itemsize > 1:
        arr.byteswap(inplace=True)
    return arr


def _load_zip(fh, start, size, weights_only, encoding, budget):
    fh.seek(start)
    try:
        zf = zipfile.ZipFile(io.BytesIO(fh.read(size)) if start else fh)
        infos = zf.infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error) as exc:
        raise _errors.not_a_checkpoint("a damaged zip archive (%s)" % exc) from None
    names = {i.filename: i for i in infos}
    if len(names) != len(infos):
        # zipfile reads the last of two same-named records, PyTorch's reader the first
        twice = sorted({n for n in (i.filename for i in infos)
                        if sum(j.filename == n for j in infos) > 1})
        raise _errors.not_a_checkpoint("its zip archive holds %d records named %r (PyTorch's "
                                       "reader and others can read different ones)"
                                       % (sum(i.filename == twice[0] for i in infos), twice[0]))
    if any(n.endswith("/constants.pkl") or "/code/" in n for n in names):
        raise RuntimeError("Cannot use ``weights_only=True`` with TorchScript archives passed to "
                           "``torch.load``: this is a TorchScript archive (torch.jit.save), "
                           "which leafgrad cannot run. Fix: save model.state_dict() instead.")
    pkls = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
    if len(pkls) != 1:
        raise _errors.not_a_checkpoint("a zip archive without the one <name>/data.pkl record "
                                       "torch.save writes")
    prefix = pkls[0][:-len("data.pkl")]
    for i in infos:
        if not i.filename.startswith(prefix):
            # PyTorch takes the archive's name from its first record, not from data.pkl's
            raise _errors.not_a_checkpoint("its record %r is outside the archive folder %r "
                                           "that holds data.pkl" % (i.filename, prefix))
        if i.compress_type != zipfile.ZIP_STORED:
            raise _errors.not_a_checkpoint("its record %r is compressed (torch.save stores "
                                           "records uncompressed)" % i.filename)
    if sum(i.file_size for i in infos) > size:
        raise _errors.not_a_checkpoint("its records claim %d bytes in a %d-byte file"
                                       % (sum(i.file_size for i in infos), size))

    def read(name):
        try:
            return zf.read(name)
        except (zipfile.BadZipFile, OSError, EOFError, struct.error, ValueError) as exc:
            raise _errors.not_a_checkpoint("record %r is damaged (%s)" % (name, exc)) from None

    byteorder = "<"
    if prefix + "byteorder" in names:
        order = read(prefix + "byteorder").strip()
        if order not in (b"little", b"big"):
            raise _errors.not_a_checkpoint("its byteorder record says %r" % order)
        byteorder = "<" if order == b"little" else ">"

    def read_into(key, numel, np_dtype, budget, byteorder):
        """Storage ``key``'s record, read into a new writeable array in 1 MiB pieces (the
        whole record, so that zipfile checks its CRC)."""
        name = prefix + "data/" + key
        if name not in names:
            raise _errors.not_a_checkpoint("its pickle names storage %r, which has no record"
                                           % key)
        info = names[name]
        nbytes = numel * np_dtype.itemsize
        if info.file_size < nbytes:
            raise _errors.not_a_checkpoint("storage %r holds %d bytes, its tensor needs %d"
                                           % (key, info.file_size, nbytes))
        budget.charge(info.file_size, "storage %r" % key)
        buf = bytearray(info.file_size)
        view = memoryview(buf)
        try:
            with zf.open(info) as rec:
                done = 0
                while done < len(buf):
                    piece = rec.read(min(1 << 20, len(buf) - done))
                    if not piece:
                        raise EOFError("the record ends after %d of %d bytes"
                                       % (done, len(buf)))
                    view[done:done + len(piece)] = piece
                    done += len(piece)
                rec.read(1)                 # at the end: zipfile checks the CRC
        except (zipfile.BadZipFile, OSError, EOFError, struct.error, ValueError) as exc:
            raise _errors.not_a_checkpoint("record %r is damaged (%s)" % (name, exc)) from None
        arr = np.frombuffer(buf, dtype=np_dtype, count=numel)
        return _native(arr, byteorder)

    return _run(io.BytesIO(read(pkls[0])), _storage_loader(read_into, byteorder, budget),
                weights_only, encoding)


def _load_legacy(fh, start, size, weights_only, encoding, budget):
    """Five pickles, then the storages' bytes: the object pickle's tensors are views of
    storages allocated empty (charged to ``budget``) and filled once the bytes after it have
    been read."""
    fh.seek(start)
    data = fh.read(size)
    stream = io.BytesIO(data)

    def nothing(pid):
        raise pickle.UnpicklingError("a persistent id outside the object pickle")

    try:
        magic = _run(stream, nothing, weights_only, encoding)
    except pickle.UnpicklingError as exc:
        if isinstance(exc, _errors.NotACheckpointError):
            raise
        reason = str(exc).split("WeightsUnpickler error: ")[-1].split("\n\nCheck the doc")[0]
        raise _errors.not_a_checkpoint("a pickle that is not a PyTorch checkpoint (reading "
                                       "it stopped at: %s)" % reason.strip()) from None
    if type(magic) is not int or magic != _LEGACY_MAGIC:
        raise _errors.not_a_checkpoint("a pickle that is not a PyTorch checkpoint (it does "
                                       "not start with torch.save's magic number)")
    if _run(stream, nothing, weights_only, encoding) != 1001:
        raise _errors.not_a_checkpoint("an unknown legacy PyTorch protocol version")
    info = _run(stream, nothing, weights_only, encoding)
    byteorder = "<" if not isinstance(info, dict) or info.get("little_endian", True) else ">"
    pending = {}

    def storage(pid):
        if len(pid) != 6 or type(pid[4]) is not int or pid[4] < 0:
            raise pickle.UnpicklingError("bad legacy storage id %r" % (pid,))
        if pid[5] is not None:
            raise pickle.UnpicklingError("legacy storage views are not supported")
        key = str(pid[2])
        np_dtype = _storage_kind(pid[1], key)
        if key not in pending:
            claimed = pid[4] * np_dtype.itemsize + sum(st.array.nbytes for st in
                                                       pending.values())
            if claimed > size:
                raise _errors.not_a_checkpoint("its storages claim %d bytes in a %d-byte file"
                                               % (claimed, size))
            budget.charge(pid[4] * np_dtype.itemsize, "storage %r" % key)
            pending[key] = _Storage(np.empty(pid[4], np_dtype), key)
        elif pending[key].numel != pid[4] or pending[key].dtype != np_dtype:
            raise _errors.not_a_checkpoint(
                "its pickle names storage %r twice, as %d x %s and as %d x %s"
                % (key, pending[key].numel, pending[key].dtype, pid[4], np_dtype))
        return pending[key]

    obj = _run(stream, storage, weights_only, encoding)
    keys = _run(stream, nothing, weights_only, encoding)
    if type(keys) is not list:
        raise _errors.not_a_checkpoint("its storage key list is damaged")
    if len(set(map(str, keys))) != len(keys):
        # PyTorch reads a key listed twice twice, the second bytes over the first
        raise _errors.not_a_checkpoint("its storage key list names a storage twice")
    for key in keys:
        st = pending.get(str(key))
        head = stream.read(8)
        if st is None or len(head) != 8 or struct.unpack("<q", head)[0] != st.numel:
            raise _errors.not_a_checkpoint("storage %r is missing or does not match" % (key,))
        if stream.readinto(st.array.view(np.uint8)) != st.array.nbytes:
            raise _errors.not_a_checkpoint("storage %r is truncated" % (key,))
        _native(st.array, byteorder)
    if len(keys) != len(pending):
        raise _errors.not_a_checkpoint("a storage's bytes are missing")
    return obj


def load(fh, start, size, weights_only, legacy, pickle_load_args, memory_budget):
    """Read a ``torch.save`` file (zip or, when ``legacy``, the pre-1.6 format), allocating
    at most ``memory_budget`` bytes of tensor memory."""
    encoding = pickle_load_args.get("encoding", "utf-8")
    return (_load_legacy if legacy else _load_zip)(fh, start, size, weights_only, encoding,
                                                   _Budget(memory_budget))
