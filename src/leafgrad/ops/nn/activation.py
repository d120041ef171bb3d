"""Activations and softmax (``nn.functional.relu``, ``softmax``, ``gelu``,
``gumbel_softmax``, ...) and their vector-Jacobian products (PyTorch's formulas: see
each rule's comment)."""

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor, _wrap_dim
from .. import elementwise as E
from .._dispatch import record
from .._named import _renamed, _tname
from .._registry import add_form, defop, functional_ops, node
from .._trace import tape as _tape
from .._select import select
from ._rowmax import last_max as _last_max, SHORT as _SHORT




# ---------------------------------------------------------------- softmax
def _softmax_dim(name, ndim, stacklevel=3):
    _errors.warn("Implicit dimension choice for %s has been deprecated. Change the call to "
                 "include dim=X as an argument." % name, UserWarning)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_backward(ctx, g):
    y = ctx.result
    d = ctx.args
    return ((g - (g * y).sum(d, keepdim=True)) * y,)


SoftmaxBackward0 = node("SoftmaxBackward0", _softmax_backward, saves=True)


def _softmax_np(ctx, g):
    y = ctx.result_array()
    t = g * y
    if not t.ndim:
        return ((g - t) * y,)
    np.subtract(g, t.sum(ctx.args, keepdims=True), out=t)      # (g - sum(g y)) y, in place
    t *= y
    return (t,)


SoftmaxBackward0.np_backward = _softmax_np


def _log_softmax_backward(ctx, g):
    y = ctx.result
    d = ctx.args
    return (g - y.exp() * g.sum(d, keepdim=True),)


LogSoftmaxBackward0 = node("LogSoftmaxBackward0", _log_softmax_backward, saves=True)


def _log_softmax_np(ctx, g):
    y = ctx.result_array()
    e = np.exp(y)
    if not e.ndim or e.dtype != g.dtype:
        return (g - e * g.sum(ctx.args, keepdims=True),)
    e *= g.sum(ctx.args, keepdims=True)
    return (np.subtract(g, e, out=e),)                  # g - exp(y) sum(g), in place


LogSoftmaxBackward0.np_backward = _log_softmax_np


def _prep(input, dim, dtype, name):
    if dim is None:
        dim = _softmax_dim(name, input.dim(), 4)
    if dtype is not None:
        input = input.to(dtype)
    x = input._data
    if x.dtype.kind not in "fc":
        raise NotImplementedError("\"%s_lastdim_kernel_impl\" not implemented for '%s': %s "
                                  "takes floating point input. Fix: call .float() first."
                                  % (name, _tname(x.dtype), name))
    return input, x, _wrap_dim(dim, x.ndim)


def _shift(x, d):
    """x.max(d, keepdims=True), by a halving tree over a short last dim (same value)."""
    if (x.ndim and d == x.ndim - 1 and x.shape[d] <= _SHORT and x.size > x.shape[d] * 8
            and x.dtype.kind == "f"):
        return _last_max(x)
    return x.max(axis=d, keepdims=True)


def _normalized(input, dim, dtype, name, cls, kernel):
    """softmax / log_softmax: ``kernel(x, d)`` recorded as ``cls`` (saving the result),
    and reported to torch.compile's capture when one is running (ops/_trace.py)."""
    input, x, d = _prep(input, dim, dtype, name)
    res = record(cls, kernel(x, d), (input,), save_result=True, args=d if x.ndim else 0)
    if _tape[0] is not None:
        _tape[0].op(kernel, (x, d), res)
    return res


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``, computed with the max subtracted (stable).
    d/dx: (g - sum(g y)) y."""
    return _normalized(input, dim, dtype, "softmax", SoftmaxBackward0, _softmax_kernel)


def _softmax_kernel(x, d):
    """softmax's NumPy kernel along dim ``d``."""
    if x.size == 0:   # nothing to normalize (x.max would refuse an empty dim)
        return x.copy()
    with _quiet():
        # 0-d too: exp(x - x) is nan at inf or nan, as PyTorch's kernel
        if x.ndim:
            e = np.subtract(x, _shift(x, d))
            np.exp(e, out=e)
            return np.divide(e, e.sum(axis=d, keepdims=True), out=e)
        e = np.exp(x - x)
        return e / e


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along ``dim`` (stable). d/dx: g - softmax(x) sum(g)."""
    return _normalized(input, dim, dtype, "log_softmax", LogSoftmaxBackward0,
                       _log_softmax_kernel)


def _log_softmax_kernel(x, d):
    """log_softmax's NumPy kernel along dim ``d``."""
    if x.size == 0:   # nothing to normalize (x.max would refuse an empty dim)
        return x.copy()
    with _quiet():
        s = x - _shift(x, d)
        return s - np.log(np.exp(s).sum(axis=d, keepdims=True))


def _softmax_torch(input, dim, dtype=None):
    """``torch.softmax`` / ``Tensor.softmax``: see ``nn.functional.softmax``."""
    return softmax(input, dim, dtype=dtype)


def _log_softmax_torch(input, dim, dtype=None):
    """``torch.log_softmax`` / ``Tensor.log_softmax``: see ``nn.functional.log_softmax``."""
    return log_softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype)


# ------------------------------------------------------------ activations
sigmoid = E.sigmoid
tanh = E.tanh


def relu_(input):
    return input.relu_()


def _leaky_backward(ctx, g):
    # PyTorch's leaky_relu_backward: x > 0 ? g : g * slope (nan takes the slope)
    (x,) = ctx._checked_saved
    return (select(x._data > 0, g, g * ctx.args, deps=(x,), name="LeakyReluBackwardBackward0"),)


LeakyReluBackward0 = node("LeakyReluBackward0", _leaky_backward, saves=True)
LeakyReluBackward0.np_backward = _leaky_backward   # select() takes ndarrays too


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x. The gradient at 0 is the slope (as PyTorch)."""
    x = input._data
    out = np.where(x > 0, x, x * negative_slope).astype(x.dtype)
    res = record(LeakyReluBackward0, out, (input,), saved=(input,), args=negative_slope)
    return res


def _hardtanh_backward(ctx, g):
    # PyTorch's hardtanh_backward: 0 where x <= min_val or x >= max_val, else g
    # (so g passes at nan)
    (x,) = ctx._checked_saved
    lo, hi = ctx.args
    return (select(~((x._data <= lo) | (x._data >= hi)), g, deps=(x,),
                   name="HardtanhBackwardBackward0"),)


HardtanhBackward0 = node("HardtanhBackward0", _hardtanh_backward, saves=True)
HardtanhBackward0.np_backward = _hardtanh_backward   # select() takes ndarrays too


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clip(x, min_val, max_val) (nan stays nan). The gradient is 0 at and beyond the
    edges and passes elsewhere, nan included (PyTorch's hardtanh_backward)."""
    return record(HardtanhBackward0, np.clip(input._data, min_val, max_val), (input,),
                  saved=(input,), args=(min_val, max_val))


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0)


def _elu_grad_np(g, xd, args):
    # PyTorch's elu_backward (is_result false): x <= 0 ? g input_scale alpha scale
    # exp(x input_scale) : g scale (so nan takes g scale), coefficients in x's dtype
    alpha, scale, iscale = args
    t = xd.dtype.type
    with _quiet():
        neg = g * t(iscale) * (t(alpha) * t(scale)) * np.exp(xd * t(iscale))
        return np.where(xd <= 0, neg, g * t(scale)).astype(xd.dtype, copy=False)


def _elu_backward(ctx, g):
    (x,) = ctx._checked_saved
    if not isinstance(g, Tensor):
        return (_elu_grad_np(g, x._data, ctx.args),)
    out = _elu_grad_np(g._data, x._data, ctx.args)
    return (record(EluBackwardBackward0, out, (g, x), saved=(g, x), args=ctx.args),)


def _elu_double_backward(ctx, gg):
    # derivatives.yaml: grad_output -> elu_backward(grad, ..., self); self ->
    # elu_double_backward: elu_backward(gg g input_scale, ..., self) * (self < 0), the mask
    # multiplied (an inf gradient at x = 0 gives nan there, as in PyTorch)
    g, x = ctx._checked_saved
    ng, nx = ctx.needs_input_grad
    back = _EluCtx(x, ctx.args)
    gg_g = _elu_backward(back, gg)[0] if ng else None
    gx = None
    if nx:
        mask = Tensor._make_plain((x._data < 0).astype(x._data.dtype))
        gx = _elu_backward(back, gg * g * ctx.args[2])[0] * mask
    return gg_g, gx


class _EluCtx:
    """The fields ``_elu_backward`` reads, for its use in the double backward."""
    __slots__ = ("_checked_saved", "args")

    def __init__(self, x, args):
        self._checked_saved, self.args = (x,), args


EluBackward0 = node("EluBackward0", _elu_backward, saves=True)
EluBackward0.np_backward = _elu_backward
CeluBackward0 = node("CeluBackward0", _elu_backward, saves=True)
CeluBackward0.np_backward = _elu_backward
EluBackwardBackward0 = node("EluBackwardBackward0", _elu_double_backward, saves=True)


def _elu(input, alpha, scale, input_scale, cls, back_args=None):
    # ATen's elu kernel: x <= 0 ? expm1(x input_scale) (alpha scale) : x scale, with the
    # coefficients rounded to the input's dtype first (bit for bit)
    x = input._data
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    t = x.dtype.type
    with _quiet():
        out = np.where(x <= 0, np.expm1(x * t(input_scale)) * (t(alpha) * t(scale)), x * t(scale))
    return record(cls, out.astype(x.dtype, copy=False), (input,), saved=(input,),
                  args=back_args or (alpha, scale, input_scale))


def elu(input, alpha=1.0, inplace=False):
    """alpha (exp(x) - 1) where x <= 0, else x. PyTorch's test order: nan takes the
    x branch, so its gradient is 1; at 0 the gradient is alpha."""
    return _elu(input, alpha, 1.0, 1.0, EluBackward0)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the constants of Klambauer et al. (2017)."""
    return _elu(input, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946,
                1.0, EluBackward0)


def celu(input, alpha=1.0, inplace=False):
    """alpha (exp(x / alpha) - 1) where x <= 0, else x (PyTorch's elu with input_scale
    1/alpha: the gradient is 1 at 0 and at nan)."""
    # PyTorch's backward takes input_scale as 1 / alpha with alpha rounded to float32
    # (its forward uses 1 / alpha): the float64 gradient differs in the 8th digit
    return _elu(input, alpha, 1.0, 1.0 / alpha, CeluBackward0,
                back_args=(alpha, 1.0, 1.0 / float(np.float32(alpha))))


def _smooth(kernel, node_name, value, deriv, doc):
    """A pointwise op with value ``value(x)`` (ndarray, PyTorch's forward kernel) whose
    gradient is ``g * deriv(x)``: ``deriv`` of recorded tensor ops, so the rule has
    PyTorch's formula and operation order (an inf upstream gradient times a finite
    derivative stays inf) and is itself differentiable. Integer input raises as there."""
    op = E._unary(None, value, node_name, lambda g, x, r: g * deriv(x))

    def f(input):
        if input._data.dtype.kind not in "fc":
            raise NotImplementedError("\"%s\" not implemented for '%s'. Fix: call .float() "
                                      "first." % (kernel, _tname(input._data.dtype)))
        return op(input)
    f.__doc__ = doc
    return f


_SQRT1_2 = float(np.sqrt(0.5))
_GELU_BETA = float(1 / np.sqrt(2 * np.pi))   # PyTorch's kBeta: the normal pdf at 0


def _gelu_np(x):
    return x * 0.5 * (1 + E._erf_np(x * _SQRT1_2))


def _gelu_d_np(x):
    # PyTorch's gelu_backward (approximate='none'): cdf + x pdf
    return 0.5 * (1 + E._erf_np(x * _SQRT1_2)) + x * (np.exp(-0.5 * x * x) * _GELU_BETA)


def _gelu_dd(x):
    # PyTorch's gelu_double_backward: 2 pdf - x^2 pdf
    sq = x * x
    pdf = (sq * -0.5).exp() * _GELU_BETA
    return 2 * pdf - sq * pdf


_gelu_d = E._unary(None, _gelu_d_np, "GeluBackwardBackward0", lambda g, x, r: g * _gelu_dd(x))
_gelu_exact = _smooth("GeluKernelImpl", "GeluBackward0", _gelu_np, _gelu_d, "x Phi(x).")


def gelu(input, approximate="none"):
    """x Phi(x); ``approximate='tanh'`` uses the tanh formula (Hendrycks & Gimpel, 2016).
    Gradient and its gradient: PyTorch's gelu_backward and gelu_double_backward."""
    if approximate == "tanh":
        c = float(np.sqrt(2 / np.pi))
        return 0.5 * input * (1 + E.tanh(c * (input + 0.044715 * input ** 3)))
    return _gelu_exact(input)


def _silu_np(x):
    return x / (1 + np.exp(-x))


def _silu_d(x):
    # PyTorch's infinitely_differentiable_silu_backward: s (1 + x (1 - s))
    s = x.sigmoid()
    return s * (1 + x * (1 - s))


_silu = _smooth("silu_cpu", "SiluBackward0", _silu_np, _silu_d,
                "x sigmoid(x) (swish). Gradient: PyTorch's silu_backward.")


def silu(input, inplace=False):
    return _silu(input)


def _mish_np(x):
    return x * np.tanh(np.log1p(np.exp(x)))


def _mish_d(x):
    # PyTorch's infinitely_differentiable_mish_backward: tsp + x s (1 - tsp^2), with
    # tsp = tanh(log1p(exp(x))) (no softplus threshold: a second order nan where exp(x)
    # overflows, as there)
    s = x.sigmoid()
    tsp = x.exp().log1p().tanh()
    return tsp + x * s * (1 - tsp * tsp)


_mish = _smooth("mish_cpu", "MishBackward0", _mish_np, _mish_d,
                "x tanh(softplus(x)) (Misra, 2019). Gradient: PyTorch's mish_backward.")


def mish(input, inplace=False):
    return _mish(input)


def _softplus_grad_np(g, xd, beta, th):
    # PyTorch's softplus_backward: g where beta x > threshold, else g sigmoid(beta x)
    with _quiet():
        bx = xd * beta
        return np.where(bx > th, g, g * E._sigmoid_np(bx))


def _softplus_backward(ctx, g):
    (x,) = ctx._checked_saved
    beta, th = ctx.args
    if not isinstance(g, Tensor):
        return (_softplus_grad_np(g, x._data, beta, th),)
    out = _softplus_grad_np(g._data, x._data, beta, th).astype(g._data.dtype, copy=False)
    return (record(SoftplusBackwardBackward0, out, (g, x), saved=(g, x), args=(beta, th)),)


def _softplus_double_backward(ctx, gg):
    # derivatives.yaml: grad_output -> softplus_backward(grad, self, beta, threshold);
    # self -> softplus_double_backward: sigmoid_backward(gg g, sigmoid(beta x)) *
    # (beta x < threshold) * beta, multiplied by the mask (nan at a nan input, as there)
    g, x = ctx._checked_saved
    beta, th = ctx.args
    ng, nx = ctx.needs_input_grad
    gg_g = _softplus_backward(_SoftplusCtx(x, beta, th), gg)[0] if ng else None
    gx = None
    if nx:
        bx = x * beta
        gx = E.sigmoid_backward(gg * g, bx.sigmoid()) * (bx < th) * beta
    return gg_g, gx


class _SoftplusCtx:
    """The fields ``_softplus_backward`` reads, for its use in the double backward."""
    __slots__ = ("_checked_saved", "args")

    def __init__(self, x, beta, th):
        self._checked_saved, self.args = (x,), (beta, th)


SoftplusBackward0 = node("SoftplusBackward0", _softplus_backward, saves=True)
SoftplusBackward0.np_backward = _softplus_backward
SoftplusBackwardBackward0 = node("SoftplusBackwardBackward0", _softplus_double_backward,
                                  saves=True)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, and x where beta x > ``threshold`` (PyTorch's kernel).

    d/dx = sigmoid(beta x), 1 above the threshold (PyTorch's softplus_backward).
    """
    x = input._data
    with _quiet():
        bx = x * beta
        out = np.where(bx > threshold, x, np.log1p(np.exp(bx)) / beta)
    return record(SoftplusBackward0, out.astype(x.dtype, copy=False), (input,), saved=(input,),
                  args=(beta, threshold))


def _logsigmoid_np(x):
    # PyTorch's log_sigmoid kernel: min(x, 0) - log1p(exp(-|x|))
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _logsigmoid_d_np(x):
    # PyTorch's log_sigmoid_backward: (x < 0) - sign z / (1 + z), z = exp(-|x|)
    z = np.exp(-np.abs(x))
    neg = x < 0
    return np.where(neg, 1, 0).astype(x.dtype) - np.where(neg, 1, -1).astype(x.dtype) * (
        z / (1 + z))


def _logsigmoid_dd(x):
    # PyTorch's log_sigmoid_double_backward: (s - 1) s
    s = x.sigmoid()
    return (s - 1) * s


_logsigmoid_d = E._unary(None, _logsigmoid_d_np, "LogSigmoidBackwardBackward0",
                         lambda g, x, r: g * _logsigmoid_dd(x))
logsigmoid = _smooth("log_sigmoid_cpu", "LogSigmoidBackward0", _logsigmoid_np, _logsigmoid_d,
                     "log(sigmoid(x)), stable (PyTorch's kernel). Gradient and its gradient: "
                     "PyTorch's log_sigmoid_backward and log_sigmoid_double_backward.")


def softsign(input):
    return input / (1 + E.abs(input))


def _hardsigmoid_backward(ctx, g):
    # 1/6 strictly inside (-3, 3), 0 at the edges and at nan (PyTorch's kernel)
    (x,) = ctx._checked_saved
    xd = x._data
    # 1/6 rounded to float32, also for float64 inputs (PyTorch's constant is 1.0f / 6.0f)
    sixth = float(np.float32(1.0) / np.float32(6.0))
    return (select((xd > -3) & (xd < 3), g * sixth, deps=(x,), name="NotImplemented",
                   refuse="derivative for aten::hardsigmoid_backward is not implemented"),)


HardsigmoidBackward0 = node("HardsigmoidBackward0", _hardsigmoid_backward, saves=True)
HardsigmoidBackward0.np_backward = _hardsigmoid_backward   # select() takes ndarrays too


def _relu6_of_x_plus_3(x):
    with _quiet():
        return np.minimum(np.maximum(x + 3, 0), 6)    # nan propagates


def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6 (PyTorch's formula, bit for bit). The gradient is 1/6
    on (-3, 3) and 0 elsewhere, edges and nan included."""
    x = input._data
    return record(HardsigmoidBackward0, _relu6_of_x_plus_3(x) / 6, (input,), saved=(input,))


def _hardswish_grad_np(g, xd):
    # PyTorch's hardswish_backward: 0 for x <= -3, g (x/3 + 1/2) for -3 < x < 3, g
    # otherwise (nan included)
    with _quiet():
        return np.where(xd <= -3, 0, np.where(xd < 3, g * (xd / 3 + 0.5), g)).astype(
            np.result_type(g, xd), copy=False)


def _hardswish_backward(ctx, g):
    (x,) = ctx._checked_saved
    if not isinstance(g, Tensor):
        return (_hardswish_grad_np(g, x._data),)
    out = _hardswish_grad_np(g._data, x._data)
    return (record(HardswishBackwardBackward0, out, (g, x), saved=(g, x)),)


def _hardswish_double_backward(ctx, gg):
    # derivatives.yaml: grad_output -> hardswish_backward(grad, self); self ->
    # where(-3 < self < 3, grad * grad_output / 3, 0) (selected: an inf x gives 0, not nan)
    g, x = ctx._checked_saved
    ng, nx = ctx.needs_input_grad
    gg_g = _hardswish_backward(_OneSaved(x), gg)[0] if ng else None
    gx = None
    if nx:
        xd = x._data
        gx = select((xd > -3) & (xd < 3), gg * g / 3)
    return gg_g, gx


class _OneSaved:
    __slots__ = ("_checked_saved",)

    def __init__(self, x):
        self._checked_saved = (x,)


HardswishBackward0 = node("HardswishBackward0", _hardswish_backward, saves=True)
HardswishBackward0.np_backward = _hardswish_backward
HardswishBackwardBackward0 = node("HardswishBackwardBackward0", _hardswish_double_backward,
                                  saves=True)


def hardswish(input, inplace=False):
    """x min(max(x + 3, 0), 6) / 6, with PyTorch's gradient (see ``_hardswish_backward``)."""
    x = input._data
    with _quiet():      # inf * 0 is a silent nan in PyTorch
        out = x * _relu6_of_x_plus_3(x) / 6
    return record(HardswishBackward0, out, (input,), saved=(input,))


def tanhshrink(input):
    return input - E.tanh(input)


def _threshold_backward(ctx, g):
    # PyTorch's threshold_backward: 0 where x <= threshold, else g (nan passes)
    (x,) = ctx._checked_saved
    return (select(~(x._data <= ctx.args), g, deps=(x,), name="ThresholdBackwardBackward0"),)


ThresholdBackward0 = node("ThresholdBackward0", _threshold_backward, saves=True)
ThresholdBackward0.np_backward = _threshold_backward   # select() takes ndarrays too


def threshold(input, threshold, value, inplace=False):
    """value where x <= threshold, else x (nan stays nan and gets the gradient)."""
    x = input._data
    out = np.where(x <= threshold, np.asarray(value).astype(x.dtype), x)
    return record(ThresholdBackward0, out, (input,), saved=(input,), args=threshold)


def glu(input, dim=-1):
    """First half of ``dim`` times the sigmoid of the second half.

    Raises:
        RuntimeError: a 0-d input or an odd size along ``dim`` (as PyTorch).
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even. "
                           "Fix: give a tensor whose dim has an even size")
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError("Halving dimension must be even, but dimension %d is size %d. Fix: "
                           "an even size along dim (glu splits it into two halves)"
                           % (dim % input.dim(), n))
    a, b = input.narrow(dim, 0, n // 2), input.narrow(dim, n // 2, n // 2)
    return a * E.sigmoid(b)


gelu = _renamed(gelu, "GeluBackward0")   # the tanh form is composite
glu = _renamed(glu, "GluBackward0")


# ------------------------------------------------------------ inplace=True
def _with_inplace(fn, name):
    """``fn(input, ..., inplace=True)`` writes the result into ``input`` (an
    in-place op: recorded for autograd, refused on a leaf that requires grad)."""
    import functools
    import inspect
    from ..inplace import arithmetic as _ip
    params = list(inspect.signature(fn).parameters)
    pos = params.index("inplace")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not (kwargs.get("inplace") or (len(args) > pos and args[pos])):
            return fn(*args, **kwargs)
        args = list(args)
        if len(args) > pos:
            args[pos] = False
        else:
            kwargs["inplace"] = False
        input, rest = args[0], args[1:]
        return _ip.apply(input, name, lambda a: fn(a, *rest, **kwargs))
    return wrapper


def relu(input, inplace=False):
    """max(x, 0). d/dx = 1 where x > 0, else 0."""
    return E.relu(input)


for _name in ("relu", "leaky_relu", "hardtanh", "relu6", "elu", "selu", "celu", "silu", "mish",
              "hardsigmoid", "hardswish", "threshold"):
    globals()[_name] = _with_inplace(globals()[_name], _name + "_")
del _name


# ------------------------------------------------------------ declarations
defop("softmax", softmax, function=_softmax_torch, method=_softmax_torch, functional=True,
      out=True)
defop("log_softmax", log_softmax, function=_log_softmax_torch, method=_log_softmax_torch,
      functional=True, out=True)
functional_ops(globals(), ("softmin", "leaky_relu", "hardtanh", "relu6", "elu", "gelu", "silu",
                           "mish", "softplus", "logsigmoid", "softsign", "hardsigmoid",
                           "hardswish", "tanhshrink", "glu"))
# also torch.selu, torch.celu, torch.threshold (same arguments, less ``inplace``)
functional_ops(globals(), ("selu", "celu"), function=True)
functional_ops(globals(), ("threshold",), function=True, out=True)
add_form("relu", functional=relu)
add_form("sigmoid", functional=True)
add_form("tanh", functional=True)


# ------------------------------------------------------------------ gumbel_softmax
@defop("gumbel_softmax", function=False, method=False, functional=True)
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples of the Gumbel-softmax (Concrete) distribution (Jang et al. 2016;
    Maddison et al. 2016): ``softmax((logits + g) / tau)`` with ``g = -log(E)``,
    ``E ~ Exp(1)`` drawn from the default generator as PyTorch (same numbers after
    ``manual_seed``). ``hard=True``: the one-hot of the argmax in the forward pass, the
    soft sample's gradient (straight-through: ``y_hard - y_soft.detach() + y_soft``).

    Shapes and dtype: as ``logits``. ``eps`` is deprecated and ignored (a warning).
    """
    if eps != 1e-10:
        _errors.warn("`eps` parameter is deprecated and has no effect.", UserWarning)
    from ..._tensor.creation import empty_like, zeros_like
    gumbels = -empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
