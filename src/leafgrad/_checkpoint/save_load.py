"""``save``/``load``: safetensors checkpoints, and PyTorch's own ``torch.save`` format.

Formats (``load`` tells them apart by their first bytes, never by the name):

* **safetensors** (the default for tensors and state dicts): written and read by the
  ``safetensors`` package's own writer and reader. Tensor names are the dotted key paths
  (``"0.weight"``, ``"state.0.exp_avg"``), so ``safetensors.torch.load_file`` reads the
  file as a flat dict. The structure around the tensors -- dicts (plain or
  ``OrderedDict``) with their keys' types and order, lists, tuples, numbers, strings,
  ``None`` -- goes into the file's metadata (key ``"leafgrad"``), so ``load`` gives back
  what ``save`` got, as ``torch.load`` does: 0-d tensors stay 0-d, ``int`` keys stay
  ``int``, and ``requires_grad``/``Parameter`` are kept.
* **PyTorch's zip format** (``torch.save``'s, see :mod:`leafgrad._checkpoint.torch_reader`): written
  for ``format="torch"``, for a file name ending in ``.pt``/``.pth``/``.pkl`` (so that
  ``torch.load`` in real PyTorch reads it), and for objects safetensors cannot hold
  (a whole module, say). Read with a restricted unpickler unless ``weights_only=False``.

Saving to a path writes a temporary file in the same directory
(``.<name>.leafgrad-save.<host>-<pid>.<random>.tmp``), fsyncs it and renames it over the
target: a crash or a kill mid-save leaves the old file as it was, and the next save to the
same path removes the temporary file the killed one left (its process no longer runs). Loading checks
the file before trusting any of it and raises :class:`~leafgrad._core.errors.NotACheckpointError`
("not a leafgrad/safetensors checkpoint: <reason>") for anything else.

Memory: a loaded tensor is a view of its storage's bytes, as ``torch.load`` keeps it (an
``expand(3000, 3000)`` stays one element with stride 0, ``x[2:5]`` stays a view at offset 2,
and tensors saved from one storage share memory again), so ``load`` allocates at most what
the file holds; a view whose elements overlap (stride 0) is read-only, and an in-place write
to it raises PyTorch's "more than one element of the written-to tensor refers to a single
memory location". Every storage is charged to a budget before it is allocated:
``memory_budget`` bytes, by default the file's size; a file that would need more is refused
with ``NotACheckpointError`` naming the bytes it needs (``memory_budget=`` raises the budget
for a trusted file).
"""
import json
import os
import secrets
import stat
import struct
from collections import OrderedDict

import numpy as np

from .._core import errors as _errors
from .._tensor.tensor import Tensor

__all__ = ["save", "load"]

_DT = {"float32": "F32", "float64": "F64", "float16": "F16", "int64": "I64", "int32": "I32",
       "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL", "complex64": "C64"}
_NP = {v: k for k, v in _DT.items()}
_SCALARS = (bool, int, float, str)
_TORCH_SUFFIXES = (".pt", ".pth", ".pkl")
_MAX_HEADER = 100_000_000           # the safetensors reader's own limit
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


class _Unencodable(TypeError):
    pass


def _cannot(what, path):
    return _Unencodable(
        "leafgrad.save writes tensors, numbers, strings and dicts/lists/tuples of them in the "
        "safetensors format, so it cannot store %s%s there. Fix: save the state instead, e.g. "
        "leafgrad.save(model.state_dict(), path), and restore it with "
        "model.load_state_dict(leafgrad.load(path)); or save with format=\"torch\" (PyTorch's "
        "pickle-based format, which torch.load reads)."
        % (what, " (at key %r)" % ".".join(map(str, path)) if path else ""))


def _encode(obj, path, tensors):
    """The JSON tree of ``obj``; its tensors go into ``tensors`` (name -> Tensor)."""
    if isinstance(obj, Tensor):
        if obj._data.dtype.name not in _DT:
            raise _cannot("a tensor of dtype %s (the format has no such dtype; it holds %s)"
                          % (obj.dtype, ", ".join(sorted(_DT))), path)
        name = ".".join(map(str, path)) or "tensor"
        base, n = name, 1
        while name in tensors:
            name, n = "%s#%d" % (base, n), n + 1
        tensors[name] = obj
        from ..nn.parameter import Parameter
        return {"t": name, "g": bool(obj._requires_grad), "p": isinstance(obj, Parameter)}
    if isinstance(obj, dict):
        if type(obj) not in (dict, OrderedDict):
            raise _cannot("a %s" % type(obj).__name__, path)
        items = []
        for k, v in obj.items():
            if not (k is None or isinstance(k, _SCALARS)):
                raise _cannot("a dict key of type %s" % type(k).__name__, path)
            items.append([k, _encode(v, path + [k], tensors)])
        return {"d": items, "o": isinstance(obj, OrderedDict)}
    if type(obj) in (list, tuple):
        return {"u" if isinstance(obj, tuple) else "l":
                [_encode(v, path + [i], tensors) for i, v in enumerate(obj)]}
    if obj is None or type(obj) in _SCALARS:
        return {"v": obj}
    raise _cannot("a %s" % type(obj).__name__, path)


def _name_of(f):
    if isinstance(f, (str, bytes, os.PathLike)):
        return os.fsdecode(f)
    name = getattr(f, "name", "")
    return name if isinstance(name, str) else ""


_TEMP = ".%s.leafgrad-save.%s-%d.%s.tmp"       # target name, host, pid, random


def _host():
    import platform
    return platform.node().replace("/", "_") or "localhost"


def _reclaim_temps(folder, base):
    """Remove the temporary files that earlier saves to ``base`` left when they were killed
    before their rename: those named for this host and a process that no longer runs (a
    save in progress elsewhere keeps its file)."""
    head, host = ".%s.leafgrad-save." % base, _host()
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for name in names:
        if not (name.startswith(head) and name.endswith(".tmp")):
            continue
        parts = name[len(head):-len(".tmp")].rsplit(".", 1)
        owner = parts[0].rsplit("-", 1)
        if len(parts) != 2 or len(owner) != 2 or owner[0] != host or not owner[1].isdigit():
            continue
        pid = int(owner[1])
        if pid == os.getpid():
            continue                    # another thread of this process may be saving
        try:
            os.kill(pid, 0)
            continue                    # still running
        except ProcessLookupError:
            pass
        except (PermissionError, OverflowError, OSError):
            continue                    # someone else's process, or not a pid
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass


def _atomic_write(f, write):
    """``write(tmp_path)`` to a new file beside ``f``, fsync it, rename it over ``f``; the
    temporary files of earlier saves to ``f`` that were killed are removed first."""
    target = os.path.realpath(os.fspath(f))      # through a symlink: replace what it names
    folder, base = os.path.split(target)
    _reclaim_temps(folder, base)
    while True:
        tmp = os.path.join(folder, _TEMP % (base, _host(), os.getpid(),
                                            secrets.token_hex(6)))
        try:
            # 0o666 and the umask, as open(f, "wb") would create it
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDWR)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))    # keep the old file's mode
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:                       # make the rename itself durable
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _safetensors_arrays(tensors):
    out = {}
    for name, t in tensors.items():
        arr = np.asarray(t._data, order="C")     # the writer copies raw memory: C order only
        out[name] = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
    return out


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False, *, format=None):
    """Write ``obj`` to ``f`` (a path or a binary file object), as ``torch.save``.

    Args:
        obj: a tensor, a (nested) dict/list/tuple of tensors and plain values (a state dict,
            an optimizer's state dict, an epoch count), or -- in PyTorch's format only -- any
            picklable object (a whole module).
        f: a path (written atomically: temporary file, fsync, rename) or a writable binary
            file object (written in place).
        format: ``"safetensors"``, ``"torch"`` (PyTorch's zip format, which
            ``torch.load(f, weights_only=True)`` reads when ``obj`` holds only tensors and
            plain values), or ``None``: safetensors, except for names ending in
            ``.pt``/``.pth``/``.pkl`` and for objects safetensors cannot hold.
        pickle_module, pickle_protocol, ...: accepted as ``torch.save`` accepts them; the
            zip format is always written with protocol 2, as PyTorch writes it.

    Raises:
        TypeError: ``format="safetensors"`` (or a ``.safetensors`` name) and an object the
            format cannot hold; nothing is written.
        ValueError: an unknown ``format``.
    """
    if format not in (None, "safetensors", "torch"):
        raise ValueError("save(): format must be None, 'safetensors' or 'torch', got %r" % (format,))
    name = _name_of(f)
    if format is None:
        if name.endswith(".safetensors"):
            format = "safetensors"
        elif name.endswith(_TORCH_SUFFIXES):
            format = "torch"
    if format != "torch":
        tensors = {}
        try:
            tree = _encode(obj, [], tensors)       # raises before the file is touched
            format = "safetensors"
        except _Unencodable as exc:
            if format == "safetensors":
                raise TypeError(str(exc)) from None
            format = "torch"
    if format == "torch":
        from . import torch_writer as _torch_format_write
        write = _torch_format_write.writer(obj)
    else:
        from safetensors.numpy import save as st_bytes, save_file
        arrays = _safetensors_arrays(tensors)
        meta = {"format": "pt", "leafgrad": json.dumps({"tree": tree})}
        if hasattr(f, "write"):
            f.write(st_bytes(arrays, metadata=meta))
            return

        def write(path):
            save_file(arrays, path, metadata=meta)
    if hasattr(f, "write"):
        write(f)
    else:
        _atomic_write(f, write)


# -- loading -------------------------------------------------------------------------------

def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise _errors.not_a_checkpoint("its header names %r twice" % k)
        seen[k] = v
    return seen


def _read_header(fh, size):
    """The safetensors header (a dict), checked against the file's size before it is read."""
    if size == 0:
        raise _errors.not_a_checkpoint("the file is empty (0 bytes)")
    if size < 8:
        raise _errors.not_a_checkpoint("the file is %d bytes long, shorter than the 8-byte "
                                       "header length a safetensors file starts with" % size)
    n = struct.unpack("<Q", fh.read(8))[0]
    if n > size - 8:
        raise _errors.not_a_checkpoint(
            "its header length field says %d bytes, but the file holds only %d bytes after "
            "it (truncated, or not a safetensors file)" % (n, size - 8))
    if n > _MAX_HEADER or n < 2:
        raise _errors.not_a_checkpoint("its header length field says %d bytes (a safetensors "
                                       "header is 2 to %d bytes)" % (n, _MAX_HEADER))
    raw = fh.read(n)
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _errors.not_a_checkpoint("its header is not valid JSON (%s)" % exc) from None
    if not isinstance(header, dict):
        raise _errors.not_a_checkpoint("its header is a JSON %s, not an object"
                                       % type(header).__name__)
    return header


def _st_error(exc):
    msg = str(exc)
    for prefix in ("Error while deserializing header: ", "Error while deserializing: "):
        msg = msg.replace(prefix, "")
    return _errors.not_a_checkpoint("the safetensors reader refuses it (%s)" % msg)


def _load_safetensors(fh, start, size, path, memory_budget):
    import safetensors
    header = _read_header(fh, size)
    needed = 0
    for name, info in header.items():
        if name != "__metadata__" and isinstance(info, dict):
            if info.get("dtype") == "BF16":
                raise _errors.no_bfloat16(name)
            offsets = info.get("data_offsets")
            if isinstance(offsets, list) and len(offsets) == 2 and all(
                    type(v) is int for v in offsets):
                needed += max(offsets[1] - offsets[0], 0)
    if needed > memory_budget:
        raise _errors.checkpoint_over_budget(needed, memory_budget, "tensors' data")
    try:
        if path is not None:
            with safetensors.safe_open(path, framework="numpy") as st:
                meta = st.metadata() or {}
                arrays = {k: np.array(st.get_tensor(k), copy=True) for k in st.keys()}
        else:
            from safetensors.numpy import load as st_load
            fh.seek(start)
            meta = header.get("__metadata__") or {}
            arrays = {k: np.array(v, copy=True) for k, v in st_load(fh.read(size)).items()}
    except safetensors.SafetensorError as exc:
        raise _st_error(exc) from None
    except KeyError as exc:          # a dtype the NumPy side has no type for
        raise _errors.not_a_checkpoint("it holds a tensor of dtype %s, which leafgrad cannot "
                                       "hold" % exc) from None
    except ValueError as exc:        # a shape NumPy cannot hold ([0, 2**62]: "array is too big")
        raise _errors.not_a_checkpoint("it holds a tensor leafgrad cannot hold (%s)"
                                       % exc) from None
    tensors = {k: Tensor._make_plain(a.astype(a.dtype.newbyteorder("="), copy=False))
               for k, a in arrays.items()}
    text = meta.get("leafgrad")
    if text is None:
        return tensors
    try:
        tree = json.loads(text)["tree"]
        return _decode(tree, tensors)
    except _errors.NotACheckpointError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, RecursionError) as exc:
        raise _errors.not_a_checkpoint("its leafgrad metadata is malformed (%s: %s)"
                                       % (type(exc).__name__, exc)) from None


def _decode(node, tensors):
    """The object a JSON tree written by ``_encode`` stands for (checked node by node)."""
    if not isinstance(node, dict) or len(node) > 3:
        raise ValueError("node %r" % (node,))
    if "t" in node:
        t = tensors[node["t"]]
        if node.get("p"):
            from ..nn.parameter import Parameter
            return Parameter(t, requires_grad=bool(node.get("g", True)))
        if node.get("g"):
            t.requires_grad_(True)
        return t
    if "d" in node:
        cls = OrderedDict if node.get("o") else dict
        out = cls()
        for k, v in node["d"]:
            if not (k is None or type(k) in _SCALARS):
                raise TypeError("dict key %r" % (k,))
            out[k] = _decode(v, tensors)
        return out
    if "l" in node:
        return [_decode(v, tensors) for v in node["l"]]
    if "u" in node:
        return tuple(_decode(v, tensors) for v in node["u"])
    v = node["v"]
    if not (v is None or type(v) in _SCALARS):
        raise TypeError("value %r" % (v,))
    return v


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         memory_budget=None, **pickle_load_args):
    """Read a checkpoint written by ``save``, ``torch.save`` or ``safetensors``.

    Args:
        f: a path or a readable, seekable binary file object.
        weights_only: ``None``/``True`` (PyTorch's default): PyTorch-format files are read
            by a restricted unpickler that only rebuilds tensors, containers, numbers and
            strings (plus what ``torch.serialization.add_safe_globals`` allows) and runs no
            code; ``False`` unpickles anything -- only for files you trust.
        map_location, mmap, pickle_module, pickle_load_args: accepted as ``torch.load``
            accepts them (everything loads to the CPU).
        memory_budget: the most bytes of tensor memory the load may allocate (leafgrad's
            own keyword; ``None``: the file's size, which no file written by ``torch.save``,
            ``save`` or ``safetensors`` exceeds, since loaded tensors are views of the
            file's storages). Raise it only for a trusted file.

    Returns:
        What was saved; a safetensors file written by another tool gives a dict of tensors.

    Raises:
        NotACheckpointError (a RuntimeError and a pickle.UnpicklingError): the file is not a
            valid checkpoint (truncated, corrupt, hostile, or something else), with the reason;
            or it would need more than ``memory_budget`` bytes (named in the message).
        pickle.UnpicklingError: ``weights_only`` and the file holds other objects (names the
            refused global, with PyTorch's advice).
        TypeError: a bfloat16 tensor (leafgrad has no bfloat16 dtype).
        FileNotFoundError, IsADirectoryError: as ``open``.
    """
    if weights_only is None:
        weights_only = True
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if memory_budget is not None and (type(memory_budget) is not int or memory_budget < 0):
        raise TypeError("load(): memory_budget must be a non-negative int (bytes) or None, got "
                        "%r" % (memory_budget,))
    if hasattr(f, "read"):
        return _load_from(f, None, weights_only, pickle_load_args, memory_budget)
    path = os.fspath(f)
    with open(path, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise _errors.not_a_checkpoint("%r is not a regular file" % os.fsdecode(path))
        return _load_from(fh, path, weights_only, pickle_load_args, memory_budget)


def _load_from(fh, path, weights_only, pickle_load_args, memory_budget):
    start = fh.tell()
    end = fh.seek(0, os.SEEK_END)
    fh.seek(start)
    size = end - start
    if memory_budget is None:
        memory_budget = size
    head = fh.read(9)
    fh.seek(start)
    # a safetensors file: a length that fits, then its JSON header; its first byte can be
    # 0x80 too, so this is tested before a pickle's PROTO opcode
    is_st = len(head) == 9 and head[8:9] == b"{" and struct.unpack("<Q", head[:8])[0] <= size - 8
    pickled = not is_st and head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04",
                                                                    b"\x05")
    if head[:4] in _ZIP_MAGIC or pickled:
        from . import torch_reader as _torch_format
        return _torch_format.load(fh, start, size, weights_only, pickled, pickle_load_args,
                                  memory_budget)
    return _load_safetensors(fh, start, size, path if start == 0 else None, memory_budget)
