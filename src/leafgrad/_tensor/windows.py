"""ATen's window factories: ``torch.hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window`` (PyTorch's TensorFactories.cpp, step by step).

Each is computed as ATen does: ``arange(L)`` in the requested dtype (L + 1 when
``periodic``, the last point dropped after), then PyTorch's in-place steps, each rounded to
the dtype, in the op-math precision (float32 for float16, as ATen's CPU kernels; the
scalar operands rounded to the dtype first). The
float32 cosines are NumPy's, so the last bit can differ from PyTorch's vectorised ones;
``kaiser_window`` evaluates I0 in float64 (NumPy's Cephes series) and rounds once.
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


def _kaiser_steps(beta):
    def steps(k, n, c, r):
        alpha = (n - 1) / 2.0
        x = k.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            return np.i0(beta * np.sqrt(np.abs(1 - ((x - alpha) / alpha) ** 2))) / np.i0(beta)
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
