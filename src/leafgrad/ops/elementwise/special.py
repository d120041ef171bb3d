"""Special functions and their derivatives: lgamma, digamma, polygamma, erfc, erfinv,
logit, sinc, the Bessel I family, erfcx, ndtri, log_ndtr, entr, ... (one-input ops).

Declared through the elementwise family's factories (``_unary``), so ``torch.X``,
``Tensor.X``, ``Tensor.X_``, ``out=`` and the docs row follow from each declaration.
The kernels are NumPy code in ``ops/elementwise/_special_kernels.py`` (computed in float64, returned in
the input's dtype; integer and bool inputs give the default float dtype, as PyTorch).
Every derivative is PyTorch's ``tools/autograd/derivatives.yaml`` row, written with
leafgrad ops so it differentiates again. Two-input ops: ``ops/elementwise/special_binary.py``.
"""
import math

import numpy as np

from ..._tensor.tensor import Tensor
from . import _special_kernels as K
from .._dispatch import record
from .._registry import defop, node
from .._select import select
from . import _sign_np, _unary, _zero
from .pointwise import where

_SQRT_PI = math.sqrt(math.pi)


def _k(f):
    """A float64 kernel on an array of the input's float dtype, result in that dtype."""
    def fwd(x):
        return np.asarray(f(x)).astype(x.dtype, copy=False)
    return fwd


def _u(name, kernel, grad_fn, vjp, save="x", **kw):
    kw.setdefault("family", "special")
    return _unary(name, _k(kernel), grad_fn, vjp, save=save, **kw)


lgamma = _u("lgamma", K.lgamma, "LgammaBackward0", lambda g, x, r: g * digamma(x),
            doc="log|Gamma(x)| elementwise; +inf at 0, -1, -2, ... . d/dx = digamma(x) "
                "(derivatives.yaml, lgamma). Kernel: the C library's lgamma.")
digamma = _u("digamma", K.digamma, "DigammaBackward0", lambda g, x, r: g * polygamma(1, x),
             doc="psi(x) = d/dx lgamma(x); -inf at +0, +inf at -0, nan at negative integers "
                 "(PyTorch's values). d/dx = polygamma(1, x) (derivatives.yaml, digamma).")
erfc = _u("erfc", K.erfc, "ErfcBackward0",
          lambda g, x, r: g * (-2 / _SQRT_PI) * (-(x * x)).exp(),
          doc="1 - erf(x), accurate where erf(x) is near 1. d/dx = -2/sqrt(pi) exp(-x^2) "
              "(derivatives.yaml, erfc).")
erfinv = _u("erfinv", K.erfinv, "ErfinvBackward0",
            lambda g, x, r: g * (0.5 * _SQRT_PI) * erfinv(x).pow(2).exp(),
            doc="Inverse of erf on [-1, 1] (+-inf at +-1, nan outside). "
                "d/dx = sqrt(pi)/2 exp(erfinv(x)^2) (derivatives.yaml, erfinv: it saves "
                "the input, not the result, so changing the result in place is allowed).")


def _sinc_grad(g, x, r):
    # PyTorch masks where pi x^2 is 0, underflow included (FunctionsManual, sinc_backward)
    px = x * math.pi
    sq = x * x * math.pi
    return where(sq == 0, 0.0, g * (px * px.cos() - px.sin()) / sq)


sinc = _u("sinc", np.sinc, "SincBackward0", _sinc_grad,
          doc="sin(pi x)/(pi x), 1 at 0. d/dx = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where "
              "pi x^2 is 0, underflow included (derivatives.yaml, sinc_backward).")
deg2rad = _u("deg2rad", lambda x: x * (math.pi / 180), "Deg2RadBackward0",
             lambda g, x, r: g * (math.pi / 180), save=None,
             doc="Degrees to radians, x * pi/180 (integers give the default float dtype). "
                 "d/dx = pi/180.")
rad2deg = _u("rad2deg", lambda x: x * (180 / math.pi), "Rad2DegBackward0",
             lambda g, x, r: g * (180 / math.pi), save=None,
             doc="Radians to degrees, x * 180/pi. d/dx = 180/pi.")
acosh = _u("acosh", np.arccosh, "AcoshBackward0", lambda g, x, r: g * (x * x - 1).rsqrt(),
           aliases=("arccosh",),
           doc="Inverse hyperbolic cosine (nan below 1). d/dx = 1/sqrt(x^2 - 1) "
               "(derivatives.yaml, acosh).")
def _sgn_grad(g, x, r):
    # derivatives.yaml sgn_backward, complex: (g - sgn^2 conj(g)) / (2|x|), 0 at x == 0
    if not x.is_complex():
        return _zero(g, x, r)
    a = x.abs()
    s = x / where(a == 0, 1.0, a)
    return where(a == 0, 0.0, (g - s * s * g.conj()) / (2 * a))


sgn = _u("sgn", _sign_np, "SgnBackward0", _sgn_grad, save="x", floating=False,
         doc="sign(x) for real tensors (-1, 0, 1; 0 at nan; dtype kept, bool stays bool), "
             "x/|x| for complex (0 at 0). Gradient 0 for real inputs, (g - sgn^2 conj(g)) / "
             "(2|x|) for complex (derivatives.yaml, sgn_backward).")
i0 = _u("i0", K.i0, "I0Backward0", lambda g, x, r: g * special_i1(x),
        doc="Modified Bessel function of the first kind, order 0. d/dx = i1(x) "
            "(derivatives.yaml, i0).")


def _entr_np(x):
    with np.errstate(all="ignore"):
        r = -x * np.log(x)
    r = np.where(x == 0, 0.0, r)
    return np.where(x < 0, -math.inf, r)


# torch.special-only ops (no torch.X / Tensor.X): declared without those forms; the
# namespace leafgrad.special picks them up (its names are in special/__init__.py)
_SPECIAL = dict(function=False, method=False, inplace=False)

special_entr = _u("special_entr", _entr_np, "SpecialEntrBackward0",
                  lambda g, x, r: g * -(1 + x.log()), **_SPECIAL,
                  doc="Entropy term -x ln x (0 at 0, -inf for x < 0). d/dx = -(1 + ln x) "
                      "(derivatives.yaml, special_entr).")
special_erfcx = _u("special_erfcx", K.erfcx, "SpecialErfcxBackward0",
                   lambda g, x, r: g * (2 * x * special_erfcx(x) - 2 / _SQRT_PI), **_SPECIAL,
                   doc="Scaled complementary error function exp(x^2) erfc(x), without "
                       "overflow for large x. d/dx = 2x erfcx(x) - 2/sqrt(pi) "
                       "(derivatives.yaml, special_erfcx).")
special_ndtri = _u("special_ndtri", K.ndtri, "SpecialNdtriBackward0",
                   lambda g, x, r: g * math.sqrt(2 * math.pi) * (r * r * 0.5).exp(),
                   save="result", **_SPECIAL,
                   doc="Inverse of the standard normal CDF (+-inf at 0 and 1). "
                       "d/dp = sqrt(2 pi) exp(ndtri(p)^2 / 2) (derivatives.yaml, special_ndtri).")
special_log_ndtr = _u("special_log_ndtr", K.log_ndtr, "SpecialLogNdtrBackward0",
                      lambda g, x, r: g * (-(x * x) * 0.5 - special_log_ndtr(x)).exp()
                      / math.sqrt(2 * math.pi), **_SPECIAL,
                      doc="log of the standard normal CDF, accurate in both tails. "
                          "d/dx = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi) "
                          "(derivatives.yaml, special_log_ndtr).")
special_i0e = _u("special_i0e", K.i0e, "SpecialI0EBackward0",
                 lambda g, x, r: g * (special_i1e(x) - x.sgn() * special_i0e(x)), **_SPECIAL,
                 doc="exp(-|x|) i0(x). d/dx = i1e(x) - sgn(x) i0e(x) "
                     "(derivatives.yaml, special_i0e).")
special_i1 = _u("special_i1", K.i1, "SpecialI1Backward0",
                lambda g, x, r: g * where(x == 0, 0.5, i0(x) - special_i1(x) / x), **_SPECIAL,
                doc="Modified Bessel function of the first kind, order 1. "
                    "d/dx = i0(x) - i1(x)/x, 1/2 at 0 (derivatives.yaml, i1_backward).")
special_i1e = _u("special_i1e", K.i1e, "SpecialI1EBackward0",
                 lambda g, x, r: g * where(x == 0, 0.5, special_i0e(x) - special_i1e(x) * (
                     x.sgn() + x.reciprocal())), **_SPECIAL,
                 doc="exp(-|x|) i1(x). d/dx = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0 "
                     "(derivatives.yaml, i1e_backward).")


def special_ndtr(input):
    """Standard normal CDF (1 + erf(x / sqrt 2)) / 2: PyTorch computes it this way (so it
    gives 0 below about -8.3 in float64); d/dx = exp(-x^2/2)/sqrt(2 pi) through erf."""
    from .binary import _add_scalar, _mul_scalar
    from . import erf
    return _mul_scalar(_add_scalar(1, erf(_mul_scalar(input, math.sqrt(0.5)))), 0.5)


defop("special_ndtr", special_ndtr, out=True, **_SPECIAL)


# ------------------------------------------------------------ polygamma
def _polygamma_backward(ctx, g):
    (x,) = ctx._checked_saved
    return (g * polygamma(ctx.args + 1, x),)


PolygammaBackward0 = node("PolygammaBackward0", _polygamma_backward, saves=True)


@defop("polygamma", method=lambda self, n: polygamma(n, self), inplace=True, out=True,
       family="special")
def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma, elementwise (``n`` a non-negative int).
    ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` for n >= 1; digamma for n = 0.
    d/dx = polygamma(n + 1, x) (derivatives.yaml, polygamma).

    Raises:
        RuntimeError: n < 0 (as PyTorch). TypeError: ``input`` not a tensor.
    """
    if out is not None:
        from .._out import out_call
        return out_call("polygamma", polygamma, (n, input), {}, out)
    if not isinstance(input, Tensor):
        raise TypeError("polygamma(): argument 'input' (position 2) must be Tensor, not %s"
                        % type(input).__name__)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError("polygamma(): argument 'n' (position 1) must be int, not %s. Fix: "
                        "pass the order as a Python int" % type(n).__name__)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n. Fix: n >= 0 (n = 0 "
                           "is digamma)")
    x = _float_of(input)
    with np.errstate(all="ignore"):
        r = K.polygamma(int(n), x).astype(x.dtype, copy=False)
    return record(PolygammaBackward0, r, (input,), saved=(input,), args=int(n))


def _float_of(t):
    from ..._core import dtype as _dtype
    x = t._data
    return x if x.dtype.kind == "f" else x.astype(_dtype.get_default_dtype().np)


# ------------------------------------------------------------ mvlgamma
def _mvlgamma_backward(ctx, g):
    (x,) = ctx._checked_saved
    p = ctx.args
    total = digamma(x)
    for i in range(1, p):
        total = total + digamma(x - i / 2)
    return (g * total,)


MvlgammaBackward0 = node("MvlgammaBackward0", _mvlgamma_backward, saves=True)


@defop("mvlgamma", method=lambda self, p: mvlgamma(self, p), inplace=True, out=True,
       family="special")
def mvlgamma(input, p, *, out=None):
    """Multivariate log-gamma of dimension ``p``:
    p(p-1)/4 ln(pi) + sum_{i<p} lgamma(x - i/2).
    d/dx = sum_{i<p} digamma(x - i/2) (derivatives.yaml, mvlgamma_backward).

    Raises:
        RuntimeError: p < 1 (as PyTorch). NotImplementedError: an integer input.
    """
    if out is not None:
        from .._out import out_call
        return out_call("mvlgamma", mvlgamma, (input, p), {}, out)
    if not isinstance(input, Tensor):
        raise TypeError("mvlgamma(): argument 'input' (position 1) must be Tensor, not %s"
                        % type(input).__name__)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1. Fix: pass p >= 1")
    x = input._data
    if x.dtype.kind != "f":
        raise RuntimeError("mvlgamma is not implemented for %s tensors. Fix: convert first, "
                           "e.g. x.float()" % _type_name(x.dtype))
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        r = p * (p - 1) / 4 * math.log(math.pi) + sum(K.lgamma(x64 - i / 2) for i in range(p))
    return record(MvlgammaBackward0, np.asarray(r).astype(x.dtype), (input,), saved=(input,),
                  args=int(p))


def _type_name(dt):
    from ..._core import errors as _errors
    return _errors.type_name(dt)


# ---------------------------------------------------------------- logit
def _logit_backward(ctx, g):
    (x,) = ctx._checked_saved
    eps = ctx.args
    d = g / (x * (1 - x))
    # PyTorch's differentiable form (infinitely_differentiable_logit_backward; its
    # vectorized kernel agrees): a nan input is outside [eps, 1 - eps], gradient 0
    if eps is None:
        return (where((x >= 0) & (x <= 1), d, math.nan),)
    return (where((x >= eps) & (x <= 1 - eps), d, 0.0),)


LogitBackward0 = node("LogitBackward0", _logit_backward, saves=True)


@defop("logit", inplace=True, out=True, family="special")
def logit(input, eps=None, *, out=None):
    """log(x / (1 - x)); with ``eps``, x is first clamped to [eps, 1 - eps].
    d/dx = 1/(x(1-x)): nan outside [0, 1] without eps, 0 outside [eps, 1-eps] with it
    (derivatives.yaml, logit_backward)."""
    if out is not None:
        from .._out import out_call
        return out_call("logit", logit, (input, eps), {}, out)
    if not isinstance(input, Tensor):
        raise TypeError("logit(): argument 'input' (position 1) must be Tensor, not %s"
                        % type(input).__name__)
    x = _float_of(input)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps).astype(x.dtype, copy=False)
    with np.errstate(all="ignore"):
        r = np.log(x / (1 - x))
    return record(LogitBackward0, r, (input,), saved=(input,),
                  args=None if eps is None else float(eps))


# -------------------------------------------------------------- positive
@defop("positive", inplace=False, family="special")
def positive(input):
    """``+x``: returns ``input`` itself (as PyTorch). Raises RuntimeError for bool."""
    if not isinstance(input, Tensor):
        raise TypeError("positive(): argument 'input' (position 1) must be Tensor, not %s"
                        % type(input).__name__)
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported. Fix: convert "
                           "first, e.g. x.long()")
    return input


# ----------------------------------------------------------------- frexp
def _frexp_backward(ctx, g):
    (e,) = ctx.args
    return (g * Tensor._make_plain(np.exp2(-e.astype(np.float64)).astype(g._data.dtype)),)


FrexpBackward0 = node("FrexpBackward0", _frexp_backward, saves=False)


@defop("frexp", out=True, family="special")
def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1);
    exponent int32 (PyTorch's return_types.frexp). d mantissa/dx = 2**-exponent.

    Raises:
        RuntimeError: an integer or bool input (as PyTorch).
    """
    from ..reduce.reduction import _return_type
    from .._dispatch import record_multi
    if not isinstance(input, Tensor):
        raise TypeError("frexp(): argument 'input' (position 1) must be Tensor, not %s"
                        % type(input).__name__)
    x = input._data
    if x.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes. Fix: convert "
                           "first, e.g. x.float()")
    m, e = np.frexp(x)
    e = e.astype(np.int32)
    res = record_multi(FrexpBackward0, (m, e), (input,), args=(e,),
                       differentiable=(True, False))
    return _return_type("frexp", ("mantissa", "exponent"))(*res)


_FACTORY_HOMES = ("leafgrad.ops.elementwise.unary", "leafgrad.ops.elementwise.binary")


def _name_ops():
    # the factory's ops are defined in unary.py / binary.py: they belong to this family
    for n, obj in list(globals().items()):
        if callable(obj) and not n.startswith("_") and not isinstance(obj, type) and \
                getattr(obj, "__module__", "") in _FACTORY_HOMES and n != "where":
            obj.__module__ = __name__


_name_ops()
