"""``huber_loss`` and ``smooth_l1_loss`` as PyTorch's own ops (HuberLossBackward0,
SmoothL1LossBackward0), not as compositions of abs/where.

Forward, backward and double backward follow ATen's CPU kernels and derivatives.yaml:
with d = input - target and z = |d|,

- huber:     z < delta ? 0.5 z^2 : delta (z - 0.5 delta);
  backward   d <= -delta ? -delta : d >= delta ? delta : d          (times grad, norm)
- smooth_l1: z < beta ? 0.5 z^2 / beta : z - 0.5 beta;
  backward   d <= -beta ? -1 : d >= beta ? 1 : d / beta

(norm = 1/numel for reduction='mean'). The target's gradient is the same backward
with input and target swapped (not the negated input gradient: signed zeros and nan
differ). The double backward (HuberLossBackwardBackward0 / SmoothL1LossBackwardBackward0)
multiplies by the mask (z < delta), as PyTorch's huber_loss_double_backward does, so a
nan or inf difference gives PyTorch's 0 there, where a where()-composite gave nan.
"""
import numpy as np

from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from .._dispatch import record, to_tensor
from .._registry import node

__all__ = ["huber_loss_op", "smooth_l1_loss_op"]


def _factor(d, t, scale):
    """The backward's elementwise factor at difference ``d`` (ndarray): -c / c beyond the
    thresholds (c = t for huber, 1 for smooth_l1) and d * scale inside; nan stays nan."""
    c = t * scale
    with _quiet():
        return np.where(d <= -t, -c, np.where(d >= t, c, d * scale)).astype(d.dtype, copy=False)


def _grad_of(g, a, b, args, node_cls):
    """``g * norm * factor(a - b)``: the gradient of ``a`` (ndarrays or tensors ``g``)."""
    t, scale, norm = args
    ad = a._data if isinstance(a, Tensor) else a
    bd = b._data if isinstance(b, Tensor) else b
    with _quiet():
        f = _factor(ad - bd, t, scale)
        if not isinstance(g, Tensor):
            return g * norm * f
        out = np.asarray(g._data * norm * f, dtype=np.result_type(g._data, f))
    return record(node_cls, out, (g, a, b), saved=(g, a, b), args=args)


def fit_to_input(grad, like):
    """A pointwise loss's gradient (the broadcast shape of input and target) summed to
    the shape of its input ``like``: a reduced loss's output has that input's shape when
    it is 0-d, so the engine, which fits a gradient only to an input whose shape differs
    from the output's, leaves it broadcast."""
    shape = tuple(like.shape)
    if grad is None or tuple(grad.shape) == shape:
        return grad
    if isinstance(grad, Tensor):
        return grad.sum_to_size(shape)
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(k + lead for k, s in enumerate(shape)
                                      if s == 1 and grad.shape[k + lead] != 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


def _make(name):
    def backward(ctx, g):
        a, b = ctx._checked_saved
        na, nb = ctx.needs_input_grad
        if name == "HuberLoss" and a.dtype != b.dtype:
            _refuse_mixed(a, b) if na else _refuse_mixed(b, a)
        return (fit_to_input(_grad_of(g, a, b, ctx.args, double), a) if na else None,
                fit_to_input(_grad_of(g, b, a, ctx.args, double), b) if nb else None)

    def double_backward(ctx, gg):
        # derivatives.yaml: grad_output -> X_backward(grad, self, target); self ->
        # X_double_backward(grad * grad_output) = gg g norm scale (|a - b| < t), target -> its
        # negative (mask multiplied, as there)
        g, a, b = ctx._checked_saved
        t, scale, norm = ctx.args
        ng, na, nb = ctx.needs_input_grad
        gg_g = _grad_of(gg, a, b, ctx.args, double) if ng else None
        ga = gb = None
        if na or nb:
            with _quiet():
                m = (np.abs(a._data - b._data) < t).astype(g._data.dtype) * (norm * scale)
            ga = gg * g * Tensor._make_plain(m)
            gb = -ga if nb else None
        return gg_g, (ga if na else None), gb

    first = node(name + "Backward0", backward, saves=True)
    first.np_backward = backward
    double = node(name + "BackwardBackward0", double_backward, saves=True)
    return first


def _refuse_mixed(a, b):
    # PyTorch's huber_loss_backward writes into a gradient of a's dtype from b's: refused
    from ..._core.errors import type_name
    raise RuntimeError(
        "Found dtype %s but expected %s (huber_loss's backward needs the input and the "
        "target in one dtype). Fix: convert the target first, e.g. "
        "F.huber_loss(x, target.to(x.dtype))" % (type_name(b._data.dtype), type_name(a._data.dtype)))


_HUBER = _make("HuberLoss")
_SMOOTH = _make("SmoothL1Loss")


def _loss(cls, input, target, reduction, t, huber):
    target = to_tensor(target)
    x, y = input._data, target._data
    if y.dtype != x.dtype:      # PyTorch's promotion (an int target takes the input's dtype)
        from ..._core.dtype import result_type
        npd = result_type(input, target).np
        x, y = x.astype(npd, copy=False), y.astype(npd, copy=False)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    with _quiet():      # inf - inf and overflow are silent in PyTorch
        z = np.abs(x - y)
        if huber:
            el = np.where(z < t, 0.5 * z * z, t * (z - 0.5 * t))
        else:
            el = np.where(z < t, 0.5 * z * z / t, z - 0.5 * t)
        # huber_loss writes into a loss of the input's dtype (computed in the promoted
        # one); smooth_l1_loss's loss has the promoted dtype
        el = el.astype(input._data.dtype if huber else x.dtype, copy=False)
        if reduction == "none":
            out, norm = el, 1.0
        elif reduction == "sum":
            out, norm = el.sum(), 1.0
        else:
            out = el.sum() / el.size if el.size else np.asarray(np.nan, el.dtype)
            norm = 1.0 / el.size if el.size else 1.0
    scale = 1.0 if huber else 1.0 / t
    return record(cls, np.asarray(out, el.dtype), (input, target), saved=(input, target),
                  args=(t, scale, norm))


def huber_loss_op(input, target, reduction, delta):
    """Huber loss (HuberLossBackward0); ``delta`` > 0 checked by the caller."""
    return _loss(_HUBER, input, target, reduction, float(delta), True)


def smooth_l1_loss_op(input, target, reduction, beta):
    """Smooth L1 loss (SmoothL1LossBackward0); ``beta`` > 0 (0 is l1_loss, the caller's)."""
    return _loss(_SMOOTH, input, target, reduction, float(beta), False)
