"""Scratch arrays reused across calls, and the quiet matmul into them: the convolution
and pooling kernels' buffers (``ops.nn.conv``, ``_conv_flat``, ``pooling``,
``_pooling_linear``). Imports NumPy and ``_core`` only."""
import math
import sys

import numpy as np

from ..._core.quiet import _IGNORE, _reset, _set

_CACHE_SIZE = 256


_FREE = {}


def _scratch(shape, dtype, fill=None, keep=None):
    """A C-contiguous array filled with ``fill`` (unless None), reusing one from an
    earlier call that nothing references any more: a fresh large array costs page
    faults when first written (NumPy's memory goes back to the OS between training
    steps, about a third of a small CNN's step time), and a reused one is still in
    cache. With ``keep`` (a tag for what the caller writes, e.g. the data region of
    one geometry's buffer), the array is only reused for that tag and ``fill`` is
    only written when it is new: the rest keeps its fill. Small and huge arrays are
    not kept. Not for use across threads."""
    n = math.prod(shape)
    if n < 16384 or n > 1 << 24:        # small: malloc reuses its memory anyway; huge: not kept
        return np.empty(shape, dtype) if fill is None else np.full(shape, fill, dtype)
    key = (shape, dtype, keep)
    arrs = _FREE.get(key)
    if arrs is None:
        if len(_FREE) >= _CACHE_SIZE:
            _FREE.clear()
        arrs = _FREE[key] = []
    for a in arrs:
        if sys.getrefcount(a) == 3:      # the list, ``a`` and getrefcount's argument
            if keep is None and fill is not None:
                a.fill(fill)
            return a
    a = np.empty(shape, dtype)
    if fill is not None:
        a.fill(fill)
    if len(arrs) < 4:
        arrs.append(a)
    return a


def _np_matmul(*args, **kwargs):
    # inf * 0 inside a product is a silent nan in PyTorch; NumPy would warn
    tok = _set(_IGNORE)
    try:
        return np.matmul(*args, **kwargs)
    finally:
        _reset(tok)


def _matmul(a, b):
    """a @ b for stacks (G, m, k) @ (G, k, n) of one dtype, into a scratch array."""
    return _np_matmul(a, b, out=_scratch((a.shape[0], a.shape[1], b.shape[2]), a.dtype))
