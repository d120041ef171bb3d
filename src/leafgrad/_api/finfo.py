"""``torch.finfo`` and ``torch.iinfo``: the numeric limits of a dtype, as PyTorch reports them.

Values are Python floats / ints (PyTorch's are too, not NumPy scalars). ``resolution`` is
``10 ** -floor(-log10(eps))`` (PyTorch's ``torch/csrc/TypeInfo.cpp``: it is not NumPy's
float32-rounded ``resolution``). bfloat16's limits are written out because NumPy has no
such type: 8 exponent bits like float32, 7 mantissa bits.
The Python types ``float``, ``int``, ``bool`` and ``complex`` stand for float64, int64, bool
and complex128 (PyTorch's ``THPDtype`` parsing of a Python scalar type; not the default dtype).
Errors: TypeError for a non-dtype argument or a dtype of the wrong kind (PyTorch's classes).
"""
import math

import numpy as np

from .._core import dtype as _dtype, errors as _errors

_BFLOAT16 = (16, 2.0 ** -7, float(np.float32(np.uint32(0x7F7F0000).view(np.float32))),
             2.0 ** -126)
_DEFAULT = object()  # finfo() is the default dtype's; finfo(None) is a TypeError


def _check(fn_name, dt, want_float):
    """``dt`` as a dtype (a Python scalar type becomes its dtype), or TypeError."""
    dt = _PYTHON_TYPES.get(dt, dt) if isinstance(dt, type) else dt
    if not isinstance(dt, _dtype.dtype):
        raise TypeError(_errors.info_not_dtype(fn_name, dt))
    ok = (dt.is_floating_point or dt.is_complex) if want_float else dt._category == 1
    if not ok:
        raise TypeError(_errors.info_wrong_kind(fn_name, dt))
    return dt


_PYTHON_TYPES = {float: _dtype.float64, int: _dtype.int64, bool: _dtype.bool,
                 complex: _dtype.complex128}


class finfo:
    """Limits of a floating point dtype (complex: of its real part); ``finfo()`` is the default dtype's."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
    __module__ = "torch"

    def __init__(self, type=_DEFAULT):
        dt = _dtype.get_default_dtype() if type is _DEFAULT else type
        dt = _check("finfo", dt, True).to_real()
        if dt is _dtype.bfloat16:
            bits, eps, big, tiny = _BFLOAT16
        else:
            info = np.finfo(dt.np)
            bits, eps, big, tiny = info.bits, float(info.eps), float(info.max), float(info.tiny)
        for name, value in (("bits", int(bits)), ("eps", eps), ("max", big), ("min", -big),
                            ("tiny", tiny), ("smallest_normal", tiny),
                            ("resolution", 10.0 ** -math.floor(-math.log10(eps))),
                            ("dtype", dt.name)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError("attribute '%s' of 'torch.finfo' objects is not writable" % name)

    def __eq__(self, other):
        return isinstance(other, finfo) and (self.bits, self.dtype) == (other.bits, other.dtype)

    __hash__ = None

    def __repr__(self):
        return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, "
                "dtype=%s)" % (self.resolution, self.min, self.max, self.eps,
                               self.smallest_normal, self.tiny, self.dtype))


class iinfo:
    """Limits of an integer dtype (bool is not one: TypeError, as in PyTorch)."""

    __slots__ = ("bits", "max", "min", "dtype")
    __module__ = "torch"

    def __init__(self, type):
        type = _check("iinfo", type, False)
        info = np.iinfo(type.np)
        for name, value in (("bits", int(info.bits)), ("max", int(info.max)),
                            ("min", int(info.min)), ("dtype", type.name)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError("attribute '%s' of 'torch.iinfo' objects is not writable" % name)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return "iinfo(min=%g, max=%g, dtype=%s)" % (self.min, self.max, self.dtype)
