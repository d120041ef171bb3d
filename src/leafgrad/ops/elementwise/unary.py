"""Unary elementwise ops (exp, log, sin, tanh, sigmoid, relu, erf, ...) and their
vector-Jacobian products.

One declaration per op through the family's factory ``_unary`` (PyTorch's name, the
NumPy forward, the grad_fn name PyTorch gives it, one formula in the style of
PyTorch's ``derivatives.yaml``: ``g`` is the incoming gradient, ``x`` the saved input,
``r`` the saved output). Formulas are written with leafgrad ops, so they can
themselves be differentiated (``create_graph=True``). Binary ops: ``ops/elementwise/binary.py``;
``ops/elementwise/__init__.py`` gathers both.
"""
import math

import numpy as np

from ..._core import dtype as _dtype, errors as _errors
from ..._tensor.tensor import Tensor
from .._dispatch import own_recorders
from .._trace import tape as _tape
from .._select import select
from ..inplace import arithmetic as IP
from .._out import out_call
from .._registry import OPS as _OPS, add_form as _registry_add_form, defop
from .._registry import node
from .binary import _BOOL, sigmoid_backward, tanh_backward
from .binary import _sigmoid_backward_np, _tanh_backward_np

from ..._core.quiet import _IGNORE, _reset, _set


# ------------------------------------------------ method forms that differ
def _neg_method(self):
    """``-x`` / ``x.neg()``: refused for bool tensors, as PyTorch."""
    if self._data.dtype is _BOOL:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return neg(self)



# ---------------------------------------------------------------- unary ops
def _unary(name, fwd, node_name, vjp, save="x", floating=True, doc="", np_ok=False,
           np_vjp=None, **forms):
    """Declare the one-input op ``name`` (PyTorch's name; None for a private helper):
    ``fwd`` on ndarrays, ``node_name`` its grad_fn, ``vjp(g, x, result)`` its rule.
    ``save``: 'x' (input), 'result' (output) or None.
    ``np_ok``: the formula uses only arithmetic operators, so the engine may run
    it on ndarrays when the backward pass is not recorded. ``np_vjp``: the
    formula for ndarrays, when ``vjp`` calls ops that need tensors. ``forms``:
    the declaration's forms (see ``ops._registry``; default torch.X, Tensor.X and
    the in-place Tensor.X_)."""
    if np_vjp is not None:
        np_ok = True
    else:
        np_vjp = vjp
    if save == "x":
        def backward(ctx, g):
            (x,) = ctx._checked_saved
            return (vjp(g, x, None),)
    elif save == "result":
        def backward(ctx, g):
            return (vjp(g, None, ctx.result),)
    else:
        def backward(ctx, g):
            return (vjp(g, None, None),)
    cls = node(node_name, backward, saves=save is not None)
    recs = []       # [record1, record2]: this op's own copies, made on its first call
    bool_rule = _BOOL_RULES.get(node_name)
    if np_ok:   # the formula uses only arithmetic: it also runs on plain arrays
        if save == "x":
            def np_backward(ctx, g):
                (x,) = ctx._checked_saved
                return (np_vjp(g, x._data, None),)
        elif save == "result":
            def np_backward(ctx, g):
                return (np_vjp(g, None, ctx.result_array()),)
        else:
            def np_backward(ctx, g):
                return (np_vjp(g, None, None),)
        cls.np_backward = np_backward

    def make(method):
        # method: Tensor.X, which refuses out= as PyTorch's methods do (checked only
        # where out is given, so neither form pays for it)
        def op(input, *, out=None):
            if out is not None:
                if method:
                    raise TypeError(_errors.method_out(op.__name__))
                return out_call(op.__name__, op, (input,), {}, out)
            if not isinstance(input, Tensor):
                raise _errors.not_a_tensor(op.__name__, "input", 1, input)
            x = input._data
            if floating:
                if x.dtype.kind not in "fc":
                    x = x.astype(_dtype.get_default_dtype().np)
            elif x.dtype is _BOOL and bool_rule is not None:
                x = bool_rule(x)        # PyTorch's own rule for bool tensors (or its error)
            # every op is quiet: inf * 0, inf - inf, overflow are silent in PyTorch
            tok = _set(_IGNORE)
            try:
                out = fwd(x)
            except TypeError:
                if x.dtype.kind != "c":
                    raise
                raise NotImplementedError(_errors.no_complex_kernel(
                    "%s_cpu" % op.__name__, x.dtype)) from None
            finally:
                _reset(tok)
            if not recs:
                recs.extend(own_recorders(cls))
            res = recs[0](cls, out, input, save_x, save_r)
            if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
                _tape[0].op(fwd if x is input._data else None, (x,), res)
            return res
        op.__doc__ = doc
        op.node = cls
        op.refuses_out = method
        return op
    save_x, save_r = (True if save == "x" else None), save == "result"
    op = make(False)
    if name is not None:
        forms.setdefault("inplace", True)
        if forms.get("method", True) is True:
            forms["method"] = m = make(True)
            m.__name__ = m.__qualname__ = name
        defop(name, op, out=True, **forms)
    return op




def _not_for_bool(kernel):
    def rule(x):
        raise NotImplementedError("\"%s\" not implemented for 'Bool': convert the mask first, "
                                  "e.g. x.float() or x.long()" % kernel)
    return rule


def _relu_bool(x):
    raise RuntimeError("Boolean inputs not supported for relu: convert with x.float() first")


# What PyTorch does with bool tensors for non-floating unary ops (NumPy's bool
# rules differ): raise, or compute in another dtype. Keyed by node name.
_BOOL_RULES = {
    "AbsBackward0": _not_for_bool("abs_cpu"),
    "FloorBackward0": _not_for_bool("floor_vml_cpu"),
    "CeilBackward0": _not_for_bool("ceil_vml_cpu"),
    "RoundBackward0": _not_for_bool("round_vml_cpu"),
    "TruncBackward0": _not_for_bool("trunc_vml_cpu"),
    "ReluBackward0": _relu_bool,
    "PowBackward0": lambda x: x.astype(np.int64),     # square(bool) is int64
}


def _unary_np(*args, **kwargs):
    return _unary(*args, np_ok=True, **kwargs)


def _zero(g, x, r):
    # zeros, not g * 0: a nan or inf g still gives 0 (PyTorch's zeros_like(grad))
    return Tensor._make_plain(np.zeros_like(g._data))


neg = _unary_np("neg", np.negative, "NegBackward0", lambda g, x, r: -g, save=None, floating=False,
             doc="-x elementwise. d/dx = -1.", method=_neg_method, inplace=IP.neg_,
             aliases=("negative",))


def _rounded_from_float64(f):
    """``f`` for float32 input computed in float64 and rounded once (other dtypes: ``f``).

    For log1p and expm1 this is closer to PyTorch's float32 kernels than NumPy's float32
    loop (91-99.9% of elements bit-identical instead of 90-99%, never more than 1 ulp
    off) at the same speed: NumPy's float32 log1p/expm1 are C-library loops too. exp,
    log, sin, cos and tanh keep NumPy's float32 SIMD loops, their float64 loops cost
    1.75-8x. Counts and times: docs/benchmarks.md, "Float32 transcendental kernels"."""
    def kernel(x):
        if x.dtype == np.float32:
            return f(x.astype(np.float64)).astype(np.float32)
        return f(x)
    return kernel


exp = _unary_np("exp", np.exp, "ExpBackward0", lambda g, x, r: g * r, save="result",
                doc="e**x. d/dx = exp(x) (reuses the result).", inplace=IP.exp_)
exp2 = _unary("exp2", np.exp2, "Exp2Backward0", lambda g, x, r: g * r * np.log(2.0), save="result",
              doc="2**x. d/dx = 2**x ln 2.")
expm1 = _unary_np("expm1", _rounded_from_float64(np.expm1), "Expm1Backward0",
                  lambda g, x, r: g * (r + 1), save="result",
                  doc="exp(x) - 1, accurate near 0. d/dx = result + 1.")
log = _unary_np("log", np.log, "LogBackward0", lambda g, x, r: g / x,
                doc="Natural log; log(0) = -inf and log(<0) = nan silently, as PyTorch. "
                    "d/dx = 1/x.", inplace=IP.log_)
log2 = _unary("log2", np.log2, "Log2Backward0", lambda g, x, r: g / (x * np.log(2.0)),
              doc="Base-2 log. d/dx = 1/(x ln 2).")
log10 = _unary("log10", np.log10, "Log10Backward0", lambda g, x, r: g / (x * np.log(10.0)),
               doc="Base-10 log. d/dx = 1/(x ln 10).")
log1p = _unary_np("log1p", _rounded_from_float64(np.log1p), "Log1PBackward0",
                  lambda g, x, r: g / (x + 1),
                  doc="log(1 + x), accurate near 0. d/dx = 1/(1+x).")
sqrt = _unary_np("sqrt", np.sqrt, "SqrtBackward0", lambda g, x, r: g / (2 * r), save="result",
                 doc="Square root. d/dx = 1/(2 sqrt(x)) (inf at 0, as PyTorch).", inplace=IP.sqrt_)
rsqrt = _unary_np("rsqrt", lambda x: 1 / np.sqrt(x), "RsqrtBackward0", lambda g, x,
                  r: -0.5 * g * r ** 3,
               save="result", doc="1/sqrt(x). d/dx = -1/2 x^(-3/2).")
reciprocal = _unary_np("reciprocal", lambda x: 1 / x, "ReciprocalBackward0", lambda g, x,
                       r: -g * r * r,
                    save="result", doc="1/x. d/dx = -1/x^2.")
abs = _unary("abs", np.abs, "AbsBackward0", lambda g, x, r: g * x.sgn(), floating=False,
             doc="|x|. d/dx = sign(x): 0 at 0 and at nan, as PyTorch.", inplace=IP.abs_,
             aliases=("absolute",))
def _sign_np(x):
    if x.dtype is _BOOL:
        return x.copy()
    s = np.sign(x)
    # PyTorch's sign(nan) is 0 (NumPy's is nan)
    return np.nan_to_num(s, nan=0.0) if x.dtype.kind == "f" else s


def _sign_real_np(x):
    if x.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    return _sign_np(x)


sign = _unary("sign", _sign_real_np, "SignBackward0", _zero, save=None, floating=False,
              doc="Sign of x (-1, 0, 1; 0 at nan, as PyTorch). Gradient 0 everywhere.")
floor = _unary("floor", np.floor, "FloorBackward0", _zero, save=None, floating=False,
               doc="Floor; gradient 0.")
ceil = _unary("ceil", np.ceil, "CeilBackward0", _zero, save=None, floating=False,
              doc="Ceil; gradient 0.")
round_ = _unary("round", np.round, "RoundBackward0", _zero, save=None, floating=False,
                doc="Round half to even (as PyTorch); gradient 0.")
RoundBackward1 = node("RoundBackward1", lambda ctx, g: (_zero(g, None, None),), saves=False)


def _round_decimals_np(x, decimals):
    # PyTorch's round_decimals_kernel: nearbyint(x * 10^d) / 10^d (d < 0: nearbyint(x / 10^-d)
    # * 10^-d), in the dtype's opmath type (float32 for float16): ties to even at the halves
    # of that product, not of the decimal number
    if x.dtype.kind != "f":
        raise NotImplementedError('"round_cpu" not implemented for \'%s\'. Fix: convert first, '
                                  'e.g. x.float()' % _errors.type_name(x.dtype))
    work = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    a, p = x.astype(work), work.type(10.0 ** (decimals if decimals >= 0 else -decimals))
    with np.errstate(all="ignore"):
        r = np.rint(a / p) * p if decimals < 0 else np.rint(a * p) / p
    return r.astype(x.dtype)


def _with_decimals(plain, method):
    """``round`` with PyTorch's ``decimals=`` (RoundBackward1); without it, ``plain``."""
    def round(input, *, decimals=None, out=None):
        if decimals is None:
            return plain(input, out=out) if out is not None else plain(input)
        if type(decimals) is not int and not isinstance(decimals, np.integer):
            raise TypeError("round() received an invalid combination of arguments - got "
                            "(Tensor, decimals=%s). Fix: decimals is an int"
                            % type(decimals).__name__)
        if out is not None:
            if method:
                raise TypeError(_errors.method_out("round"))
            return out_call("round", round, (input,), {"decimals": decimals}, out)
        if not isinstance(input, Tensor):
            raise _errors.not_a_tensor("round", "input", 1, input)
        res = _round_decimals_np(input._data, int(decimals))
        return own_recorders(RoundBackward1)[0](RoundBackward1, res, input, None, False)
    round.__doc__ = plain.__doc__ + " ``decimals=d``: to d decimal places (PyTorch's formula)."
    round.node = plain.node
    round.refuses_out = method
    return round


_round_def = _OPS["round"]
round_ = _with_decimals(round_, False)
_registry_add_form("round", function=round_, method=_with_decimals(_round_def.method, True))
trunc = _unary("trunc", np.trunc, "TruncBackward0", _zero, save=None, floating=False,
               doc="Truncate; gradient 0.", aliases=("fix",))
frac = _unary_np("frac", lambda x: x - np.trunc(x), "FracBackward0", lambda g, x, r: g, save=None,
              doc="x - trunc(x). d/dx = 1.")
sin = _unary("sin", np.sin, "SinBackward0", lambda g, x, r: g * x.cos(), doc="Sine. d/dx = cos x.")
cos = _unary("cos", np.cos, "CosBackward0", lambda g, x, r: -g * x.sin(),
             doc="Cosine. d/dx = -sin x.")
tan = _unary_np("tan", np.tan, "TanBackward0", lambda g, x, r: g * (1 + r * r), save="result",
             doc="Tangent. d/dx = 1 + tan^2 x.")
asin = _unary("asin", np.arcsin, "AsinBackward0", lambda g, x, r: g * (1 - x * x).rsqrt(),
              doc="Arcsine. d/dx = 1/sqrt(1-x^2).", aliases=("arcsin",))
acos = _unary("acos", np.arccos, "AcosBackward0", lambda g, x, r: -g * (1 - x * x).rsqrt(),
              doc="Arccosine. d/dx = -1/sqrt(1-x^2).", aliases=("arccos",))
atan = _unary_np("atan", np.arctan, "AtanBackward0", lambda g, x, r: g / (1 + x * x),
              doc="Arctangent. d/dx = 1/(1+x^2).", aliases=("arctan",))
sinh = _unary("sinh", np.sinh, "SinhBackward0", lambda g, x, r: g * x.cosh(),
              doc="Hyperbolic sine. d/dx = cosh x.")
cosh = _unary("cosh", np.cosh, "CoshBackward0", lambda g, x, r: g * x.sinh(),
              doc="Hyperbolic cosine. d/dx = sinh x.")
tanh = _unary("tanh", np.tanh, "TanhBackward0", lambda g, x, r: tanh_backward(g, r), save="result",
              np_vjp=lambda g, x, r: _tanh_backward_np(g, r),
              doc="Hyperbolic tangent. d/dx = 1 - tanh^2 x (reuses the result).", inplace=IP.tanh_)
asinh = _unary("asinh", np.arcsinh, "AsinhBackward0", lambda g, x, r: g * (x * x + 1).rsqrt(),
               doc="Inverse hyperbolic sine. d/dx = 1/sqrt(x^2+1).", aliases=("arcsinh",))
atanh = _unary_np("atanh", np.arctanh, "AtanhBackward0", lambda g, x, r: g / (1 - x * x),
                  doc="Inverse hyperbolic tangent. d/dx = 1/(1-x^2).", aliases=("arctanh",))


def _sigmoid_np(x):
    # 1/(1+exp(-x)) in the input's precision, as PyTorch computes it (bit for
    # bit); exp overflow gives 1/inf = 0, which is the right limit
    return 1 / (1 + np.exp(-x))


sigmoid = _unary("sigmoid", _sigmoid_np, "SigmoidBackward0", lambda g, x, r: sigmoid_backward(g,
                 r),
                 save="result", np_vjp=lambda g, x, r: _sigmoid_backward_np(g, r),
                 doc="Logistic sigmoid 1/(1+exp(-x)), stable for large |x|. d/dx = s(1-s).",
                 inplace=IP.sigmoid_)
# the result is >= 0 or nan, so "result <= 0" is "result != 0" (one pass less)
def _relu_np(x):
    if x.dtype.kind == "c":
        raise NotImplementedError(_CLAMP_COMPLEX)
    # PyTorch's clamp_min(x, 0) is "x < 0 ? 0 : x": -0.0 stays -0.0 (np.maximum gives +0.0)
    return np.where(x < 0, x.dtype.type(0), x)


_CLAMP_COMPLEX = "clamp is not supported for complex types. Fix: clamp .abs() or .real"
relu = _unary_np("relu", _relu_np, "ReluBackward0",
                 lambda g, x, r: select(r != 0, g, deps=(r,), name="ThresholdBackwardBackward0"),
                 save="result", floating=False,
                 doc="max(x, 0) (nan stays nan). d/dx = 0 where the result is <= 0, else 1, so 1 "
                     "at nan (PyTorch's threshold_backward: it selects, so an inf upstream "
                     "gradient gives 0 where x < 0).", inplace=IP.relu_)
square = _unary_np("square", np.square, "PowBackward0", lambda g, x, r: g * 2 * x, floating=False,
                doc="x**2. d/dx = 2x.")


def _erf_np(x):
    # Abramowitz & Stegun 7.1.26 is too coarse; use math.erf (exact) elementwise.
    import math
    f = np.frompyfunc(math.erf, 1, 1)
    return np.asarray(f(x), dtype=np.float64).astype(x.dtype)   # 0-d: f gives a float


erf = _unary("erf", _erf_np, "ErfBackward0",
             lambda g, x, r: g * (2 / np.sqrt(np.pi)) * (-(x * x)).exp(),
             doc="Error function. d/dx = 2/sqrt(pi) exp(-x^2).")


def _name_ops():
    # generated ops are all called "op"; give them their public names (errors, help())
    for name, obj in list(globals().items()):
        if callable(obj) and getattr(obj, "__name__", None) == "op" and not name.startswith("_"):
            obj.__name__ = obj.__qualname__ = name.rstrip("_")


_name_ops()
IP._bind_ops(neg=neg, exp=exp, log=log, sqrt=sqrt, abs=abs, relu=relu, sigmoid=sigmoid,
              tanh=tanh)   # the in-place forms run these
