"""ATen's window factories: ``torch.hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window`` (PyTorch's TensorFactories.cpp, step by step).

Each is computed as ATen does: ``arange(L)`` in the requested dtype (L + 1 when
``periodic``, the last point dropped after), then PyTorch's in-place steps, each rounded to
the dtype, in the op-math precision (float32 for float16, as ATen's CPU kernels; the
scalar operands rounded to the dtype first). The
float32 cosines are NumPy's, so the last bit can differ from PyTorch's vectorised ones;
``kaiser_window`` evaluates I0 with Cephes' series as ATen does (in float32 for float32
and float16, with its overflow of ``exp(x)`` past 88.7; NumPy's i0 for float64).
The results are leaves (``requires_grad`` as asked), as PyTorch's factories.
``torch.signal.windows`` (scipy-style, ``sym=``) is ``leafgrad/signal/windows/``.
"""
import math
import numbers

import numpy as np

from .._core import dtype as _dtype
from .creation import _finish, _meta_after

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]

_UNSET = object()
_OPMATH = {np.dtype(np.float16): np.dtype(np.float32)}


def _signature_error(name, got, overloads):
    kinds = ", ".join(got)
    tail = ("*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
            "None, bool pin_memory = False, bool requires_grad = False")
    lines = "".join("\n * (int window_length%s, %s)" % ("".join(", " + p for p in o), tail)
                    for o in overloads)
    return TypeError("%s() received an invalid combination of arguments - got (%s), but "
                     "expected one of:%s\nFix: pass the arguments in this order, positionally"
                     % (name, kinds, lines))


def _parse(name, window_length, optional, requires):
    """PyTorch's overloads: ``window_length`` an int (not bool), then the optional
    ``(name, value, kind)`` in ``optional``, each one usable only with those before it."""
    got = [type(window_length).__name__]
    given = [v is not _UNSET for _, v, _ in optional]
    ok = not isinstance(window_length, bool) and _is_int(window_length)
    for i, (pname, v, kind) in enumerate(optional):
        if v is _UNSET:
            continue
        got.append(("%s=" % pname if not all(given[:i]) else "") + type(v).__name__)
        ok = ok and all(given[:i]) and (isinstance(v, bool) if kind == "bool" else
                                         _is_number(v))
    if not ok:
        if not _is_int(window_length) or isinstance(window_length, bool):
            raise TypeError("%s(): argument 'window_length' (position 1) must be int, not %s"
                            % (name, type(window_length).__name__))
        raise _signature_error(name, got, requires)
    return int(window_length.__index__())


def _is_int(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, numbers.Integral):
        return True
    return getattr(v, "shape", None) == () and getattr(getattr(v, "dtype", None),
                                                       "is_floating_point", True) is False


def _is_number(v):
    return (isinstance(v, numbers.Real) and not isinstance(v, bool)) or getattr(
        v, "shape", None) == ()


def _checks(name, length, dtype):
    d = _dtype.to_dtype(dtype) or _dtype.get_default_dtype()
    if d.np.kind not in "fc":
        raise RuntimeError("%s expects floating point dtypes, got: %s. Fix: pass "
                           "dtype=torch.float32 or torch.float64" % (name, d))
    if length < 0:
        raise RuntimeError("%s requires non-negative window_length, got window_length=%d. "
                           "Fix: pass a length >= 0" % (name, length))
    if d.np.kind == "c" and length > 1:
        raise NotImplementedError("\"arange_cpu\" not implemented for '%s'. Fix: build the "
                                  "window in a real dtype, then convert"
                                  % ("ComplexFloat" if d.np.itemsize == 8 else "ComplexDouble"))
    return d.np


def _window(name, length, periodic, dtype, requires_grad, steps):
    """The shared frame: the 0 and 1 lengths, the periodic extension, the trim."""
    npdt = _checks(name, length, dtype)
    if length == 0:
        return _finish(np.zeros(0, npdt), requires_grad)
    if length == 1:
        return _finish(np.ones(1, npdt), requires_grad)
    n = length + 1 if periodic else length
    op = _OPMATH.get(npdt, npdt)

    def r(x):           # one ATen step: op-math in, the dtype out
        return np.asarray(x, op).astype(npdt).astype(op)

    def c(x):           # a Python scalar operand: rounded to the dtype first
        return op.type(npdt.type(x))

    w = steps(np.arange(n, dtype=npdt).astype(op), n, c, r)
    w = np.asarray(w, op).astype(npdt)
    return _finish(np.ascontiguousarray(w[:length]), requires_grad)


def _hamming_steps(alpha, beta):
    def steps(k, n, c, r):
        w = r(k * c(math.pi * 2.0 / (n - 1)))
        return r(r(r(np.cos(w)) * c(-beta)) + c(alpha))
    return steps


def _blackman_steps(k, n, c, r):
    w = r(k * c(math.pi / (n - 1)))
    a = r(r(np.cos(r(w * c(4)))) * c(0.08))
    b = r(r(np.cos(r(w * c(2)))) * c(0.5))
    return r(r(a - b) + c(0.42))


def _bartlett_steps(k, n, c, r):
    w = r(k * c(2.0 / (n - 1)))
    half = ((n - 1) >> 1) + 1
    w[half:] = r(r(w[half:] * c(-1)) + c(2))
    return w


# Cephes' Chebyshev coefficients of exp(-x) I0(x) (0 <= x <= 8) and of exp(-x) sqrt(x) I0(x)
# (x > 8), as PyTorch's Math.h (chebyshev_coefficients_i0e_A / _B) and NumPy's i0
_I0A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
        1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
        -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
        9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
        -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
        1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
        -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
        1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
        -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
        1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
        3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
        1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
        -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
        7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
        -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
        3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
        2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
        8.04490411014108831608E-1)


def _chbevl32(x, coeffs):
    """Cephes' chbevl in float32, as ATen's (Clenshaw's recurrence)."""
    f = np.float32
    b0, b1, b2 = np.full_like(x, f(coeffs[0])), np.zeros_like(x), np.zeros_like(x)
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + f(c)
    return f(0.5) * (b0 - b2)


def _i0_f32(x):
    """ATen's float32 calc_i0: ``exp(x)`` times the series, in float32 throughout (so I0
    is inf once ``exp(x)`` overflows, past 88.7)."""
    f = np.float32
    x = np.abs(np.asarray(x, f))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        small = np.exp(x) * _chbevl32(x / f(2) - f(2), _I0A)
        big = np.exp(x) * _chbevl32(f(32) / x - f(2), _I0B) / np.sqrt(x)
    return np.where(x <= f(8), small, big)


def _kaiser_steps(beta):
    def steps(k, n, c, r):
        op = k.dtype.type               # ATen's op-math: alpha, beta and the argument in it
        alpha, b = op((n - 1) / 2.0), op(beta)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            t = (k - alpha) / alpha
            arg = b * np.sqrt(np.abs(op(1) - t * t))
            if op is np.float32:            # float32 op-math (float16 too): I0 overflows
                return _i0_f32(arg) / _i0_f32(b)
            return np.i0(arg) / np.i0(b)
    return steps


def _num(v, default):
    return default if v is _UNSET else float(v)


@_meta_after
def hann_window(window_length, periodic=_UNSET, *, dtype=None, layout=None,
                pin_memory=False, requires_grad=False):
    """``0.5 - 0.5 cos(2 pi n / (N - 1))`` for n < L; N = L + 1 when ``periodic``
    (default True), else L. (PyTorch: hamming_window with alpha = beta = 0.5.)"""
    L = _parse("hann_window", window_length, [("periodic", periodic, "bool")], [[], ["bool periodic"]])
    return _window("hann_window", L, periodic is not False, dtype, requires_grad,
                   _hamming_steps(0.5, 0.5))


@_meta_after
def hamming_window(window_length, periodic=_UNSET, alpha=_UNSET, beta=_UNSET, *, dtype=None,
                   layout=None, pin_memory=False, requires_grad=False):
    """``alpha - beta cos(2 pi n / (N - 1))`` (alpha 0.54, beta 0.46; N as hann_window)."""
    L = _parse("hamming_window", window_length,
               [("periodic", periodic, "bool"), ("alpha", alpha, "float"),
                ("beta", beta, "float")],
               [[], ["bool periodic"], ["bool periodic", "float alpha"],
                ["bool periodic", "float alpha", "float beta"]])
    return _window("hamming_window", L, periodic is not False, dtype, requires_grad,
                   _hamming_steps(_num(alpha, 0.54), _num(beta, 0.46)))


@_meta_after
def blackman_window(window_length, periodic=_UNSET, *, dtype=None, layout=None,
                    pin_memory=False, requires_grad=False):
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    L = _parse("blackman_window", window_length, [("periodic", periodic, "bool")],
               [[], ["bool periodic"]])
    return _window("blackman_window", L, periodic is not False, dtype, requires_grad,
                   _blackman_steps)


@_meta_after
def bartlett_window(window_length, periodic=_UNSET, *, dtype=None, layout=None,
                    pin_memory=False, requires_grad=False):
    """The triangle ``1 - |2n / (N - 1) - 1|`` (N as hann_window)."""
    L = _parse("bartlett_window", window_length, [("periodic", periodic, "bool")],
               [[], ["bool periodic"]])
    return _window("bartlett_window", L, periodic is not False, dtype, requires_grad,
                   _bartlett_steps)


@_meta_after
def kaiser_window(window_length, periodic=_UNSET, beta=_UNSET, *, dtype=None, layout=None,
                  pin_memory=False, requires_grad=False):
    """``I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)``, a = (N - 1) / 2, beta 12."""
    L = _parse("kaiser_window", window_length,
               [("periodic", periodic, "bool"), ("beta", beta, "float")],
               [[], ["bool periodic"], ["bool periodic", "float beta"]])
    return _window("kaiser_window", L, periodic is not False, dtype, requires_grad,
                   _kaiser_steps(_num(beta, 12.0)))
