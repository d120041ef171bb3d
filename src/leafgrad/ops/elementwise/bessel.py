"""torch.special's Bessel functions without gradients: modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, spherical_bessel_j0, bessel_j0/j1/y0/y1, and airy_ai (a
Bessel function of order 1/3) (PyTorch has no derivative for these: the result does not
require grad).

Formulas (standard results, NumPy here):
* I0, I1: the kernels of ``ops/elementwise/_special_kernels.py`` (series, then Hankel's expansion).
* K0, K1 for x <= 2: the series A&S 9.6.13 / 9.6.11 (with I0, I1 and harmonic numbers);
  for x > 2: exp(x) K_nu(x) = int_0^inf exp(-2x sinh^2(t/2)) cosh(nu t) dt by the
  trapezoidal rule in u = t sqrt(x), which converges geometrically for this even analytic
  integrand (step 0.2 in u: error far below 1e-16).
* spherical_bessel_j0: sin(x)/x, its Taylor series for |x| < 0.5, 0 at +-inf.
* airy_ai: see its section below (float64 within ~1e-14 of Ai everywhere; PyTorch's own
  float64 kernel is off by up to ~7e-6 for -9 < x < -2.09, where its asymptotic branch
  starts too early).
"""
import math

import numpy as np

from ..._core import dtype as _dtype
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from . import _special_kernels as K
from .._registry import defop

_EULER = 0.57721566490153286061


def _k_small(x, order):
    # A&S 9.6.13 (K0) and 9.6.11 (K1), for 0 < x <= 2
    q = x * x / 4
    lg = np.log(x / 2)
    if order == 0:
        term, harm, total = np.ones_like(x), 0.0, np.zeros_like(x)
        for k in range(1, 30):
            term = term * q / (k * k)
            harm += 1.0 / k
            total = total + term * harm
        return -(lg + _EULER) * K.i0(x) + total
    term, total, hk = np.ones_like(x), np.zeros_like(x), 0.0      # (x^2/4)^k / (k! (k+1)!)
    for k in range(0, 30):
        if k:
            term = term * q / (k * (k + 1))
            hk += 1.0 / k
        psi_sum = (-_EULER + hk) + (-_EULER + hk + 1.0 / (k + 1))
        total = total + psi_sum * term
    return 1 / x + lg * K.i1(x) - x / 4 * total


def _k_scaled_large(x, order):
    # exp(x) K_nu(x) for x > 2: trapezoid over t >= 0 of an even integrand, in u = t sqrt(x)
    # (the integrand's width is about 1/sqrt(x): a fixed step in u keeps the rule's
    # geometric convergence for every x); the integrand is below e^-745 past u = 40
    h = 0.2
    u = np.arange(0.0, 40.0 + h, h).reshape((-1,) + (1,) * x.ndim)
    rx = np.sqrt(x)
    t = u / rx
    f = np.exp(-2 * x * np.sinh(t / 2) ** 2) * np.cosh(order * t)
    return h * (f.sum(axis=0) - 0.5 * f[0]) / rx


def _bessel_k(x, order, scaled):
    x = np.asarray(x, np.float64)
    small = (x > 0) & (x <= 2)
    large = x > 2
    xs = np.where(small, x, 1.0)
    xl = np.where(large, x, 3.0)
    ks = _k_small(xs, order)
    if scaled:
        ks = ks * np.exp(xs)
        kl = _k_scaled_large(xl, order)
    else:
        kl = _k_scaled_large(xl, order) * np.exp(-xl)
    out = np.where(small, ks, kl)
    out = np.where(x == 0, math.inf, out)
    out = np.where(x == math.inf, 0.0, out)
    return np.where((x < 0) | np.isnan(x), math.nan, out)


def _spherical_j0(x):
    x = np.asarray(x, np.float64)
    small = np.abs(x) < 0.5
    z = x * x
    series = 1 - z / 6 * (1 - z / 20 * (1 - z / 42 * (1 - z / 72 * (1 - z / 110 * (
        1 - z / 156)))))
    direct = np.sin(x) / np.where(small, 1.0, x)
    out = np.where(small, series, direct)
    return np.where(np.isinf(x), 0.0, out)


def _i_unscaled(order):
    # I0, I1 as torch.special.i0 / i1 compute them (nan at +-inf, as PyTorch)
    return lambda x: K._bessel_i(x, order, False)


def _make(name, kernel, doc, typed=False):
    def op(input, *, out=None):
        if out is not None:
            from .._out import out_call
            return out_call(name, op, (input,), {}, out)
        if not isinstance(input, Tensor):
            raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s"
                            % (name, type(input).__name__))
        x = input._data
        dt = x.dtype if x.dtype.kind == "f" else _dtype.get_default_dtype().np
        with _quiet():
            x64 = x.astype(np.float64)
            r = kernel(x64, np.dtype(dt)) if typed else kernel(x64)
        return Tensor._make_plain(np.asarray(r).astype(dt))
    op.__name__ = op.__qualname__ = "special_" + name
    op.__doc__ = doc
    defop("special_" + name, op, function=False, method=False, inplace=False, out=True,
          family="special")
    return op


special_modified_bessel_i0 = _make("modified_bessel_i0", _i_unscaled(0),
                                   "Modified Bessel function I0(x). No gradient.")
special_modified_bessel_i1 = _make("modified_bessel_i1", _i_unscaled(1),
                                   "Modified Bessel function I1(x). No gradient.")
special_modified_bessel_k0 = _make("modified_bessel_k0", lambda x: _bessel_k(x, 0, False),
                                   "Modified Bessel function of the second kind K0(x) "
                                   "(inf at 0, nan below). No gradient.")
special_modified_bessel_k1 = _make("modified_bessel_k1", lambda x: _bessel_k(x, 1, False),
                                   "Modified Bessel function of the second kind K1(x). "
                                   "No gradient.")
special_scaled_modified_bessel_k0 = _make("scaled_modified_bessel_k0",
                                          lambda x: _bessel_k(x, 0, True),
                                          "exp(x) K0(x), without underflow. No gradient.")
special_scaled_modified_bessel_k1 = _make("scaled_modified_bessel_k1",
                                          lambda x: _bessel_k(x, 1, True),
                                          "exp(x) K1(x), without underflow. No gradient.")
special_spherical_bessel_j0 = _make("spherical_bessel_j0", _spherical_j0,
                                    "Spherical Bessel function j0(x) = sin(x)/x (1 at 0). "
                                    "No gradient.")


# ------------------------------------------------------ Bessel J0, J1, Y0, Y1
# |x| < 25: J by the trapezoidal rule over a full period of (1/2pi) int cos(n t - x sin t)
# (exponentially convergent: 96 points); Y by the series below 2, else by Schlafli's
# integrals with Gauss-Legendre nodes. |x| >= 25: Hankel's asymptotic expansion (A&S 9.2.5).
_GL = []      # the 96 nodes and weights, computed on first use (numpy.polynomial: ~3 ms)


def _gauss(f, lo, hi, shape_nd):
    if not _GL:
        _GL.extend(np.polynomial.legendre.leggauss(96))
    gl_x, gl_w = _GL
    t = ((hi - lo) / 2 * gl_x + (hi + lo) / 2).reshape((-1,) + (1,) * shape_nd)
    w = ((hi - lo) / 2 * gl_w).reshape((-1,) + (1,) * shape_nd)
    return (w * f(t)).sum(axis=0)


def _hankel(x, order):
    mu = 4.0 * order * order
    p, q = np.ones_like(x), np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 60):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        if k % 2:
            q = q + (term if k % 4 == 1 else -term)
        else:
            p = p + (term if k % 4 == 0 else -term)
    chi = x - (0.5 * order + 0.25) * math.pi
    amp = np.sqrt(2 / (math.pi * x))
    return amp * (p * np.cos(chi) - q * np.sin(chi)), amp * (p * np.sin(chi) + q * np.cos(chi))


def _bessel_j(x, order):
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    small = a < 25
    xs = np.where(small, a, 0.0)
    n = 96
    th = (2 * math.pi * np.arange(n) / n).reshape((-1,) + (1,) * x.ndim)
    js = np.cos(order * th - xs * np.sin(th)).mean(axis=0)
    jl = _hankel(np.where(small, 25.0, a), order)[0]
    out = np.where(small, js, jl)
    out = np.where(np.isinf(x), math.nan, out)        # PyTorch's value at +-inf
    if order == 1:
        out = np.where(x < 0, -out, out)
    return np.where(np.isnan(x), math.nan, out)


def _bessel_y_small(x, order):
    # A&S 9.1.13 (Y0) and 9.1.11 (Y1) for 0 < x < 2
    q = x * x / 4
    lg = np.log(x / 2)
    if order == 0:
        term, harm, total = np.ones_like(x), 0.0, np.zeros_like(x)
        for k in range(1, 30):
            term = -term * q / (k * k)
            harm += 1.0 / k
            total = total - term * harm
        return 2 / math.pi * ((lg + _EULER) * _bessel_j(x, 0) + total)
    term, total, hk = x / 2, np.zeros_like(x), 0.0
    for k in range(0, 30):
        if k:
            term = -term * q / (k * (k + 1))
            hk += 1.0 / k
        total = total + (2 * (-_EULER + hk) + 1.0 / (k + 1)) * term
    return -2 / (math.pi * x) + 2 / math.pi * lg * _bessel_j(x, 1) - total / math.pi


def _bessel_y(x, order):
    x = np.asarray(x, np.float64)
    small = (x > 0) & (x < 2)
    mid = (x >= 2) & (x < 25)
    ys = _bessel_y_small(np.where(small, x, 1.0), order)
    xm = np.where(mid, x, 2.0)
    first = _gauss(lambda t: np.sin(xm * np.sin(t) - order * t), 0.0, math.pi, x.ndim)
    top = 2 * math.asinh(372.5 / 2)
    if order == 0:
        second = 2 * _gauss(lambda t: np.exp(-xm * np.sinh(t)), 0.0, top, x.ndim)
    else:
        second = _gauss(lambda t: 2 * np.sinh(t) * np.exp(-xm * np.sinh(t)), 0.0, top, x.ndim)
    ym = (first - second) / math.pi
    yl = _hankel(np.where(x >= 25, x, 25.0), order)[1]
    out = np.where(small, ys, np.where(mid, ym, yl))
    out = np.where(x == 0, -math.inf, np.where(x == math.inf, math.nan, out))   # PyTorch's
    return np.where((x < 0) | np.isnan(x), math.nan, out)


special_bessel_j0 = _make("bessel_j0", lambda x: _bessel_j(x, 0),
                          "Bessel function of the first kind J0(x). No gradient.")
special_bessel_j1 = _make("bessel_j1", lambda x: _bessel_j(x, 1),
                          "Bessel function of the first kind J1(x). No gradient.")
special_bessel_y0 = _make("bessel_y0", lambda x: _bessel_y(x, 0),
                          "Bessel function of the second kind Y0(x) (-inf at 0, nan below). "
                          "No gradient.")
special_bessel_y1 = _make("bessel_y1", lambda x: _bessel_y(x, 1),
                          "Bessel function of the second kind Y1(x). No gradient.")


# ------------------------------------------------------------------ Airy Ai
# |x| <= 1: the Maclaurin series Ai = c1 f - c2 g (A&S 10.4.2-3; no cancellation there).
# x > 1: Ai(x) = sqrt(x/3) K_{1/3}(zeta) / pi, zeta = 2/3 x^1.5 (A&S 10.4.14), K by the
# trapezoidal integral above (exact to rounding for zeta > 0.6). -9 <= x < -1: Taylor
# series of Ai'' = x Ai about the nearest node of a 1/2-spaced grid, whose values come
# once from the Maclaurin series in 40-digit decimal arithmetic. x < -9: the asymptotic
# expansion A&S 10.4.60 (its error ~exp(-2 zeta) < 1e-16 there), with the phase
# 2/3 (-x)^1.5 + pi/4 computed in the input's dtype as PyTorch's kernel does (in float32
# that phase is what PyTorch's float32 values at large |x| follow).
_AI0 = "0.35502805388781723926"     # Ai(0) = 1 / (3^(2/3) Gamma(2/3))
_AIP0 = "0.25881940379280679840"    # -Ai'(0) = 1 / (3^(1/3) Gamma(1/3))
_AIRY_NODES = []                    # (x0, Ai(x0), Ai'(x0)) for x0 = 0, -0.5, ..., -9.5


def _airy_maclaurin_decimal(x):
    import decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        x = decimal.Decimal(x)
        z = x * x * x
        f = fp = decimal.Decimal(0)
        tf, tg = decimal.Decimal(1), x        # terms of f = sum x^3k..., g = sum x^(3k+1)...
        dtf, dtg = decimal.Decimal(0), decimal.Decimal(1)   # their derivatives' terms
        g = gp = decimal.Decimal(0)
        for k in range(0, 200):
            f += tf
            g += tg
            fp += dtf
            gp += dtg
            n = 3 * k
            tf = tf * z / ((n + 2) * (n + 3))
            tg = tg * z / ((n + 3) * (n + 4))
            dtf = tf * (n + 3) / x if x else decimal.Decimal(0)
            dtg = tg * (n + 4) / x if x else decimal.Decimal(0)
        c1, c2 = decimal.Decimal(_AI0), decimal.Decimal(_AIP0)
        return float(c1 * f - c2 * g), float(c1 * fp - c2 * gp)


def _airy_nodes():
    if not _AIRY_NODES:
        for j in range(20):
            _AIRY_NODES.append((-0.5 * j,) + _airy_maclaurin_decimal(-0.5 * j))
    return np.array(_AIRY_NODES)


def _airy_taylor(x):
    nodes = _airy_nodes()
    j = np.clip(np.rint(-2 * x), 0, len(nodes) - 1).astype(np.intp)
    x0, a0, a1 = nodes[j, 0], nodes[j, 1], nodes[j, 2]
    h = x - x0
    # a_{k+2} = (x0 a_k + a_{k-1}) / ((k+2)(k+1)), from Ai'' = x Ai written about x0
    prev, cur, nxt = np.zeros_like(x), a0, a1
    total, hk = a0 + a1 * h, h
    for k in range(0, 40):
        new = (x0 * cur + prev) / ((k + 2) * (k + 1))
        prev, cur, nxt = cur, nxt, new
        hk = hk * h
        total = total + new * hk
    return total


def _airy_maclaurin(x):
    z = x * x * x
    tf, tg = np.ones_like(x), x.copy()
    f, g = np.zeros_like(x), np.zeros_like(x)
    for k in range(0, 12):
        f, g = f + tf, g + tg
        n = 3 * k
        tf = tf * z / ((n + 2) * (n + 3))
        tg = tg * z / ((n + 3) * (n + 4))
    return float(_AI0) * f - float(_AIP0) * g


def _airy_asymptotic_negative(x, phase):
    zeta = -2.0 * x * np.sqrt(-x) / 3.0
    p, q = np.ones_like(x), np.zeros_like(x)
    u, zk = 1.0, np.ones_like(x)
    for k in range(1, 30):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)
        zk = zk / zeta
        sign = -1.0 if (k // 2) % 2 else 1.0      # P: u0 - u2/z^2 + u4/z^4 ...; Q: u1/z - ...
        if k % 2:
            q = q + sign * u * zk
        else:
            p = p + sign * u * zk
    return (np.sin(phase) * p - np.cos(phase) * q) / (math.sqrt(math.pi) * np.sqrt(np.sqrt(-x)))


def _airy_ai(x, dtype):
    x = np.asarray(x, np.float64)
    small = np.abs(x) <= 1
    pos = x > 1
    mid = (x < -1) & (x >= -9)
    neg = x < -9
    out = _airy_maclaurin(np.where(small, x, 0.0))
    xp = np.where(pos, x, 2.0)
    zeta = 2.0 / 3.0 * xp * np.sqrt(xp)
    kp = _k_scaled_large(zeta, 1.0 / 3.0) * np.exp(-zeta)
    out = np.where(pos, np.sqrt(xp / 3) * kp / math.pi, out)
    out = np.where(mid, _airy_taylor(np.where(mid, x, -2.0)), out)
    xn = np.where(neg, x, -10.0).astype(dtype)
    phase = (-2.0 * xn * np.sqrt(-xn) / 3.0 + 0.25 * math.pi).astype(dtype)
    out = np.where(neg, _airy_asymptotic_negative(xn.astype(np.float64),
                                                  phase.astype(np.float64)), out)
    # PyTorch's kernel: nan at +-inf, 0 past 103.892
    out = np.where(x.astype(dtype) > dtype.type(103.892), 0.0, out)
    return np.where(np.isinf(x) | np.isnan(x), math.nan, out)


special_airy_ai = _make("airy_ai", _airy_ai,
                        "Airy function Ai(x): the solution of y'' = x y that decays as x -> "
                        "+inf. Float inputs keep their dtype, integers give the default dtype. "
                        "As PyTorch: nan at +-inf and nan, 0 for x > 103.892. No gradient "
                        "(the result does not require grad, as PyTorch's).", typed=True)
