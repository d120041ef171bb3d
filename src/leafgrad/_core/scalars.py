"""Python numbers that do not fit a dtype: what PyTorch does with them.

PyTorch reads a Python int in one of two ways, and each has its own error:

* as data of a new tensor (``torch.tensor(2**64)``, ``t[0] = v``): unpacked
  as a C ``long long``, so beyond int64 it raises ValueError ("Overflow when
  unpacking long long"); a value that then does not fit an explicit integer
  dtype raises RuntimeError ("value cannot be converted to type int8 without
  overflow"), except that unsigned types take -max..-1 (-1 becomes 255);
* as a Scalar operand (``t + v``, ``fill_``, ``full``, clamp bounds): 64-bit
  (int64, or uint64 up to 2**64 - 1), OverflowError ("int too big to
  convert") beyond that. In arithmetic on an integer tensor the Scalar is then
  wrapped into the tensor's dtype (int8 + 300 is 47); written into a tensor it
  must fit (RuntimeError otherwise, with the same unsigned exception).

A float16 tensor times (divided by) one value is computed in float32 on that value
as given (``by_scalar_in_float32``), as PyTorch's CPU kernels do for reduced floats.
"""
import numpy as np

I64_MIN, I64_MAX, U64_MAX = -2 ** 63, 2 ** 63 - 1, 2 ** 64 - 1

_RANGES = {}


def _range(npd):
    r = _RANGES.get(npd)
    if r is None:
        info = np.iinfo(npd) if npd.kind in "iu" else np.finfo(npd)
        r = _RANGES[npd] = (int(info.min), int(info.max)) if npd.kind in "iu" else \
            (float(info.min), float(info.max))
    return r


def too_big_for_scalar(v):
    return OverflowError(
        "int too big to convert: %d does not fit in 64 bits (PyTorch's Python-number operands "
        "are int64, or unsigned up to 2**64 - 1). Fix: use a float (float(v)) or a smaller "
        "value." % v)


def too_big_for_data(v):
    return ValueError(
        "Overflow when unpacking long long: %d does not fit in int64 (-2**63 to 2**63 - 1), "
        "the type PyTorch reads Python ints of tensor data as. Fix: pass dtype=torch.float64 "
        "to store it as a float, or use smaller values." % v)


def does_not_fit(v, npd):
    lo, hi = _range(npd)
    return RuntimeError(
        "value cannot be converted to type %s without overflow: %r is outside %s's range "
        "[%s, %s]. Fix: use a wider dtype (torch.int64, torch.float64) or bring the value "
        "into range first." % (npd.name, v, npd.name, lo, hi))


def fits(v, npd):
    """Whether PyTorch's overflow check lets the number ``v`` into dtype ``npd``
    (floats are compared as doubles, as there; nan and inf pass into float dtypes)."""
    if npd.kind in "bc":
        return True
    lo, hi = _range(npd)
    if isinstance(v, float):
        if npd.kind == "f":
            return v != v or v in (float("inf"), float("-inf")) or lo <= v <= hi
        return float(lo) <= v <= float(hi)     # False for nan
    if npd.kind == "f":
        return True
    v = int(v)
    if npd.kind == "u":       # unsigned: -max..-1 wrap around, as in C
        return v <= hi and -v <= hi
    return lo <= v <= hi


def scalar_operand(v, npd):
    """A Python int operand of an op computed in ``npd``: OverflowError beyond 64
    bits; wrapped into an integer ``npd`` (as PyTorch casts the Scalar)."""
    if v > U64_MAX or v < I64_MIN:
        raise too_big_for_scalar(v)
    if npd.kind in "iu":
        lo, hi = _range(npd)
        if not lo <= v <= hi:
            bits = 8 * npd.itemsize
            v &= (1 << bits) - 1
            if v > hi:
                v -= 1 << bits
    return v


def check_scalar_write(v, npd):
    """``v`` written into a tensor of ``npd`` (fill_, full, clamp bounds): PyTorch's
    Scalar conversion, then its overflow check. Returns the value to write."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return v
    if isinstance(v, int) and (v > U64_MAX or v < I64_MIN):
        raise too_big_for_scalar(v)
    if not fits(v, npd):
        raise does_not_fit(v, npd)
    if isinstance(v, int) and npd.kind == "u" and v < 0:
        return v + (1 << (8 * npd.itemsize))
    return v


def check_data(numbers, npd):
    """The Python numbers of new tensor data (``torch.tensor``, ``t[i] = v``) against
    ``npd``: raises PyTorch's error for the first one it refuses."""
    for v in numbers:
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            if npd.kind in "fc":
                float(v)        # OverflowError: int too large to convert to float
                continue
            if npd.kind == "b":
                continue
            if not I64_MIN <= v <= I64_MAX:
                raise too_big_for_data(v)
        if npd.kind in "iu" and not fits(v, npd):
            raise does_not_fit(v, npd)


def setitem_value(v, npd):
    """A Python number assigned into a tensor of ``npd`` (``t[i] = v``): PyTorch makes a
    tensor of it first (ValueError beyond int64), then copies with the overflow check."""
    if isinstance(v, int) and not isinstance(v, bool) and not I64_MIN <= v <= I64_MAX:
        raise too_big_for_data(v)
    return check_scalar_write(v, npd)


_F16 = np.dtype(np.float16)


def by_scalar_in_float32(fwd, x, b):
    """``fwd(x, b)`` for a float16 array ``x`` and one value ``b`` (a Python number or a
    one-element array of any dtype), computed in float32 on b's own value and rounded to
    float16: PyTorch's ``iter.original_scalar_value<opmath_t>(2)`` path in mul_kernel and
    div_true_kernel (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp), so ``half / 66000`` is
    1.514e-05 where casting 66000 to float16 first (inf) would give 0."""
    if isinstance(b, complex) or getattr(b, "dtype", _F16).kind == "c":
        return fwd(x, np.asarray(b).astype(_F16))
    b32 = b.astype(np.float32) if isinstance(b, np.ndarray) else np.float32(b)
    return fwd(x.astype(np.float32), b32).astype(_F16)


def divide_by_count(g, n):
    """``g / n`` for a gradient array ``g`` and a Python count ``n`` (PyTorch's
    ``grad / n`` with n a Scalar): float16 in float32, so a count beyond 65504 is no inf."""
    if g.dtype is _F16:
        return by_scalar_in_float32(np.true_divide, g, n)
    return g / n
