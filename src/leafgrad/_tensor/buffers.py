"""``torch.empty_strided`` and ``torch.frombuffer``: tensors whose memory layout is given
(strides over a fresh buffer) or borrowed (any object with the buffer protocol, shared,
not copied), as PyTorch 2.13 on the CPU."""

import numpy as np

from .._core import dtype as _dtype, errors as _errors
from .creation import _dt, _finish, _on_meta, _size
from .meta import MetaArray

_warned = []


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A tensor of ``size`` with ``stride`` (in elements) over a fresh buffer just large
    enough (zeros here: PyTorch leaves it uninitialised). Strides may be 0 (elements
    share memory) or give any order.

    Raises:
        RuntimeError: sizes and strides of different lengths, a negative size or stride,
        requires_grad on a non-float dtype.
    """
    shape, strides = _size((size,)), tuple(int(s) for s in stride)
    if len(shape) != len(strides):
        raise RuntimeError("dimensionality of sizes (%d) must match dimensionality of strides "
                           "(%d). Fix: one stride per dim" % (len(shape), len(strides)))
    if any(s < 0 for s in shape):
        bad = min(shape)
        raise RuntimeError("Trying to create tensor with negative dimension %d: %s. Fix: "
                           "sizes >= 0" % (bad, list(shape)))
    if any(s < 0 for s in strides):
        raise RuntimeError("Storage size calculation overflowed with sizes=%s and strides=%s. "
                           "Fix: strides >= 0" % (list(shape), list(strides)))
    npd = _dt(dtype, "empty_strided")
    n = 0 if 0 in shape else 1 + sum((a - 1) * b for a, b in zip(shape, strides))
    if _on_meta(device):
        item = np.dtype(npd).itemsize
        return _finish(MetaArray(shape, npd, tuple(s * item for s in strides), 0, n * item),
                       requires_grad)
    buf = np.zeros(n, npd)
    item = buf.itemsize
    arr = np.lib.stride_tricks.as_strided(buf, shape, tuple(s * item for s in strides),
                                          writeable=True)
    return _finish(arr, requires_grad)


def _bytes_of(buffer):
    try:
        return memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol. Fix: pass bytes, "
                         "bytearray, array.array, a NumPy array or another buffer") from None


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over ``buffer``'s bytes (``count`` elements of ``dtype`` from byte
    ``offset``; -1: to the end), sharing its memory: writes show in both. A read-only
    buffer (``bytes``) gives a tensor NumPy will not write, with PyTorch's warning (once).

    Raises:
        ValueError: no buffer protocol, an empty buffer or count 0, an offset outside the
        buffer, a length that is not a multiple of the element size, count too large.
    """
    view = _bytes_of(buffer)
    npd = _dtype.to_dtype(dtype, "frombuffer").np
    length, item = view.nbytes, npd.itemsize
    if length == 0 or count == 0:
        raise ValueError("both buffer length (%d) and count (%d) must not be 0. Fix: a "
                         "non-empty buffer and count > 0 (or -1)" % (length, count))
    if not 0 <= offset < length:
        raise ValueError("offset (%d bytes) must be non-negative and no greater than buffer "
                         "length (%d bytes) minus 1. Fix: an offset in [0, %d)"
                         % (offset, length, length))
    if count < 0:
        if (length - offset) % item:
            raise ValueError("buffer length (%d bytes) after offset (%d bytes) must be a "
                             "multiple of element size (%d). Fix: pass count= or another "
                             "offset" % (length - offset, offset, item))
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError("requested buffer length (%d * %d bytes) after offset (%d bytes) must "
                         "not be greater than actual buffer length (%d bytes). Fix: a smaller "
                         "count" % (count, item, offset, length))
    if view.readonly and not _warned:
        _warned.append(True)
        _errors.warn("The given buffer is not writable, and PyTorch does not support "
                      "non-writable tensors. This means you can write to the underlying "
                      "(supposedly non-writable) buffer using the tensor. You may want to copy "
                      "the buffer to protect its data or make it writable before converting it "
                      "to a tensor. This type of warning will be suppressed for the rest of "
                      "this program.", UserWarning)
    arr = np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view,
                        npd, count, offset)
    return _finish(arr, requires_grad)
