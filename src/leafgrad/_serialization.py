"""``save``/``load`` in the safetensors format (never pickle).

A ``state_dict`` (a dict of tensors, possibly nested under string keys) is
written as one safetensors file; non-tensor values (optimizer hyper-
parameters, step counts) go into the file's JSON metadata. Uses the
``safetensors`` package when installed, else writes the same format itself
(it is a JSON header followed by raw little-endian arrays).
"""
import json
import struct

import numpy as np

from ._tensor import Tensor

_DT = {"float32": "F32", "float64": "F64", "float16": "F16", "int64": "I64", "int32": "I32",
       "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}
_NP = {v: k for k, v in _DT.items()}


def _flatten(obj, prefix, tensors, meta):
    if isinstance(obj, Tensor):
        tensors[prefix] = obj
    elif isinstance(obj, dict):
        meta.setdefault("__dicts__", []).append(prefix)
        for k, v in obj.items():
            _flatten(v, "%s%s%s" % (prefix, "\x1f" if prefix else "", k), tensors, meta)
    elif isinstance(obj, (list, tuple)):
        meta.setdefault("__lists__", []).append([prefix, len(obj), isinstance(obj, tuple)])
        for i, v in enumerate(obj):
            _flatten(v, "%s%s#%d" % (prefix, "\x1f" if prefix else "", i), tensors, meta)
    else:
        if not (obj is None or isinstance(obj, (bool, int, float, str))):
            raise TypeError(
                "leafgrad.save writes tensors, numbers, strings and dicts/lists of them in the "
                "safetensors format (never pickle), so it cannot store a %s%s. Fix: save the "
                "state instead, e.g. leafgrad.save(model.state_dict(), path), and restore it "
                "with model.load_state_dict(leafgrad.load(path))."
                % (type(obj).__name__, " (at key %r)" % prefix.replace("\x1f", ".") if prefix
                   else ""))
        meta.setdefault("__values__", {})[prefix] = obj


def save(obj, f):
    """Write a tensor or a (nested) dict/list of tensors as safetensors to path ``f``."""
    tensors, meta = {}, {}
    _flatten(obj, "", tensors, meta)
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        arr = np.ascontiguousarray(t._data).astype(t._data.dtype.newbyteorder("<"), copy=False)
        b = arr.tobytes()
        header[name or "\x1e"] = {"dtype": _DT[arr.dtype.name], "shape": list(arr.shape),
                                  "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    header["__metadata__"] = {"leafgrad": json.dumps(meta)}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(f, "wb") as fh:
        fh.write(struct.pack("<Q", len(h)))
        fh.write(h)
        for b in blobs:
            fh.write(b)


def load(f, map_location=None, weights_only=True, **kwargs):
    """Read what ``save`` wrote (any safetensors file gives a dict of tensors)."""
    with open(f, "rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        header = json.loads(fh.read(n))
        data = fh.read()
    meta = json.loads(header.pop("__metadata__", {}).get("leafgrad", "{}"))
    tensors = {}
    for name, info in header.items():
        a, b = info["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=np.dtype(_NP[info["dtype"]]).newbyteorder("<"))
        tensors["" if name == "\x1e" else name] = Tensor._make_plain(
            arr.astype(arr.dtype.newbyteorder("="), copy=True).reshape(info["shape"]))
    if not meta:
        return tensors
    return _unflatten(tensors, meta)


def _unflatten(tensors, meta):
    values = dict(meta.get("__values__", {}))
    values.update(tensors)
    dicts = set(meta.get("__dicts__", []))
    lists = {p: (n, tup) for p, n, tup in meta.get("__lists__", [])}

    def build(prefix):
        if prefix in values:
            return values[prefix]
        if prefix in lists:
            n, tup = lists[prefix]
            items = [build("%s%s#%d" % (prefix, "\x1f" if prefix else "", i)) for i in range(n)]
            return tuple(items) if tup else items
        out = {}
        sep = "\x1f" if prefix else ""
        start = prefix + sep
        keys = []
        for k in list(values) + [p for p in dicts] + list(lists):
            if k.startswith(start) and k != prefix:
                head = k[len(start):].split("\x1f", 1)[0]
                if head not in keys:
                    keys.append(head)
        from collections import OrderedDict
        out = OrderedDict()
        for h in keys:
            key = int(h) if h.isdigit() else h
            out[key] = build(start + h)
        return out
    return build("")
