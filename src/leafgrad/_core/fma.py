"""Fused multiply-add in NumPy: ``a * b + c`` with one rounding, as the compiled
kernels of PyTorch compute it (GCC contracts ``x * y + z`` in the vectorised CPU
kernels into an FMA instruction: random transforms, linspace, tanh_backward).

NumPy has no fma ufunc; these emulate it exactly (up to the double roundings noted)."""
import numpy as np

_F32 = np.float32


def fma32(a, b, c):
    """float32 fma(a, b, c) for float32 ``a`` (``b``, ``c``: float32/float64 arrays or
    Python floats holding float32 values). The product of two float32 values is exact
    in float64, so the result is rounded to float64 once, then to float32: it differs
    from one rounding only when the float64 sum lands exactly on a float32 midpoint
    while the exact sum is not one (about 2**-28 of the inputs where the sum needs more
    than 53 bits; none where it does not)."""
    t = a.astype(np.float64)
    t *= b
    t += c
    return t.astype(_F32)


def fma64(a, b, c):
    """float64 fma(a, b, c): Dekker's exact product (Veltkamp split) and Knuth's
    TwoSum, rounded once (up to a double rounding in the last step, which needs ties
    below 2**-106). Where that is not finite (an inf or nan operand, or |a|, |b| above
    2**996, where the split overflows), a * b + c as IEEE arithmetic gives it. Dekker 1971, "A floating-point technique for extending the
    available precision"; Knuth, TAOCP vol. 2, 4.2.2."""
    p = a * b
    sp = 134217729.0                  # 2**27 + 1
    t = sp * a
    ah = t - (t - a)
    al = a - ah
    t = sp * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    r = s + (err + e)
    return np.where(np.isfinite(r), r, s)
