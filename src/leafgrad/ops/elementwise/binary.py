"""Binary elementwise ops (add, sub, mul, div, pow, maximum, atan2, fmod, ...) and
their vector-Jacobian products.

One declaration per op through the family's factory ``_binary`` (PyTorch's name, the
NumPy forward, the grad_fn name, one formula per input in the style of PyTorch's
``derivatives.yaml``: ``g`` the incoming gradient, ``a``/``b`` the saved inputs), with
PyTorch's rule for Python-number operands (``numbers=``). Formulas are written with
leafgrad ops, so they differentiate again; the engine sums broadcast gradients back
to each input's shape. Unary ops: ``ops/elementwise/unary.py``; ``ops/elementwise/__init__.py`` gathers both.
"""
import math

import numpy as np

from ..._tensor.tensor import Tensor
from ..._core import errors as _errors, scalars as _scalars
from ..._core.fma import fma32, fma64
from .._dispatch import _fw_level, binary_operands, broadcast_error, own_recorders, record
from .._select import select
from ..inplace import arithmetic as IP
from .._out import out_call
from .._registry import defop, no_derivative, node
from .._trace import tape as _tape
from .._trace import tape as _tape
from .pointwise import where

from ..._core.quiet import quiet as _quiet
from ..._core.quiet import _IGNORE, _reset, _set

_BOOL = np.dtype(np.bool_)
_F16 = np.dtype(np.float16)
_ndarray = np.ndarray


# ------------------------------------------------ method forms that differ
# torch.add/sub/div with alpha= / rounding_mode= (ops/elementwise/arithmetic_keywords.py):
# that module builds them on this one's ops and binds them here at import (_bind_keywords)
_keyword_add = _keyword_sub = _keyword_div = None


def _bind_keywords(add, sub, div):
    global _keyword_add, _keyword_sub, _keyword_div
    _keyword_add, _keyword_sub, _keyword_div = add, sub, div


def _add_alpha(input, other, *, alpha=1):
    """``Tensor.add``: ``input + alpha * other`` (one definition with torch.add: ops/elementwise/arithmetic_keywords.py)."""
    return _keyword_add(input, other, alpha=alpha)


def _sub_alpha(input, other, *, alpha=1):
    """``Tensor.sub``: ``input - alpha * other`` (ops/elementwise/arithmetic_keywords.py)."""
    return _keyword_sub(input, other, alpha=alpha)


def _div_mode(input, other, *, rounding_mode=None):
    """``Tensor.div``: true division or rounded by ``rounding_mode`` (ops/elementwise/arithmetic_keywords.py)."""
    return _keyword_div(input, other, rounding_mode=rounding_mode)



# --------------------------------------------------------------- binary ops
def _binary(name, fwd, node_name, da, db, save=True, floating=False, doc="", np_ok=False,
            a_for="ab", b_for="ab", scalar_overload=False, numbers="both", bool_pair=None,
            scalar_name=None, opmath_scalar=False, number_first=None, **forms):
    """Declare the two-input op ``name`` (None for a private helper); ``da``/``db`` give
    d(out)/d(a) and d(out)/d(b) times g.

    ``numbers``: which operands may be Python numbers ('both', 'other', 'none'), as PyTorch.
    ``bool_pair``: PyTorch has no bool-by-bool kernel (its name, for the error).
    ``a_for``/``b_for``: whose gradient needs the saved a (b): a tensor is saved only when
    a gradient that uses it will be computed, as PyTorch does (``y * 2`` keeps only 2).
    ``scalar_overload``: with a number on one side the node has one edge, the
    tensor's (PyTorch's Tensor-Scalar overloads: ``x ** 2``, ``2 ** x``, ``1 - x``),
    and keeps the number in ``args``. ``scalar_name``: that one-edge node under another
    name than ``node_name`` (``fmod(x, 2)`` is FmodBackward0, ``fmod(x, y)`` FmodBackward1);
    ``number_first``: the one for a number first (``5 % x``: PyTorch has no derivative).
    ``opmath_scalar``: float16 by one value in float32, as PyTorch's CPU mul/div do."""
    if scalar_name is not None:
        scalar_overload = True
    one = _scalar_node(scalar_name or node_name, da, db, save, np_ok) if scalar_overload \
        else None
    backward, np_backward = _backward_rules(da, db, save, np_ok)
    cls = node(node_name, backward, saves=save)
    recs = []       # [record1, record2]: this op's own copies, made on its first call
    a_ra, a_rb, b_ra, b_rb = "a" in a_for, "b" in a_for, "a" in b_for, "b" in b_for
    if np_backward is not None:
        cls.np_backward = np_backward

    def make(on_ndarray, method=False):
        # on_ndarray: None for the function; for a Tensor operator, what an
        # ndarray operand gets (see leafgrad._api.methods), checked inline here
        # because a wrapper would add a Python call to every operator.
        # method: Tensor.X, which refuses out= as PyTorch's methods do
        def op(input, other, *, out=None):
            if on_ndarray is not None and other.__class__ is _ndarray:
                return on_ndarray(input, other)
            if out is not None:
                if method:
                    raise TypeError(_errors.method_out(op.__name__))
                return out_call(op.__name__, op, (input, other), {}, out)
            if checks:      # PyTorch's argument rules, for the ops that have them
                _check_operands(op.__name__, input, other, numbers, bool_pair)
            # inline: tensor and tensor of one dtype, tensor and Python float (the
            # common cases, which need no promotion); the rest: binary_operands
            ta = None
            if isinstance(input, Tensor):
                xa = input._data
                if isinstance(other, Tensor):
                    xb = other._data
                    if xa.dtype is xb.dtype and (not floating or xa.dtype.kind in "fc"):
                        ta, tb = input, other
                elif other.__class__ is float and xa.dtype.kind in "fc":
                    ta, tb, xb = input, None, other
            if ta is None:
                ta, tb, xa, xb = binary_operands(input, other, floating)
            tok = _set(_IGNORE)
            try:
                if opmath_scalar and xa.__class__ is _ndarray and xa.dtype is _F16 and (
                        tb is None or tb._data.size == 1):
                    out = _scalars.by_scalar_in_float32(fwd, xa, other if tb is None else tb._data)
                else:
                    out = fwd(xa, xb)
            except ValueError:
                raise broadcast_error(xa, xb) from None
            except TypeError:
                _refuse_complex(name, xa, xb)   # NumPy has no complex kernel: PyTorch's class
                raise
            finally:
                _reset(tok)
            if not recs:
                recs.extend(own_recorders(cls, one))
            if one is not None and (ta is None or tb is None):
                t, args = (ta, (xb, True)) if tb is None else (tb, (xa, False))
                first = ta is None and number_first is not None
                res = recs[0](number_first if first else one, out, t,
                              None if first else save or None, False, args)
            elif not save:
                res = recs[1](cls, out, ta, tb)
            elif _fw_level[0] is not None:      # forward AD's tangent may need either operand
                res = recs[1](cls, out, ta, tb, (input if ta is None else ta,
                                                 other if tb is None else tb))
            else:
                ra = ta is not None and ta._requires_grad
                rb = tb is not None and tb._requires_grad
                sa = input if ta is None else (ta if (ra and a_ra) or (rb and a_rb) else None)
                sb = other if tb is None else (tb if (ra and b_ra) or (rb and b_rb) else None)
                res = recs[1](cls, out, ta, tb, (sa, sb))
            if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
                _tape[0].op(None if opmath_scalar and xa.__class__ is _ndarray
                            and xa.dtype is _F16 else fwd, (xa, xb), res)
            return res
        op.__doc__ = doc
        op.node = cls
        op.refuses_out = method
        op.checks_numbers = True    # PyTorch's numbers= rule, in the wrapper above
        return op
    checks = numbers != "both" or bool_pair is not None
    op = make(None)
    op.operator = make
    if name is not None:
        forms.setdefault("inplace", True)
        if forms.get("method", True) is True:
            forms["method"] = m = make(None, True)
            m.__name__ = m.__qualname__ = name
        defop(name, op, numbers=numbers, out=True, **forms)
    return op


def _refuse_complex(name, xa, xb):
    """Raise PyTorch's NotImplementedError when a kernel's TypeError came from a complex
    operand (NumPy lacks e.g. a complex fmod); return otherwise, for the caller to re-raise."""
    if np.iscomplexobj(xa) or np.iscomplexobj(xb):
        raise NotImplementedError(_errors.no_complex_kernel(
            "%s_cpu" % name, np.result_type(xa, xb))) from None


def _backward_rules(da, db, save, np_ok):
    """The node's backward on Tensors and, with ``np_ok``, its NumPy rule on
    arrays (else None): ``da``/``db`` on the saved inputs, each only when its
    input needs a gradient."""
    if save:
        def backward(ctx, g):
            a, b = ctx._checked_saved
            na, nb = ctx.needs_input_grad
            return (da(g, a, b) if na else None), (db(g, a, b) if nb else None)
    else:
        def backward(ctx, g):
            na, nb = ctx.needs_input_grad
            return (da(g, None, None) if na else None), (db(g, None, None) if nb else None)
    if not np_ok:
        return backward, None
    if save:
        def np_backward(ctx, g):
            a, b = ctx._checked_saved
            a, b = getattr(a, "_data", a), getattr(b, "_data", b)
            na, nb = ctx.needs_input_grad
            return (da(g, a, b) if na else None), (db(g, a, b) if nb else None)
    else:
        def np_backward(ctx, g):
            na, nb = ctx.needs_input_grad
            return (da(g, None, None) if na else None), (db(g, None, None) if nb else None)
    return backward, np_backward


def _check_operands(name, input, other, numbers, bool_pair):
    """PyTorch's argument rules for a binary op: ``numbers`` 'other' (the first operand
    must be a tensor) or 'none' (both must be); ``bool_pair``: no bool-by-bool kernel."""
    if numbers != "both":
        if not isinstance(input, Tensor):
            raise _errors.not_tensor(name, "input", 1, input)
        if numbers == "none" and not isinstance(other, Tensor):
            raise _errors.not_tensor(name, "other", 2, other)
    if bool_pair is not None and _is_bool(input) and _is_bool(other):
        raise NotImplementedError("\"%s\" not implemented for 'Bool': convert the operands "
                                  "first, e.g. x.long()" % bool_pair)


def _scalar_node(node_name, da, db, save, np_ok):
    """The one-edge node of a binary op with a number on one side; args =
    (the number, whether the tensor is the first operand)."""
    def backward(ctx, g):
        t = ctx._checked_saved[0] if save else None
        num, first = ctx.args
        return (da(g, t, num) if first else db(g, num, t),)
    cls = node(node_name, backward, saves=save)
    if np_ok:
        def np_backward(ctx, g):
            t = ctx._checked_saved[0]._data if save else None
            num, first = ctx.args
            return (da(g, t, num) if first else db(g, num, t),)
        cls.np_backward = np_backward
    return cls


def _binary_np(*args, **kwargs):
    return _binary(*args, np_ok=True, **kwargs)


add = _binary_np("add", np.add, "AddBackward0", lambda g, a, b: g, lambda g, a, b: g, save=False,
              doc="a + b with broadcasting. Gradient g to both (summed to each shape).",
              method=_add_alpha, inplace=IP.add_)
_sub = _binary_np(None, np.subtract, "SubBackward0", lambda g, a, b: g, lambda g, a, b: -g,
                  save=False)
_rsub = _binary_np(None, lambda a, b: np.subtract(b, a), "RsubBackward1", lambda g, a, b: -g,
                lambda g, a, b: g, save=False, scalar_overload=True)


def _is_bool(x):
    return x is True or x is False or (isinstance(x, Tensor) and x._data.dtype is _BOOL)


def _check_bool_sub(a, b):
    if _is_bool(a) or _is_bool(b):
        if _is_bool(a) and _is_bool(b):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def sub(input, other, *, out=None):
    """a - b with broadcasting. Raises RuntimeError with a bool operand (as PyTorch)."""
    if out is not None:
        return out_call("sub", sub, (input, other), {}, out)
    if (input is True or input is False or other is True or other is False
            or getattr(input, "_data", _F32).dtype is _BOOL
            or getattr(other, "_data", _F32).dtype is _BOOL):
        _check_bool_sub(input, other)
    return _sub(input, other)


_F32 = np.zeros(0, np.float32)


def rsub(input, other):
    """other - input (``number - tensor``)."""
    if not isinstance(input, Tensor):
        raise _errors.not_tensor("rsub", "input", 1, input)
    _check_bool_sub(input, other)
    return _rsub(input, other)


sub.node, rsub.node = _sub.node, _rsub.node
defop("sub", sub, method=_sub_alpha, inplace=IP.sub_, aliases=("subtract",), numbers="both",
      out=True)
defop("rsub", rsub, method=False, numbers="other")


def _sub_operator(binary):
    """``Tensor.__sub__`` / ``__rsub__`` (self is a tensor): the bool check of
    ``sub`` inline, then the recorded op (see ``_binary``'s ``operator``)."""
    def make(on_ndarray):
        def op(input, other):
            if other.__class__ is _ndarray:
                return on_ndarray(input, other)
            if (other is True or other is False or input._data.dtype is _BOOL
                    or getattr(other, "_data", _F32).dtype is _BOOL):
                _check_bool_sub(input, other)
            return binary(input, other)
        return op
    return make


sub.operator, rsub.operator = _sub_operator(_sub), _sub_operator(_rsub)
mul = _binary_np("mul", np.multiply, "MulBackward0", lambda g, a, b: g * b, lambda g, a, b: g * a,
                 a_for="b", b_for="a", opmath_scalar=True,
              doc="a * b with broadcasting. d/da = b, d/db = a.", inplace=IP.mul_,
              aliases=("multiply",))
# a Python number times (plus) a tensor inside a composite written as PyTorch's C++ (its
# mul.Scalar / add.Scalar: MulBackward1 / AddBackward1, one edge): special_ndtr
_mul_scalar = _binary_np(None, np.multiply, "MulBackward0",
                         lambda g, a, b: _mul_scalar(g, b), lambda g, a, b: _mul_scalar(g, a),
                         save=False, scalar_name="MulBackward1")
_add_scalar = _binary_np(None, np.add, "AddBackward0", lambda g, a, b: g, lambda g, a, b: g,
                         save=False, scalar_name="AddBackward1")
# d/db is PyTorch's div_tensor_other_backward, -g ((a / b) / b): no overflow of b^2, and
# its own derivatives (second order at b = +-inf or -0) are PyTorch's
div = _binary_np("div", np.true_divide, "DivBackward0", lambda g, a, b: g / b,
              lambda g, a, b: -g * ((a / b) / b), floating=True, a_for="b", b_for="ab",
              opmath_scalar=True,
              doc="True division a / b (integers give floats). d/da = 1/b, d/db = -(a/b)/b.",
              method=_div_mode, inplace=IP.div_, aliases=("divide",))
defop("true_divide", div, inplace=IP.div_)
# The backward formulas of tanh and sigmoid as ops of their own, with their own
# derivatives (PyTorch's aten::tanh_backward / sigmoid_backward and their rows
# in derivatives.yaml): a recorded backward (create_graph=True) is one node
# instead of three, which the Hessian-vector product benchmark feels.
def _tanh_backward_np(g, r):
    # PyTorch's kernel is a * (1 - b * b), which GCC contracts into fma(-b, b, 1): the
    # same bits need the fused form (plain float32 arithmetic differs in ~30% of cases)
    if type(r) is np.ndarray or isinstance(r, np.floating):
        if r.dtype == np.float32:
            return g * fma32(-r, r, 1.0)
        if r.dtype == np.float64:
            return g * fma64(-r, r, 1.0)
    return g * (1 - r * r)


tanh_backward = _binary_np(None,
    _tanh_backward_np, "TanhBackwardBackward0",
    lambda gg, g, r: tanh_backward(gg, r),
    lambda gg, g, r: gg * (-2 * r * g),
    doc="g * (1 - r^2): the gradient of tanh given g and the output r = tanh(x), with "
        "1 - r^2 as one fused multiply-add (PyTorch's compiled kernel rounds once). "
        "d/dg = 1 - r^2, d/dr = -2 r g (PyTorch derivatives.yaml, tanh_backward).")
def _sigmoid_backward_np(g, r):
    return g * (1 - r) * r           # PyTorch's order of the products


sigmoid_backward = _binary_np(None,
    _sigmoid_backward_np, "SigmoidBackwardBackward0",
    lambda gg, g, r: sigmoid_backward(gg, r),
    lambda gg, g, r: gg * g * (1 - 2 * r),
    doc="g (1 - r) r: the gradient of sigmoid given g and the output r. "
        "d/dg = r (1 - r), d/dr = g (1 - 2r) (PyTorch derivatives.yaml, sigmoid_backward).")


def _extreme_grad(g, a, b, loses):
    # PyTorch's maximum/minimum rule: g/2 on ties, 0 where this input loses,
    # g otherwise -- also at nan, where neither side loses
    return where(loses, 0.0, where(a == b, g / 2, g))


def _no_complex(np_fn, name):
    def fwd(a, b):
        if np.iscomplexobj(a) or np.iscomplexobj(b):
            raise RuntimeError("%s not implemented for complex tensors. Fix: compare .abs() "
                               "or .real" % name)
        return np_fn(a, b)
    return fwd


maximum = _binary("maximum", _no_complex(np.maximum, "maximum"), "MaximumBackward0",
                  lambda g, a, b: _extreme_grad(g, a, b, a < b),
                  lambda g, a, b: _extreme_grad(g, a, b, b < a),
                  doc="Elementwise max; nan propagates. Gradient (PyTorch's rule): ties split "
                      "it evenly, the smaller input gets 0, both get it where either is nan.",
                      numbers="none", inplace=False)
minimum = _binary("minimum", _no_complex(np.minimum, "minimum"), "MinimumBackward0",
                  lambda g, a, b: _extreme_grad(g, a, b, a > b),
                  lambda g, a, b: _extreme_grad(g, a, b, b > a),
                  doc="Elementwise min; nan propagates. Gradient (PyTorch's rule): ties split "
                      "it evenly, the larger input gets 0, both get it where either is nan.",
                      numbers="none", inplace=False)


def _atan2_recip(a, b):
    # 1/(a^2 + b^2), with 0 where the sum is 0 (PyTorch's atan2_backward masks it)
    d = a * a + b * b
    return where(d == 0, 0.0, d.reciprocal())


atan2 = _binary("atan2", np.arctan2, "Atan2Backward0", lambda g, a, b: g * b * _atan2_recip(a, b),
                lambda g, a, b: g * -a * _atan2_recip(a, b), floating=True, numbers="none",
                aliases=("arctan2",),
                doc="atan2(a, b). d/da = b/(a^2+b^2), d/db = -a/(a^2+b^2); both 0 where "
                    "a^2+b^2 == 0 (PyTorch's atan2_backward).")


def _logaddexp_np(a, b):
    # PyTorch has no integer kernel (NumPy would compute in float64)
    kind = np.result_type(a, b)
    if kind.kind not in "fc":
        raise NotImplementedError("\"logaddexp_cpu\" not implemented for '%s'. Fix: convert "
                                  "first, e.g. x.float()" % _errors.type_name(kind))
    return np.logaddexp(a, b)


logaddexp = _binary("logaddexp", _logaddexp_np, "LogaddexpBackward0",
                    lambda g, a, b: g / (1 + (b - a).exp()),
                    lambda g, a, b: g / (1 + (a - b).exp()), numbers="none", inplace=False,
                    doc="log(exp(a) + exp(b)) elementwise, without overflow. "
                        "d/da = 1/(1 + exp(b - a)), d/db = 1/(1 + exp(a - b)) "
                        "(PyTorch derivatives.yaml, logaddexp).")


def _int_div_check(np_fn):
    # integer division by zero raises in PyTorch (NumPy silently gives 0)
    def f(a, b):
        if np.asarray(a).dtype.kind in "iub" and np.asarray(b).dtype.kind in "iub" \
                and np.any(np.asarray(b) == 0):
            raise RuntimeError("ZeroDivisionError")
        return np_fn(a, b)
    return f


def _rounded_quotient(a, b, rounding):
    # PyTorch's fmod/remainder rules: -g * a.div(b, rounding_mode=...), whose own
    # derivative is zeros_like(grad): a constant here, so a second-order gradient
    # through it is 0, never nan from differentiating a / b at b = 0 or inf; and its
    # values at inf are div's (inf // 2 is nan, 1 // -inf is -1), not floor(a / b)'s
    a, b = (x.detach() if isinstance(x, Tensor) else x for x in (a, b))
    return _div_mode(a, b, rounding_mode=rounding)


fmod = _binary("fmod", _int_div_check(np.fmod), "FmodBackward1", lambda g, a, b: g,
               lambda g, a, b: -g * _rounded_quotient(a, b, "trunc"), numbers="other",
               scalar_name="FmodBackward0",
               bool_pair="fmod_cpu", doc="C-style remainder (sign of the dividend).")
def _np_remainder(a, b):
    # ATen's float rule: fmod, then + b where it is nonzero with the sign unlike b's; a zero
    # keeps the dividend's sign (remainder(-0.0, 1.0) is -0.0; np.remainder gives +0.0)
    if np.result_type(a, b).kind != "f":
        return np.remainder(a, b)
    r = np.fmod(a, b)
    fix = (r != 0) & ((r < 0) != (np.asarray(b) < 0))
    return np.where(fix, r + b, r) if fix.any() else r


remainder = _binary("remainder", _int_div_check(_np_remainder), "RemainderBackward1",
                    lambda g, a, b: g, lambda g, a, b: -g * _rounded_quotient(a, b, "floor"),
                    scalar_name="RemainderBackward0", number_first=no_derivative("remainder"),
                    bool_pair="remainder_cpu",
                    doc="Python-style remainder (sign of the divisor).")


def _pow_db(g, a, b):
    # d/db a^b = a^b ln a; PyTorch gives 0 where a == 0 instead of nan (with b.real >= 0
    # for a complex b: pow_backward_exponent)
    b_ge0 = (b.real if b.is_complex() else b) >= 0
    if not isinstance(a, Tensor):
        # PyTorch's pow_backward_exponent with a number base: grad * where(b >= 0, 0,
        # result * log(0)) at base 0 (multiplied, as there), else grad * result * log(a),
        # nan for a negative base (math.log would raise)
        if a == 0:
            return g * where(b_ge0, 0.0, (a ** b) * -math.inf)
        return g * (a ** b) * float(np.log(np.float64(a)))
    r = a ** b
    # log of the base in the result's dtype (an integer base's own log is float32)
    log_a = (a if a.dtype == r.dtype else a.to(r.dtype)).log()
    return g * where((a == 0) & b_ge0, 0.0, r * log_a)   # multiplied, as PyTorch


def _pow_da(g, a, b):
    # d/da a^b = b a^(b-1); PyTorch gives 0 where b == 0 (even at a == 0), and multiplies
    # g by the product (b a^(b-1)): at a = 0, b = 1.8e308 that is 0, where (g b) overflows
    # and inf * 0 would be nan
    if not isinstance(b, Tensor):
        if b == 0:      # zeros_like(self), whatever g holds (PyTorch's pow_backward)
            return select(False, g)
        return g * (b * a ** (b - 1))
    return select(b != 0, g * (b * a ** (b - 1)))


def _np_pow(a, b):
    # integers to negative integer powers: NumPy refuses; PyTorch gives 0 (1 or -1 for +-1)
    xa, xb = np.asarray(a), np.asarray(b)
    if xa.dtype.kind in "iub" and xb.dtype.kind in "iu" and np.any(xb < 0):
        pos = np.power(xa, np.abs(xb))
        neg = np.where(xa == 1, 1, np.where(xa == -1, np.where(xb % 2 == 0, 1, -1), 0))
        return np.where(xb < 0, neg, pos).astype(np.result_type(a, b))   # numbers are weak
    return np.power(a, b)


def _np_pow_scalar(a, b):
    # PyTorch's pow(tensor, number) computes x ** 0.5 as sqrt and x ** -0.5 as rsqrt, so
    # (-0.) ** 0.5 is -0. and (-0.) ** -0.5 is -inf (IEEE pow gives +0. and +inf)
    xa = np.asarray(a)
    if xa.dtype.kind == "f" and np.ndim(b) == 0 and b in (0.5, -0.5) and not isinstance(
            b, (bool, np.bool_)):
        with _quiet():
            root = np.sqrt(xa)
            return root if b == 0.5 else np.asarray(1, xa.dtype) / root
    return _np_pow(a, b)


_pow0 = _binary(None, _np_pow_scalar, "PowBackward0", _pow_da, None, scalar_overload=True)
_pow1 = _binary(None, _np_pow, "PowBackward1", _pow_da, _pow_db)
_pow2 = _binary(None, _np_pow, "PowBackward2", None, _pow_db, scalar_overload=True)


def _no_bool_pair(fn, kernel):
    """PyTorch has no bool-by-bool kernel for these ops (NumPy has)."""
    def op(input, other):
        if _is_bool(input) and _is_bool(other):
            raise NotImplementedError("\"%s\" not implemented for 'Bool': convert the operands "
                                      "first, e.g. x.long()" % kernel)
        return fn(input, other)
    op.__name__ = fn.__name__
    op.__doc__ = fn.__doc__
    op.node = getattr(fn, "node", None)
    return op




def pow(input, exponent):
    """input ** exponent (tensor or number on either side).

    Integer tensors raised to negative integers raise, as in PyTorch.
    d/da = b a^(b-1); d/db = a^b ln a.
    """
    if isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            return _pow1(input, exponent)
        if input._data.dtype.kind in "iub" and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _pow0(input, exponent)
    return _pow2(input, exponent)


def _floor_divide(input, other, *, _aten="floor_divide"):
    """Floor division (``//``). Not differentiable: as in PyTorch the result of an input
    that requires grad requires grad (``grad_fn=<NotImplemented>``) and backward raises."""
    ta, tb, xa, xb = binary_operands(input, other)
    with _quiet():
        out = _int_div_check(np.floor_divide)(xa, xb)
    return record(no_derivative(_aten), np.asarray(out), (ta, tb))


def _floor_divide_(self, other):
    """``Tensor.floor_divide_``: its backward names aten::floor_divide_, as PyTorch's."""
    return IP.apply(self, "floor_divide_", lambda a, b: _floor_divide(a, b, _aten="floor_divide_"),
                    other)


def _name_ops():
    # generated ops are all called "op"; give them their public names (errors, help())
    for name, obj in list(globals().items()):
        if callable(obj) and getattr(obj, "__name__", None) == "op" and not name.startswith("_"):
            obj.__name__ = obj.__qualname__ = name.rstrip("_")


_name_ops()


def _pow_bool(fn):
    def op(input, exponent):
        if isinstance(input, Tensor) and input._data.dtype is _BOOL and \
                (exponent is True or exponent is False):
            # bool tensor ** Python bool stays bool in PyTorch: x**True = x, x**False = True
            return Tensor._make_plain(input._data.copy() if exponent
                                      else np.ones_like(input._data))
        if isinstance(exponent, Tensor) and exponent._data.dtype is _BOOL and (
                input is True or input is False
                or (isinstance(input, Tensor) and input._data.dtype is _BOOL)):
            raise NotImplementedError("\"pow\" not implemented for 'Bool': convert the "
                                      "operands first, e.g. x.long()")
        return fn(input, exponent)
    op.__name__, op.__doc__ = fn.__name__, fn.__doc__
    return op


pow = defop("pow", _pow_bool(pow), numbers="both", inplace=IP.pow_, out=True)
floor_divide = defop("floor_divide", _no_bool_pair(_floor_divide, "div_floor_cpu"), numbers="both",
                     inplace=_no_bool_pair(_floor_divide_, "div_floor_cpu"), out=True)

IP._bind_ops(add=add, sub=sub, mul=mul, div=div, pow=pow)   # the in-place forms run these
