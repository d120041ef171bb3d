"""``default_collate`` and ``default_convert`` (as ``torch.utils.data``).

default_collate stacks a list of samples into a batch: tensors -> ``stack`` (new dim 0);
NumPy arrays and scalars -> tensors, stacked; Python floats -> float64 tensor; ints ->
int64 tensor (bools -> bool); str/bytes -> kept as a list; dicts -> dict of collated
values; namedtuples -> same namedtuple; tuples -> a *list* of collated fields (PyTorch's
backwards-compatible behaviour); lists -> list.
"""
import collections.abc
import copy
import re

import numpy as np

from ..._tensor import creation as _creation
from ..._tensor.tensor import Tensor
from ...ops.shape.joins import stack

__all__ = ["default_collate", "default_convert"]

_np_str_obj = re.compile(r"[SaUO]")
_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def default_convert(data):
    """NumPy arrays (not strings/objects) and scalars -> tensors, recursively; others unchanged."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        if _np_str_obj.search(data.dtype.str) is not None:
            return data
        return _creation.as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return _creation.as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Stack a list of samples into a batch (see the module docstring for the rules).

    Raises:
        RuntimeError: when sequence samples have different lengths, or tensors different
            shapes.
        TypeError: for element types it cannot batch (None, objects, string arrays).
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if _np_str_obj.search(elem.dtype.str) is not None:
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([_creation.as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return _creation.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return _creation.tensor(batch, dtype=_creation._dtype.float64)
    if isinstance(elem, int):
        return _creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(collated)
                return clone
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, s in enumerate(transposed):
                    clone[i] = default_collate(s)
                return clone
            return type(elem)([default_collate(s) for s in transposed])
        except TypeError:
            return [default_collate(s) for s in transposed]
    raise TypeError(_ERR.format(type(elem)))
