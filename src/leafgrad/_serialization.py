"""``save``/``load`` in the safetensors format (never pickle).

The tensors are written as one safetensors file (a JSON header followed by
raw little-endian arrays, written here with NumPy; the ``safetensors``
package is not needed, but can read the file: names are the dotted key
paths, e.g. ``"0.weight"`` or ``"state.0.exp_avg"``). The structure around
them -- dicts (plain or ``OrderedDict``) with their keys' types and order,
lists, tuples, numbers, strings, ``None`` -- goes into the file's JSON
metadata, so ``load`` gives back what ``save`` got, as ``torch.load`` does:
0-d tensors stay 0-d, a saved tensor comes back as a tensor, ``int`` keys
stay ``int`` and ``str`` keys ``str``, and ``requires_grad``/``Parameter``
are kept.
"""
import json
import struct
from collections import OrderedDict

import numpy as np

from ._tensor import Tensor

_DT = {"float32": "F32", "float64": "F64", "float16": "F16", "int64": "I64", "int32": "I32",
       "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}
_NP = {v: k for k, v in _DT.items()}
_SCALARS = (bool, int, float, str)


def _cannot(what, path):
    return TypeError(
        "leafgrad.save writes tensors, numbers, strings and dicts/lists/tuples of them in the "
        "safetensors format (never pickle), so it cannot store %s%s. Fix: save the state "
        "instead, e.g. leafgrad.save(model.state_dict(), path), and restore it with "
        "model.load_state_dict(leafgrad.load(path))."
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
        from .nn.parameter import Parameter
        return {"t": name, "g": bool(obj._requires_grad), "p": isinstance(obj, Parameter)}
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not (k is None or isinstance(k, _SCALARS)):
                raise _cannot("a dict key of type %s" % type(k).__name__, path)
            items.append([k, _encode(v, path + [k], tensors)])
        return {"d": items, "o": isinstance(obj, OrderedDict)}
    if isinstance(obj, (list, tuple)):
        return {"u" if isinstance(obj, tuple) else "l":
                [_encode(v, path + [i], tensors) for i, v in enumerate(obj)]}
    if obj is None or isinstance(obj, _SCALARS):
        return {"v": obj}
    raise _cannot("a %s" % type(obj).__name__, path)


def save(obj, f):
    """Write a tensor, or a (nested) dict/list/tuple of tensors and plain values, to path ``f``."""
    tensors = {}
    tree = _encode(obj, [], tensors)       # raises before the file is touched
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        arr = np.asarray(t._data, order="C")      # (ascontiguousarray makes 0-d 1-d)
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        b = arr.tobytes()
        header[name] = {"dtype": _DT[arr.dtype.name], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    header["__metadata__"] = {"leafgrad": json.dumps({"tree": tree})}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(f, "wb") as fh:
        fh.write(struct.pack("<Q", len(h)))
        fh.write(h)
        for b in blobs:
            fh.write(b)


def _decode(node, tensors):
    if "t" in node:
        t = tensors[node["t"]]
        if node.get("p"):
            from .nn.parameter import Parameter
            return Parameter(t, requires_grad=node.get("g", True))
        if node.get("g"):
            t.requires_grad_(True)
        return t
    if "d" in node:
        cls = OrderedDict if node.get("o") else dict
        return cls((k, _decode(v, tensors)) for k, v in node["d"])
    if "l" in node:
        return [_decode(v, tensors) for v in node["l"]]
    if "u" in node:
        return tuple(_decode(v, tensors) for v in node["u"])
    return node["v"]


def load(f, map_location=None, weights_only=True, **kwargs):
    """Read what ``save`` wrote (any other safetensors file gives a dict of tensors)."""
    with open(f, "rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        header = json.loads(fh.read(n))
        data = fh.read()
    meta = json.loads((header.pop("__metadata__", None) or {}).get("leafgrad", "{}"))
    tensors = {}
    for name, info in header.items():
        a, b = info["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=np.dtype(_NP[info["dtype"]]).newbyteorder("<"))
        tensors[name] = Tensor._make_plain(
            arr.astype(arr.dtype.newbyteorder("="), copy=True).reshape(tuple(info["shape"])))
    if "tree" not in meta:
        return tensors
    return _decode(meta["tree"], tensors)
