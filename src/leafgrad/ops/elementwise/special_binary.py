"""Two-input elementwise ops of the special family: xlogy, xlog1py, hypot, copysign,
fmax, fmin, heaviside, nextafter, ldexp, logaddexp2, gcd, lcm, igamma, igammac, zeta,
float_power, lerp.

Declared through the elementwise family's ``_binary`` factory where the op fits it;
``numbers`` is PyTorch's Python-number rule for each (checked by test_op_forms).
Derivatives: PyTorch's ``tools/autograd/derivatives.yaml`` rows, with leafgrad ops.
"""
import math

import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor
from . import _special_kernels as K
from .._dispatch import record
from .._registry import defop, node
from .._select import select
from . import _binary, _zero
from .pointwise import where

_LN2 = math.log(2.0)


def _no_int(kernel, f):
    """PyTorch has no integer kernel for these ops (NumPy would compute in float64)."""
    def fwd(a, b):
        kind = np.result_type(a, b)
        if kind.kind not in "fc":
            raise NotImplementedError("\"%s\" not implemented for '%s'. Fix: convert first, "
                                      "e.g. x.float()" % (kernel, _errors.type_name(kind)))
        return f(a, b)
    return fwd


def _in_dtype(f):
    """A float64 kernel f(a, b), returned in the operands' promoted dtype."""
    def fwd(a, b):
        dt = np.result_type(a, b)
        return np.asarray(f(a, b)).astype(dt, copy=False)
    return fwd


def _b(name, fwd, grad_fn, da, db, **kw):
    kw.setdefault("family", "special")
    return _binary(name, fwd, grad_fn, da, db, **kw)


def _x_times(log):
    # 0 where x == 0 unless y is nan (derivatives.yaml's xlogy, xlog1py); numbers are
    # weak: they take the tensor's dtype
    def fwd(a, b):
        dt = np.result_type(a, b)
        a, b = np.asarray(a, dt), np.asarray(b, dt)
        return np.where((a == 0) & ~np.isnan(b), dt.type(0), a * log(b))
    return fwd


_xlogy_np, _xlog1py_np = _x_times(np.log), _x_times(np.log1p)


xlogy = _b("xlogy", _xlogy_np, "XlogyBackward0",
           lambda g, a, b: where((a == 0) & (b <= 0), 0.0, xlogy(g, b)),
           lambda g, a, b: g * a / b, floating=True,
           doc="x * log(y), 0 where x == 0 (unless y is nan). d/dx = log(y) (0 where x == 0 "
               "and y <= 0), d/dy = x / y (derivatives.yaml, xlogy).")
special_xlog1py = _b("special_xlog1py", _xlog1py_np, "SpecialXlog1PyBackward0",
                     lambda g, a, b: where((a == 0) & (b <= -1), 0.0, special_xlog1py(g, b)),
                     lambda g, a, b: g * a / (b + 1), floating=True, function=False,
                     method=False, inplace=False,
                     doc="x * log1p(y), 0 where x == 0 (unless y is nan). d/dx = log1p(y), "
                         "d/dy = x / (1 + y) (derivatives.yaml, special_xlog1py).")


def _hypot_grad(g, a, b, which):
    return g * which / hypot(a, b)


hypot = _b("hypot", _no_int("hypot_cpu", np.hypot), "HypotBackward0",
           lambda g, a, b: _hypot_grad(g, a, b, a), lambda g, a, b: _hypot_grad(g, a, b, b),
           numbers="none",
           doc="sqrt(a^2 + b^2) without overflow. d/da = a / hypot, d/db = b / hypot "
               "(derivatives.yaml, hypot).")


def _copysign_da(g, a, b):
    # copysign_tensor_self_backward: g * (result / self), 0 where self == 0, with ops
    # (nan at an inf self, as PyTorch; the second order goes through result and the
    # division, as there)
    ratio = (copysign(a, b) / a).masked_fill(a == 0, 0.0)
    return g * ratio


copysign = _b("copysign", np.copysign, "CopysignBackward0", _copysign_da,
              lambda g, a, b: _zero(g, None, None), floating=True, numbers="other",
              scalar_name="CopysignBackward1",
              doc="|a| with the sign of b (the sign bit: -0.0 counts as negative). "
                  "d/da = result / a (0 at a == 0; nan at inf), d/db = 0 (derivatives.yaml, "
                  "copysign).")


def _nan_ignoring(greater):
    """PyTorch's fmax / fmin kernel: b where a is nan or b is strictly beyond a, else a, so
    of equal zeros the first is kept (fmax(0.0, -0.0) is 0.0, fmax(-0.0, 0.0) -0.0; NumPy's
    np.fmax returns the other one)."""
    np_fn = np.fmax if greater else np.fmin

    def f(a, b):
        kind = np.result_type(a, b)
        if kind.kind != "f":
            return np_fn(a, b)
        with np.errstate(invalid="ignore"):
            take_b = np.isnan(a) | ((b > a) if greater else (b < a))
        return np.where(take_b, b, a).astype(kind, copy=False)
    return f


def _pick(g, a, b, ge):
    # derivatives.yaml, fmax: self gets grad where (self >= other) | isnan(other); other
    # gets it elsewhere (ties go to self)
    ad = a._data if isinstance(a, Tensor) else a
    bd = b._data if isinstance(b, Tensor) else b
    with np.errstate(invalid="ignore"):
        m = (ad >= bd) if ge else (ad <= bd)
    return m | np.isnan(bd)


fmax = _b("fmax", _nan_ignoring(True), "FmaxBackward0",
          lambda g, a, b: select(_pick(g, a, b, True), g),
          lambda g, a, b: select(~_pick(g, a, b, True), g), numbers="none", inplace=False,
          doc="Elementwise max ignoring nan (nan only where both are). Gradient to the "
              "larger input, ties to the first (derivatives.yaml, fmax).")
fmin = _b("fmin", _nan_ignoring(False), "FminBackward0",
          lambda g, a, b: select(_pick(g, a, b, False), g),
          lambda g, a, b: select(~_pick(g, a, b, False), g), numbers="none", inplace=False,
          doc="Elementwise min ignoring nan (nan only where both are). Gradient to the "
              "smaller input, ties to the first (derivatives.yaml, fmin).")


def _heaviside_np(a, b):
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(invalid="ignore"):
        return np.where(a == 0, b, (a > 0).astype(a.dtype))


def _refused(message):
    def rule(g, a, b):
        raise RuntimeError(message)
    return rule


_HEAVISIDE = "derivative for aten::heaviside is not implemented"
_heaviside = _b(None, _heaviside_np, "NotImplemented", _refused(_HEAVISIDE),
                _refused(_HEAVISIDE), numbers="none", save=False)


def heaviside(input, values, *, out=None):
    """0 where x < 0 (and at nan), 1 where x > 0, ``values`` where x == 0.

    Raises:
        RuntimeError: input and values of different dtypes (as PyTorch).
    Not differentiable: backward raises RuntimeError, as PyTorch.
    """
    if out is not None:
        from .._out import out_call
        return out_call("heaviside", heaviside, (input, values), {}, out)
    for arg, v, pos in (("input", input, 1), ("values", values, 2)):
        if not isinstance(v, Tensor):
            raise _errors.not_tensor("heaviside", arg, pos, v)
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes. Fix: convert values to input's dtype, e.g. "
                           "values.to(input.dtype)")
    return _heaviside(input, values)


heaviside.node = _heaviside.node
defop("heaviside", heaviside, numbers="none", inplace=True, out=True, family="special")
nextafter = _b("nextafter", _no_int("nextafter_cpu", np.nextafter), "NextafterBackward0",
               lambda g, a, b: g * (a != b), lambda g, a, b: _zero(g, None, None),
               numbers="none",
               doc="The next float after a towards b. Gradient to a 1 where a != b (nan "
                   "included) and 0 where a == b (the result is then b), 0 to b (PyTorch's).")


def _ldexp_np(a, b):
    dt = np.result_type(a, b)
    if dt.kind not in "fc":
        from ..._core import dtype as _dtype
        dt = _dtype.get_default_dtype().np
    return (a * np.exp2(np.asarray(b, np.float64))).astype(dt, copy=False)


def _ldexp_da(g, a, b):
    # PyTorch's grad * pow(2, other): in other's dtype, so an integer exponent gives an
    # integer power (0 for a negative one, wrapped for a large one), as PyTorch computes it
    return g * (2.0 ** b if b.is_floating_point() else 2 ** b)


ldexp = _b("ldexp", _ldexp_np, "LdexpBackward0", _ldexp_da,
           # the result itself (full size, as PyTorch's formula reads it): under a broadcast
           # exponent the double backward sums a 2**b ln 2 per element (inf - inf = nan),
           # not the sum of a times 2**b
           lambda g, a, b: g * ldexp(a, b) * _LN2, numbers="none",
           doc="a * 2**b (integers give the default float dtype). d/da = 2**b, "
               "d/db = result ln 2 (derivatives.yaml, ldexp).")
logaddexp2 = _b("logaddexp2", _no_int("logaddexp2_cpu", np.logaddexp2), "Logaddexp2Backward0",
                lambda g, a, b: g / (1 + 2.0 ** (b - a)),
                lambda g, a, b: g / (1 + 2.0 ** (a - b)), numbers="none", inplace=False,
                doc="log2(2**a + 2**b) without overflow. d/da = 1/(1 + 2**(b-a)) "
                    "(derivatives.yaml, logaddexp2).")


def _int_only(kernel, f):
    def fwd(a, b):
        for v in (a, b):
            dt = np.asarray(v).dtype
            if dt.kind not in "iu":
                raise NotImplementedError("\"%s\" not implemented for '%s'. Fix: use integer "
                                          "tensors, e.g. x.long()"
                                          % (kernel, _errors.type_name(dt)))
        return f(a, b)
    return fwd


def _lcm_np(a, b):
    # PyTorch: lcm is non-negative (NumPy's too), 0 when either is 0
    return np.lcm(a, b)


gcd = _b("gcd", _int_only("gcd_cpu", np.gcd), "GcdBackward0", None, None, numbers="none",
         save=False, doc="Greatest common divisor of integer tensors (non-negative). No "
                         "gradient (integer results).")
lcm = _b("lcm", _int_only("lcm_cpu", _lcm_np), "LcmBackward0", None, None, numbers="none",
         save=False, doc="Least common multiple of integer tensors (non-negative). No "
                         "gradient (integer results).")


def _igamma_dx(g, a, x, sign):
    # d/dx P(a, x) = exp((a - 1) ln x - x - lgamma(a))  (derivatives.yaml, igamma)
    from .special import lgamma
    return g * sign * ((a - 1) * x.log() - x - lgamma(a)).exp()


def _no_derivative(what):
    def rule(g, a, b):
        raise NotImplementedError("the derivative for '%s' is not implemented. (PyTorch has "
                                  "none either: detach this input, e.g. a.detach())" % what)
    return rule


igamma = _b("igamma", _no_int("igamma_cpu", _in_dtype(K.igamma)), "IgammaBackward0",
            _no_derivative("igamma: input"), lambda g, a, x: _igamma_dx(g, a, x, 1.0),
            numbers="none",
            doc="Regularized lower incomplete gamma P(a, x). d/dx = x^(a-1) e^-x / Gamma(a); "
                "no derivative for a (NotImplementedError, as PyTorch).")
igammac = _b("igammac", _no_int("igammac_cpu", _in_dtype(K.igammac)), "IgammacBackward0",
             _no_derivative("igammac: input"), lambda g, a, x: _igamma_dx(g, a, x, -1.0),
             numbers="none",
             doc="Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x). "
                 "d/dx = -x^(a-1) e^-x / Gamma(a); no derivative for a.")


def _zeta_np(s, q):
    dt = np.result_type(s, q)
    if dt.kind not in "fc":
        from ..._core import dtype as _dtype
        dt = _dtype.get_default_dtype().np
    return K.zeta(s, q).astype(dt, copy=False)


special_zeta = _b("special_zeta", _zeta_np, "SpecialZetaBackward0", _no_derivative("zeta"),
                  lambda g, s, q: g * -s * special_zeta(s + 1.0, q), function=False,
                  method=False, inplace=False,
                  doc="Hurwitz zeta sum_k (k + q)^-s. d/dq = -s zeta(s + 1, q); no "
                      "derivative for s (derivatives.yaml, special_zeta).")


# ------------------------------------------------------------ float_power
def _double(v):
    if isinstance(v, Tensor):
        return v.double()
    return v


def _float_power(input, exponent):
    from . import pow
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): argument 'input' must be Tensor, not %s"
                        % type(input).__name__)
    if not isinstance(input, Tensor):
        input = float(input)
    elif not isinstance(exponent, Tensor):
        exponent = float(exponent)
    return pow(_double(input), _double(exponent))


def _float_power_(self, exponent):
    if self.dtype.__str__() != "torch.float64":
        raise RuntimeError("the base given to float_power_ has dtype %s but the operation's "
                           "result requires dtype Double. Fix: call it on a float64 tensor "
                           "(x = x.double()) or use torch.float_power(x, e)"
                           % _errors.type_name(self._data.dtype))
    return self.pow_(_double(exponent))


def float_power(input, exponent, *, out=None):
    """input ** exponent computed in float64 (the result is always float64), as PyTorch
    (``pow`` of both operands converted to double). Gradients as ``pow``."""
    if out is not None:
        from .._out import out_call
        return out_call("float_power", float_power, (input, exponent), {}, out)
    return _float_power(input, exponent)


defop("float_power", float_power, numbers="both", inplace=_float_power_, out=True,
      family="special")


# ------------------------------------------------------------------ lerp
def _lerp_backward(ctx, g):
    start, end, w = ctx._checked_saved
    na = ctx.needs_input_grad
    if ctx.args:        # a number weight: LerpBackward0, two edges
        return (g * (1 - w) if na[0] else None), (g * w if na[1] else None)
    return ((g * (1 - w) if na[0] else None), (g * w if na[1] else None),
            (g * (end - start) if na[2] else None))


LerpBackward0 = node("LerpBackward0", _lerp_backward, saves=True)
LerpBackward1 = node("LerpBackward1", _lerp_backward, saves=True)


def _lerp_np(a, b, w):
    # PyTorch's kernel: a + w (b - a) for |w| < 0.5, else b - (b - a)(1 - w) (exact at w = 1)
    with np.errstate(all="ignore"):
        d = b - a
        return np.where(np.abs(w) < 0.5, a + w * d, b - d * (1 - w)).astype(
            np.result_type(a, b), copy=False)


def lerp(input, end, weight, *, out=None):
    """input + weight * (end - input), elementwise with broadcasting; ``weight`` a number
    or a tensor. Same dtypes required (RuntimeError otherwise, as PyTorch).
    d/dinput = 1 - weight, d/dend = weight, d/dweight = end - input (derivatives.yaml)."""
    if out is not None:
        from .._out import out_call
        return out_call("lerp", lerp, (input, end, weight), {}, out)
    for arg, v, pos in (("input", input, 1), ("end", end, 2)):
        if not isinstance(v, Tensor):
            raise TypeError("lerp(): argument '%s' (position %d) must be Tensor, not %s. Fix: "
                            "pass a tensor, e.g. torch.tensor(%r)"
                            % (arg, pos, type(v).__name__, v))
    a, b = input._data, end._data
    if a.dtype.kind not in "fc":
        raise NotImplementedError("\"lerp_kernel_scalar\" not implemented for '%s'. Fix: "
                                  "convert first, e.g. x.float()" % _errors.type_name(a.dtype))
    if b.dtype != a.dtype:
        raise RuntimeError("expected dtype %s for `end` but got dtype %s. Fix: convert end, "
                           "e.g. end.to(input.dtype)" % (_tn(a.dtype), _tn(b.dtype)))
    scalar = not isinstance(weight, Tensor)
    if not scalar and weight._data.dtype != a.dtype:
        raise RuntimeError("expected dtype %s for `weight` but got dtype %s. Fix: convert "
                           "weight, e.g. weight.to(input.dtype)"
                           % (_tn(a.dtype), _tn(weight._data.dtype)))
    wd = np.asarray(weight, a.dtype) if scalar else weight._data
    try:
        r = _lerp_np(a, b, wd)
    except ValueError:
        from .._dispatch import broadcast_error
        raise broadcast_error(a, b) from None
    if scalar:
        return record(LerpBackward0, r, (input, end), saved=(input, end, float(weight)),
                      args=True)
    return record(LerpBackward1, r, (input, end, weight), saved=(input, end, weight),
                  args=False)


def _tn(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(
        str(dt), str(dt))


defop("lerp", lerp, inplace=True, out=True, family="special")


def _name_ops():
    # the factories' ops are defined in unary.py / binary.py: they belong to this family
    for n, obj in list(globals().items()):
        if callable(obj) and not n.startswith("_") and not isinstance(obj, type) and \
                getattr(obj, "__module__", "") in ("leafgrad.ops.elementwise.unary", "leafgrad.ops.elementwise.binary"):
            obj.__module__ = __name__


_name_ops()
