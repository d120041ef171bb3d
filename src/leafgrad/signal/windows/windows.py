"""The window functions of ``torch.signal.windows``, as PyTorch's
``torch/signal/windows/windows.py``: the same checks (ValueError / TypeError, PyTorch's
messages), and the same computation with leafgrad ops (``linspace`` in the dtype, then
``exp``/``sin``/``cos``/``i0``), so ``requires_grad=True`` gives PyTorch's graph
(``grad_fn=<SumBackward1>`` for the cosine sums, ``<DivBackward0>`` for kaiser).

``sym=True`` (default): a symmetric window (filter design); ``sym=False``: periodic
(spectral analysis). float32 and float64 only, as PyTorch.
"""
import math
from collections.abc import Iterable

import numpy as np

from ..._api import functions as _F
from ..._core import dtype as _dtype
from ..._tensor import creation as _C

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]

_STRIDED = "torch.strided"


def _window_function_checks(function_name, M, dtype, layout):
    """PyTorch's checks, in its order: the length, the layout, the dtype."""
    if M < 0:
        raise ValueError("%s requires non-negative window length, got M=%s"
                         % (function_name, M))
    if layout != _STRIDED:
        raise ValueError("%s is implemented for strided tensors only, got: %s"
                         % (function_name, layout))
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError("%s expects float32 or float64 dtypes, got: %s"
                         % (function_name, dtype))


def _dtype_of(dtype):
    return _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)


def _empty(dtype, requires_grad):
    return _C.empty((0,), dtype=dtype, requires_grad=requires_grad)


def _short(M, dtype, requires_grad):
    """The windows of length 0 (empty) and 1 (a single 1), as PyTorch's; None otherwise."""
    if M == 0:
        return _empty(dtype, requires_grad)
    if M == 1:
        return _C.ones((1,), dtype=dtype, requires_grad=requires_grad)
    return None


def _linspace(start, end, M, dtype, requires_grad):
    if isinstance(M, bool) or not isinstance(M, (int, np.integer)):
        raise TypeError("linspace(): argument 'steps' (position 3) must be int, not %s. Fix: "
                        "pass the window length M as an int" % type(M).__name__)
    return _C.linspace(float(start), float(end), int(M), dtype=dtype,
                       requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=_STRIDED,
                device=None, requires_grad=False):
    """``exp(-|n - center| / tau)``; ``center`` (periodic windows only) defaults to
    ``M / 2`` (``sym=False``) or ``(M - 1) / 2``."""
    dtype = _dtype_of(dtype)
    _window_function_checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(dtype, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = _linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype, requires_grad)
    return _F.exp(-_F.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=_STRIDED, device=None, requires_grad=False):
    """The sine window ``sin(pi (n + 0.5) / M)`` (M + 1 when periodic)."""
    dtype = _dtype_of(dtype)
    _window_function_checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, requires_grad)
    start = 0.5
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _linspace(start * constant, (start + (M - 1)) * constant, M, dtype, requires_grad)
    return _F.sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=_STRIDED, device=None,
             requires_grad=False):
    """``exp(-(n - c)^2 / (2 std^2))``, c the centre."""
    dtype = _dtype_of(dtype)
    _window_function_checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(dtype, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _linspace(start * constant, (start + (M - 1)) * constant, M, dtype, requires_grad)
    return _F.exp(-k ** 2)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=_STRIDED, device=None,
           requires_grad=False):
    """``I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)`` (M when periodic)."""
    dtype = _dtype_of(dtype)
    _window_function_checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    # PyTorch: beta is a tensor of the dtype; start, constant and end in that precision
    npt = dtype.np.type
    b = npt(beta)
    start = -b
    constant = npt(npt(2.0) * b / npt(M if not sym else M - 1))
    end = min(b, npt(start + npt(M - 1) * constant))
    k = _linspace(start, end, M, dtype, requires_grad)
    bt = _C.tensor(float(b), dtype=dtype)
    return _F.i0(_F.sqrt(bt * bt - _F.pow(k, 2))) / _F.i0(bt)


def hamming(M, *, sym=True, dtype=None, layout=_STRIDED, device=None, requires_grad=False):
    """general_hamming with alpha 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=_STRIDED, device=None, requires_grad=False):
    """general_hamming with alpha 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=_STRIDED, device=None, requires_grad=False):
    """general_cosine with a = [0.42, 0.5, 0.08]."""
    dtype = _dtype_of(dtype)
    _window_function_checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=_STRIDED, device=None, requires_grad=False):
    """The triangle ``1 - |2n / (M - 1) - 1|`` (M when periodic)."""
    dtype = _dtype_of(dtype)
    _window_function_checks("bartlett", M, dtype, layout)
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = _linspace(start, start + (M - 1) * constant, M, dtype, requires_grad)
    return 1 - _F.abs(k)


def general_cosine(M, *, a, sym=True, dtype=None, layout=_STRIDED, device=None,
                   requires_grad=False):
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))`` (M when periodic)."""
    dtype = _dtype_of(dtype)
    _window_function_checks("general_cosine", M, dtype, layout)
    short = _short(M, dtype, requires_grad)
    if short is not None:
        return short
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _linspace(0, (M - 1) * constant, M, dtype, requires_grad)
    a_i = _C.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype,
                    requires_grad=requires_grad)
    i = _C.arange(a_i.shape[0], dtype=a_i.dtype, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * _F.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=_STRIDED, device=None,
                    requires_grad=False):
    """general_cosine with a = [alpha, 1 - alpha]."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=_STRIDED, device=None, requires_grad=False):
    """general_cosine with Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
