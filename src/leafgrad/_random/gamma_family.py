"""PyTorch's CPU kernels for ``_standard_gamma``, ``_sample_dirichlet`` and ``binomial``, and
the implicit-reparameterisation gradients ``_standard_gamma_grad`` / ``_dirichlet_grad``.

Samplers follow aten/src/ATen/native/Distributions.h (``sample_gamma``: Marsaglia-Tsang with
the alpha < 1 boost; ``sample_binomial``: BTRS for count*p >= 10, else geometric inversion) and
Distributions.cpp (``_s_gamma_cpu``, ``_s_dirichlet_cpu``, ``_s_binomial_cpu``): one element at
a time in memory order, uniforms from ``uniform_real_distribution<double>`` (53 bits of
random64) and normals from ``normal_distribution<double>`` (Box-Muller with the generator's
cached second sample), so the same seed gives PyTorch's numbers. Arithmetic the kernel does in
``scalar_t`` (float32 for float32 tensors) is done in float32 here too.

Gradients: ``standard_gamma_grad_one`` (Taylor series for x < 0.8, Rice saddle point for
alpha > 8, else a bivariate rational approximation) and ``dirichlet_grad_one`` of
Distributions.h, evaluated in float64 (PyTorch's accscalar_t on the CPU) and rounded once.
"""
import math

import numpy as np

from . import generator as R

__all__ = ["standard_gamma", "sample_dirichlet", "binomial", "standard_gamma_grad",
           "dirichlet_grad"]


def _uniform(g):
    return float(R.uniform01(g, 1, np.float64)[0])


def _normal(g):
    return float(R.normal_scalar(g, 1)[0])


_THIRD_F = np.float32(1.0) / np.float32(3.0)


def _gamma_one(alpha, g, t):
    """``sample_gamma<scalar_t, double>``; ``t`` is scalar_t's NumPy type."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0:
            return 0.0
        scale *= math.pow(1 - _uniform(g), float(t(1.0) / t(alpha)))
        alpha = float(t(alpha) + t(1.0))
    d = float(t(alpha) - t(_THIRD_F))      # 1.0f / 3.0f: a float constant, also for double
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _normal(g)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - _uniform(g)
        xx = x * x
        if u < 1.0 - float(np.float32(0.0331)) * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(alpha, g):
    """Standard Gamma(alpha) draws (NumPy array of alpha's dtype, alpha's shape), each at
    least the dtype's smallest normal number (PyTorch's clamp)."""
    t = alpha.dtype.type
    flat = np.ascontiguousarray(alpha).reshape(-1)
    tiny = float(np.finfo(alpha.dtype).tiny)
    vals = [max(tiny, float(t(_gamma_one(float(a), g, t)))) for a in flat.tolist()]
    return np.array(vals, dtype=alpha.dtype).reshape(alpha.shape)


def sample_dirichlet(alpha, g):
    """``_s_dirichlet_cpu``: float64 gamma draws, normalised over the last dim, clamped to
    [tiny, nextafter(1, 0)] of alpha's dtype."""
    flat = np.ascontiguousarray(alpha).reshape(-1)
    tiny = float(np.finfo(np.float64).tiny)
    gam = np.array([max(tiny, _gamma_one(float(a), g, np.float64)) for a in flat.tolist()],
                   dtype=np.float64).reshape(alpha.shape)
    ret = (gam / gam.sum(-1, keepdims=True)).astype(alpha.dtype)
    one = alpha.dtype.type(1.0)
    return np.clip(ret, np.finfo(alpha.dtype).tiny, np.nextafter(one, alpha.dtype.type(0)))


_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(count, prob, g, t):
    geom_sum, num_geom = 0.0, 0
    logprob = float(np.log1p(-t(prob)))
    while True:
        geom = math.ceil(math.log(_uniform(g)) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(count, prob, g, t):
    count, prob = t(count), t(prob)
    stddev = float(np.sqrt(count * prob * (t(1) - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (t(1) - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float((count + t(1)) * prob))
    n = float(count)
    while True:
        U = _uniform(g) - 0.5
        V = _uniform(g)
        us = 0.5 - abs(U)
        k = float(t(math.floor((2 * a / us + b) * U + c)))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and V <= v_r:
            return k
        V = math.log(V * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
                 + (n + 1) * math.log((n - m + 1) / float(t(n - k + 1)))
                 + (k + 0.5) * math.log(r * float(t(n - k + 1)) / float(t(k + 1)))
                 + _stirling_tail(m) + _stirling_tail(n - m)
                 - _stirling_tail(k) - _stirling_tail(n - k))
        if V <= upper:
            return k


def _binomial_one(count, prob, g, t):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(t(count) * t(prob)) >= 10.0:
            return _btrs(count, prob, g, t)
        return _inversion(count, prob, g, t)
    if prob > 0.5:
        q = float(t(1.0) - t(prob))
        if float(t(count) * t(q)) >= 10.0:
            return float(t(count) - t(_btrs(count, q, g, t)))
        return float(t(count) - t(_inversion(count, q, g, t)))
    return math.nan


def binomial(count, prob, g):
    """``torch.binomial(count, prob)``: counts of count's dtype (same shape)."""
    t = count.dtype.type
    c = np.ascontiguousarray(count).reshape(-1).tolist()
    p = np.ascontiguousarray(np.broadcast_to(prob, count.shape)).reshape(-1).tolist()
    vals = [_binomial_one(a, b, g, t) for a, b in zip(c, p)]
    return np.array(vals, dtype=count.dtype).reshape(count.shape)


# ------------------------------------------------------------------ gradients
_PSI_10 = 2.25175258906672110764
_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def _digamma(x):
    """``digamma_one<double, double>`` (Cephes) for x > 0."""
    if x == 0:
        return math.inf
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + _PSI_10
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        p = 0.0
        for coef in _PSI_A:
            p = p * z + coef
        y = z * p
    return result + math.log(x) - (0.5 / x) - y


_COEF_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
             1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
             0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
             0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def _gamma_grad_small_x(alpha, x):
    numer, denom = 1.0, alpha
    series1, series2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer *= -x / i
        denom += 1
        series1 += numer / denom
        series2 += numer / (denom * denom)
    pow_x_alpha = math.pow(x, alpha)
    pdf = math.pow(x, alpha - 1) * math.exp(-x)
    cdf = pow_x_alpha * series1
    cdf_alpha = (math.log(x) - _digamma(alpha)) * cdf - pow_x_alpha * series2
    result = -cdf_alpha / pdf
    return 0.0 if math.isnan(result) else result


def _gamma_grad_one(alpha, x):
    """d x / d alpha of a standard Gamma(alpha) draw x (``standard_gamma_grad_one``)."""
    if x < 0.8:
        return _gamma_grad_small_x(alpha, x)
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x)
                       - 65 * x * x / alpha + alpha * (107 + 3600 * x))
            return numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = math.pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = (math.log(x / alpha) * term23
                 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u, v = math.log(x / alpha), math.log(alpha)
    cv = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    return math.exp(p / q)


def standard_gamma_grad(alpha, x):
    """``_standard_gamma_grad(alpha, x)`` elementwise (arrays of one shape and dtype)."""
    a, s = np.broadcast_arrays(alpha, x)
    vals = [_gamma_grad_one(float(p), float(q)) for p, q in zip(a.reshape(-1).tolist(),
                                                                  s.reshape(-1).tolist())]
    return np.array(vals, dtype=alpha.dtype).reshape(a.shape)


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _digamma(alpha) - _digamma(alpha + beta) - math.log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    result = x * math.pow(1 - x, -beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta):
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    result = -math.pow(1 - x, 1 - beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:
        bb = beta * beta
        poly = 47 * x * bb * bb + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * bb * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * bb + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (math.sqrt(2 * alpha / beta) * math.pow(total, 1.5) * axbx * axbx)
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = math.pow(beta * math.log(beta / (total * (1 - x)))
                     + alpha * math.log(alpha / (total * x)), -1.5)
    return stirling * prefactor * (term1 + term2 * (term3 + (term4 if x < mean else -term4)))


_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]]).tolist()


def _dirichlet_grad_one(x, alpha, total):
    """``dirichlet_grad_one``: -(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x)."""
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(1 - x, beta, alpha)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, beta)
    u = math.log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    pow_u, pow_a = (1, u, u * u), (1, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            c0, c1 = _C[0][i][j], _C[1][i][j]
            p += ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
            q += ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
    approx = x * (_digamma(total) - _digamma(alpha)) / beta
    return p / q * approx


def dirichlet_grad(x, alpha, total):
    """``_dirichlet_grad(x, alpha, total)`` elementwise (arrays of one shape), in float64
    throughout (PyTorch rounds some float32 intermediates: agreement to float32 accuracy)."""
    xs, a, s = np.broadcast_arrays(x, alpha, total)
    vals = [_dirichlet_grad_one(p, q, r) for p, q, r in zip(
        xs.reshape(-1).tolist(), a.reshape(-1).tolist(), s.reshape(-1).tolist())]
    return np.array(vals, dtype=x.dtype).reshape(xs.shape)
