"""PyTorch's ``meta`` device: tensors with a shape and a dtype but no values.

Real code moves a module to ``meta`` as a skeleton for ``torch.func.functional_call``
(the model-ensembling tutorial: ``copy.deepcopy(model).to('meta')``), then calls it with
other parameters. Here a meta tensor's data is a :class:`MetaArray`: a shape and a
dtype, no memory. Values never come out: ``item``, ``tolist``, ``numpy`` and copies to
the CPU raise PyTorch's errors. PyTorch also computes on meta tensors (shapes only);
leafgrad refuses with NotImplementedError instead: a MetaArray is not a NumPy array,
and turning it into one raises, so no op can make real-looking numbers out of it.

Source: https://pytorch.org/docs/stable/meta.html
"""
import math

import numpy as np


def _refuse(what):
    return NotImplementedError(
        "%s a tensor on the 'meta' device: leafgrad's meta tensors are placeholders (shape "
        "and dtype, no values) and take no part in computations. Fix: give the module real "
        "parameters (torch.func.functional_call(module, params, args)) or storage "
        "(module.to_empty(device='cpu')), or keep the tensor on the CPU." % what)


class MetaArray:
    """The data of a meta tensor: ``shape``, ``dtype``, ``ndim``, ``size``; NumPy
    conversion (any op) raises NotImplementedError."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def copy(self):
        return MetaArray(self.shape, self.dtype)

    def __array__(self, dtype=None, copy=None):
        raise _refuse("computing with")

    def __getattr__(self, name):
        raise _refuse("computing with")

    def __getitem__(self, key):
        raise _refuse("indexing")

    def __deepcopy__(self, memo):
        return self.copy()


def meta_like(arr):
    """A meta array with ``arr``'s shape and dtype."""
    return MetaArray(arr.shape, arr.dtype)


def no_data(what):
    """PyTorch's NotImplementedError for reading a meta tensor's values."""
    return NotImplementedError(
        "Cannot copy out of meta tensor; no data! (%s) A tensor on the 'meta' device has a "
        "shape and a dtype but no values. Fix: call the module with real parameters "
        "(torch.func.functional_call), or allocate storage with module.to_empty(device='cpu') "
        "and initialise it." % what)


def copy_data(arr):
    """A copy of a tensor's data (a NumPy array or a MetaArray): for deepcopy."""
    return arr.copy() if arr.__class__ is MetaArray else np.array(arr, copy=True)
