"""Special functions on ndarrays, in NumPy alone (no SciPy: runtime deps are NumPy and
safetensors). Each kernel takes and returns float64 arrays; ``ops/elementwise/special.py`` casts to
the input's dtype. Accuracy: about 1e-15 relative in float64 away from zeros of the
function (absolute there), checked against PyTorch in tests/test_special_vs_torch.py.

Sources of the formulas (standard results, written here from the formulas):
* erf, erfc, lgamma: the C library through Python's ``math`` (correctly rounded or
  within an ulp), elementwise.
* digamma: reflection psi(1-x) - pi/tan(pi x) for x <= 0, recurrence
  psi(x) = psi(x+1) - 1/x up to x >= 10, then the asymptotic series
  ln x - 1/(2x) - sum B_2k / (2k x^2k) (Abramowitz & Stegun 6.3.18).
* Hurwitz zeta (polygamma n >= 1): Euler-Maclaurin summation with twelve Bernoulli
  terms (DLMF 25.11.5 form), as Cephes' ``zeta`` arranges it.
* erfinv / erfcinv / ndtri: Winitzki's closed-form start, then Halley steps on erf or,
  in the tails, on erfc (so 1 - y never loses digits).
* I0, I1 (and the exp-scaled forms): the power series below |x| = 20, the Hankel
  asymptotic expansion (A&S 9.7.1) above.
* erfcx: exp(x^2) erfc(x) with x^2 split exactly (Dekker), the asymptotic continued
  series (A&S 7.1.23) for x >= 10.
* igamma / igammac (regularized incomplete gamma): the series for x < a + 1 and the
  Lentz continued fraction otherwise (Numerical Recipes 6.2's split).
"""
import math

import numpy as np

_f64 = np.float64
_SQRT_PI = math.sqrt(math.pi)


def _elementwise(f):
    fu = np.frompyfunc(f, 1, 1)

    def k(x):
        x = np.asarray(x, _f64)
        return np.asarray(fu(x), dtype=_f64).reshape(x.shape)
    return k


def _safe(f, pole):
    def g(v):
        try:
            return f(v)
        except (ValueError, OverflowError):
            return pole(v)
    return g


erf = _elementwise(math.erf)
erfc = _elementwise(math.erfc)
# math.lgamma raises at the poles (0, -1, ...): PyTorch gives +inf there
lgamma = _elementwise(_safe(math.lgamma, lambda v: math.inf))


# ------------------------------------------------------------------- digamma
def digamma(x):
    x = np.asarray(x, _f64)
    out = np.zeros_like(x)
    neg = x <= 0
    with np.errstate(invalid="ignore"):
        fr = x - np.trunc(x)                   # tan has period pi: reduce first
    with np.errstate(divide="ignore", invalid="ignore"):
        refl = np.where(neg, math.pi / np.tan(math.pi * fr), 0.0)
    v = np.where(neg, 1.0 - x, x)
    for _ in range(10):
        m = v < 10
        if not m.any():
            break
        with np.errstate(divide="ignore"):
            out -= np.where(m, 1.0 / np.where(m, v, 1.0), 0.0)
        v = np.where(m, v + 1.0, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = 1.0 / (v * v)
        series = z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z * (
            1 / 132 - z * (691 / 32760 - z / 12))))))
        out += np.log(v) - 0.5 / v - series - refl
    # poles: -inf at +0 and -0 gives +inf (PyTorch's kernel), nan at negative integers
    out = np.where(x == 0, np.where(np.signbit(x), math.inf, -math.inf), out)
    out = np.where(neg & (x == np.floor(x)) & (x != 0), math.nan, out)
    out = np.where(x == math.inf, math.inf, out)
    return np.where(np.isnan(x) | (x == -math.inf), math.nan, out)


# ------------------------------------------------------------- Hurwitz zeta
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
        43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730)


def zeta(s, q):
    """Hurwitz zeta sum_k (k + q)^-s, elementwise with broadcasting (PyTorch's
    special.zeta: inf at s == 1, nan for s < 1, inf at non-positive integer q, nan for
    negative q with non-integer s)."""
    s, q = np.broadcast_arrays(np.asarray(s, _f64), np.asarray(q, _f64))
    # far below 0 (an integer s, a non-integer q): the series sum_k (q + k)^-s still
    # converges (PyTorch's Cephes loop adds all |q| terms up to 0); its terms at q <= a < 0
    # are (-1)^s |a|^-s, the sum zeta(s, r) - zeta(s, 1 - q) over |a| = r, r + 1, ..., -q
    with np.errstate(invalid="ignore"):
        far = (q < -1000) & (q != np.floor(q)) & (s == np.floor(s)) & (s > 1)
    if far.any():
        sf, qf = s[far], q[far]
        m = np.ceil(-qf)
        up = qf + m                      # in (0, 1): the first term past 0
        sign = np.where(sf % 2 == 0, 1.0, -1.0)
        res = sign * (zeta(sf, 1.0 - up) - zeta(sf, 1.0 - qf)) + zeta(sf, up)
        q = np.where(far, 1.0, q)
    with np.errstate(all="ignore"):
        total = np.zeros(s.shape)
        w = q.copy()
        target = np.maximum(10.0, s + 2.0)
        for _ in range(100000):
            # stop where w + 1 == w (|w| >= 2**53, inf: such q are integers, decided
            # below) and where the terms have underflowed to 0 (a huge s): either ran all
            # 100000 passes (q = -1.8e308, s = 1e300)
            p = np.power(w, -s)
            m = (w < target) & (w + 1.0 != w) & ~((w > 1) & (p == 0))
            if not m.any():
                break
            total += np.where(m, p, 0.0)
            w = np.where(m, w + 1.0, w)
        # Euler-Maclaurin tail at w: w^(1-s)/(s-1) + w^-s/2 + sum B2k/(2k)! s..(s+2k-2) w^-(s+2k-1)
        tail = np.power(w, 1.0 - s) / (s - 1.0) + 0.5 * np.power(w, -s)
        fact, poch, wp = 1.0, s.copy(), np.power(w, -s - 1.0)
        for k, b in enumerate(_B2K, 1):
            fact *= (2 * k - 1) * (2 * k)
            tail += b / fact * poch * wp
            poch = poch * (s + 2 * k - 1) * (s + 2 * k)
            wp = wp / (w * w)
        out = total + tail
    out = np.where(s == 1, math.inf, out)
    out = np.where(s < 1, math.nan, out)
    qint = (q <= 0) & (q == np.floor(q))
    out = np.where((q <= 0) & ~qint & (s != np.floor(s)), math.nan, out)
    out = np.where(qint & (s > 1), math.inf, out)
    if far.any():
        out[far] = res
    return np.where(np.isnan(s) | np.isnan(q), math.nan, out)


def trigamma(x):
    """polygamma(1, x) as PyTorch computes it (its calc_trigamma: reflection below 1/2,
    six recurrence steps, then four terms of the asymptotic series), so the values agree
    with PyTorch's to the last bits; that formula is good to about 1e-9 relative, PyTorch's
    own accuracy for trigamma. float32 is computed in float32, as PyTorch's kernel (near a
    pole the float32 sin(pi x) decides the value: 1.29e15 at x = -1, not 6.6e32)."""
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(_f64)
    with np.errstate(all="ignore"):
        refl = x < 0.5
        s = np.sin(x.dtype.type(math.pi) * x)
        res = np.where(refl, -(math.pi * math.pi) / (s * s), 0.0)
        v = np.where(refl, 1.0 - x, x)
        for _ in range(6):
            res = res + 1.0 / (v * v)
            v = v + 1.0
        ixx = 1.0 / (v * v)
        res = res + (1 + 1 / (2 * v) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / v
        return np.where(refl, -res, res)


def polygamma(n, x):
    """The n-th derivative of digamma: (-1)^(n+1) n! zeta(n+1, x) for n >= 2 (PyTorch's
    definition), trigamma for n = 1 (float32 in float32), digamma for n = 0."""
    if n == 1:
        return trigamma(x)
    x = np.asarray(x, _f64)
    if n == 0:
        return digamma(x)
    z = zeta(np.full(x.shape, n + 1.0), x)
    with np.errstate(invalid="ignore", over="ignore"):
        out = (-1.0) ** (n + 1) * math.factorial(n) * z
    # x -> +inf: PyTorch gives 0 for n == 1, nan beyond (its zeta of inf)
    return np.where(x == math.inf, 0.0 if n == 1 else math.nan, out)


# ------------------------------------------------------------ inverse erf
def _halley(x, f, df_sign, steps=3):
    # f(x) = residual, f'(x) = df_sign * 2/sqrt(pi) exp(-x^2), f'' = -2x f'
    for _ in range(steps):
        r = f(x)
        d = df_sign * (2 / _SQRT_PI) * np.exp(-x * x)
        with np.errstate(all="ignore"):
            step = r / d
            x = x - step / (1 + x * step)
    return x


def _start(logz):
    # Winitzki's approximation of erfinv from ln(1 - y^2) = logz (good to ~2e-3)
    a = 0.147
    t = 2 / (math.pi * a) + logz / 2
    return np.sqrt(np.sqrt(t * t - logz / a) - t)


def _erfcinv_small(z):
    """x >= 0 with erfc(x) = z, for 0 < z <= 0.5 (Halley on erfc: no lost digits)."""
    with np.errstate(divide="ignore"):
        x = _start(np.log(z) + np.log(2 - z))
    return _halley(x, lambda v: erfc(v) - z, -1.0)


def erfinv(y):
    y = np.asarray(y, _f64)
    a = np.abs(y)
    small = a <= 0.5
    ys = np.where(small, y, 0.0)
    with np.errstate(divide="ignore"):
        x0 = np.sign(ys) * _start(np.log1p(-ys * ys))
    xs = _halley(x0, lambda v: erf(v) - ys, 1.0)
    z = np.where(small | (a >= 1), 0.5, 1.0 - a)          # exact for a in [0.5, 1]
    xt = np.sign(y) * _erfcinv_small(z)
    out = np.where(small, xs, xt)
    out = np.where(a == 1, np.sign(y) * math.inf, np.where(y == 0, y, out))   # -0.0 stays
    return np.where((a > 1) | np.isnan(y), math.nan, out)


def erfcinv(z):
    """Inverse of erfc on [0, 2]: inf at 0, -inf at 2, nan outside."""
    z = np.asarray(z, _f64)
    lo = (z > 0) & (z <= 0.5)
    hi = (z >= 1.5) & (z < 2)
    mid = ~(lo | hi)
    zl = np.where(lo, z, np.where(hi, 2.0 - z, 0.5))      # 2 - z exact for z in [1.5, 2]
    tail = _erfcinv_small(zl)
    out = np.where(lo, tail, np.where(hi, -tail, erfinv(np.where(mid, 1.0 - z, 0.0))))
    out = np.where(z == 0, math.inf, np.where(z == 2, -math.inf, out))
    return np.where((z < 0) | (z > 2) | np.isnan(z), math.nan, out)


def ndtri(p):
    """Inverse of the standard normal CDF: -sqrt(2) erfcinv(2p)."""
    return -math.sqrt(2.0) * erfcinv(2.0 * np.asarray(p, _f64))


# ----------------------------------------------------------- erfcx, log_ndtr
def _exp_square(x):
    # exp(x^2) with x^2 split exactly: x = h + l, h with 24 bits so h*h is exact
    h = x.astype(np.float32).astype(_f64)
    lo = x - h
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(h * h) * np.exp(lo * (2 * h + lo))


def erfcx(x):
    x = np.asarray(x, _f64)
    big = x >= 10
    xb = np.where(big, x, 10.0)
    inv = 1.0 / (2 * xb * xb)
    s, t = np.ones_like(xb), np.ones_like(xb)
    for k in range(1, 40):
        t = -t * (2 * k - 1) * inv
        s = s + t
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        asym = s / (xb * _SQRT_PI)
        xs = np.where(big, 0.0, x)
        direct = _exp_square(xs) * erfc(xs)
    out = np.where(big, asym, direct)
    out = np.where(x == math.inf, 0.0, out)
    return np.where(x == -math.inf, math.inf, out)


def log_ndtr(x):
    """log of the standard normal CDF, accurate in both tails."""
    x = np.asarray(x, _f64)
    t = x / math.sqrt(2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.log(0.5 * erfcx(np.where(x < -1, -t, 0.0))) - t * t
        mid = np.log(0.5 * erfc(-t))
        right = np.log1p(-0.5 * erfc(t))
    return np.where(x < -1, left, np.where(x > 0, right, mid))


# --------------------------------------------------------- Bessel I0, I1
def _bessel_i(x, order, scaled):
    """I_order(x) (order 0 or 1), times exp(-|x|) when ``scaled``."""
    x = np.asarray(x, _f64)
    a = np.abs(x)
    small = a < 20
    xs = np.where(small, a, 0.0)
    q = xs * xs / 4
    t = np.ones_like(xs) if order == 0 else xs / 2
    s = t.copy()
    for k in range(1, 70):
        t = t * q / (k * (k + order))
        s = s + t
    with np.errstate(over="ignore", invalid="ignore"):
        ser = s * np.exp(-xs) if scaled else s
        xb = np.where(small, 20.0, a)
        mu = 4.0 * order * order
        term, acc = np.ones_like(xb), np.ones_like(xb)
        for k in range(1, 40):
            term = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * xb)
            acc = acc + term
        # not sqrt(2 pi x): 2 pi x overflows at x ~ 1.8e308 (the scaled form gave 0 there,
        # the unscaled one exp(x) * (acc / inf) = nan; PyTorch: 2.98e-155 and inf)
        asym = acc / math.sqrt(2 * math.pi) / np.sqrt(xb)
        if not scaled:
            asym = asym * np.exp(xb)
    out = np.where(small, ser, asym)
    # PyTorch: the scaled forms give 0 at +-inf, I0 and I1 themselves nan
    out = np.where(a == math.inf, 0.0 if scaled else math.nan, out)
    if order == 1:
        out = np.where(x < 0, -out, out)
    return np.where(np.isnan(x), math.nan, out)


def i0(x):
    return _bessel_i(x, 0, False)


def i0e(x):
    return _bessel_i(x, 0, True)


def i1(x):
    return _bessel_i(x, 1, False)


def i1e(x):
    return _bessel_i(x, 1, True)


# ---------------------------------------------------- incomplete gamma
def igamma(a, x):
    """Regularized lower incomplete gamma P(a, x) (PyTorch's igamma), and Q = 1 - P."""
    return _igamma(a, x)[0]


def igammac(a, x):
    return _igamma(a, x)[1]


def _igamma(a, x):
    a, x = np.broadcast_arrays(np.asarray(a, _f64), np.asarray(x, _f64))
    with np.errstate(all="ignore"):
        pref = np.exp(a * np.log(np.where(x > 0, x, 1.0)) - x - lgamma(a))
        ser = x < a + 1
        # series: P = pref/a * sum x^n / ((a+1)...(a+n))
        ap, term = a.copy(), 1.0 / np.where(a > 0, a, 1.0)
        total = term.copy()
        for _ in range(500):
            ap = ap + 1
            term = term * x / ap
            total = total + term
        p_ser = total * pref
        # continued fraction (modified Lentz) for Q
        tiny = 1e-300
        b = x + 1 - a
        c = np.full(a.shape, 1 / tiny)
        d = 1 / np.where(b == 0, tiny, b)
        h = d.copy()
        for i in range(1, 500):
            an = -i * (i - a)
            b = b + 2
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1 / d
            h = h * d * c
        q_cf = pref * h
    p = np.where(ser, p_ser, 1 - q_cf)
    q = np.where(ser, 1 - p_ser, q_cf)
    # PyTorch's boundary cascade (calc_igamma/calc_igammac in ATen's Math.h, after SciPy),
    # tested in this order, so a nan ``a`` with x == 0 or x == inf still has a value
    nan, inf_a, inf_x = math.nan, np.isinf(a), np.isinf(x)
    cases = [(x < 0) | (a < 0), a == 0, x == 0, inf_a, inf_x]
    p = np.select(cases, [nan, np.where(x > 0, 1.0, nan), 0.0, np.where(inf_x, nan, 0.0),
                          1.0], p)
    q = np.select(cases, [nan, np.where(x > 0, 0.0, nan), 1.0, np.where(inf_x, nan, 1.0),
                          0.0], q)
    return p, q
