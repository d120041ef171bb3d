"""The backward rules of ``binary_cross_entropy`` and ``binary_cross_entropy_with_logits``
as PyTorch's (derivatives.yaml and ATen's Loss.cpp / LossBCE kernels), first and second
order; the forward passes live in ops/nn/loss.py.

binary_cross_entropy (p = input, y = target, w = weight, n = numel for 'mean'):
  input:  g (p - y) / max((1 - p) p, 1e-12) w / n   (binary_cross_entropy_backward, an op
          of its own: BinaryCrossEntropyBackwardBackward0 differentiates it with the
          explicit formulas below, not through the max)
  target: -logit(p) g w / n                          (binary_cross_entropy_target_backward)
  double backward, input:  (p^2 - 2 p y + y) / ((p + eps)^2 (1 - p + eps)^2) g gg w / n
                   target: -g gg w / max((1 - p) p, eps) / n
binary_cross_entropy_with_logits (x = input, pw = pos_weight), composites as PyTorch's:
  input:  (sigmoid(x) - y) g w / n;  with pw: ((pw y + 1 - y) sigmoid(x) - pw y) g w / n
  target: -x g w / n;  with pw: (log_sigmoid(-x) - pw log_sigmoid(x)) g w / n
so inf / 0 / 1 inputs give PyTorch's inf, -inf and nan where the earlier composites gave
100 (the clamp of the forward's logs) or nan.
"""
import numpy as np

from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from .._dispatch import record
from .._registry import node

__all__ = ["BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0"]

_EPS = 1e-12


def _scale(t, w, n):
    if w is not None:
        t = t * w
    return t / n if n != 1 else t


def _np_logit(p):
    with _quiet():
        return np.log(p / (1 - p))


def _bce_input_grad(g, p, y, w, n):
    """binary_cross_entropy_backward(g, p, y, w): an ndarray for an ndarray ``g``, else
    recorded (BinaryCrossEntropyBackwardBackward0) so create_graph can differentiate it."""
    pd, yd = p._data, y._data
    wd = None if w is None else w._data
    gd = g._data if isinstance(g, Tensor) else g
    with _quiet():
        out = gd * (pd - yd) / np.maximum((1 - pd) * pd, _EPS)
        out = _scale(out, wd, n)
    if not isinstance(g, Tensor):
        return out
    out = np.asarray(out, dtype=pd.dtype)
    return record(BinaryCrossEntropyBackwardBackward0, out, (g, p, y), saved=(g, p, y, w),
                  args=n)


def _bce_backward(ctx, g):
    p, y, w = ctx._checked_saved
    n = ctx.args[1]         # (reduction, numel for 'mean' else 1): PyTorch's saved names
    np_, ny = ctx.needs_input_grad[:2]
    gp = _bce_input_grad(g, p, y, w, n) if np_ else None
    gy = None
    if ny:
        if isinstance(g, Tensor):
            gy = _scale(-p.logit() * g, w, n)
        else:
            with _quiet():
                gy = _scale(-_np_logit(p._data) * g, None if w is None else w._data, n)
    return gp, gy


def _bce_double_backward(ctx, gg):
    g, p, y, w = ctx._checked_saved
    n = ctx.args
    ng, np_, ny = ctx.needs_input_grad
    r_g = _bce_input_grad(gg, p, y, w, n) if ng else None
    r_p = r_y = None
    if np_:
        num = p * p - 2 * p * y + y
        den = (p + _EPS).pow(2) * (1 - p + _EPS).pow(2)
        r_p = _scale(num / den * (g * gg), w, n)
    if ny:
        with _quiet():
            den = np.maximum((1 - p._data) * p._data, _EPS)
        r_y = _scale(-(g * gg) / Tensor._make_plain(den.astype(p._data.dtype, copy=False)),
                     w, n)
    return r_g, r_p, r_y


BinaryCrossEntropyBackward0 = node("BinaryCrossEntropyBackward0", _bce_backward, saves=True)
BinaryCrossEntropyBackward0.np_backward = _bce_backward
BinaryCrossEntropyBackwardBackward0 = node("BinaryCrossEntropyBackwardBackward0",
                                           _bce_double_backward, saves=True)


# ------------------------------------------------------------------- with logits
def _np_sigmoid(x):
    from ..elementwise import _sigmoid_np
    return _sigmoid_np(x)


def np_log_sigmoid(x):
    """PyTorch's CPU log_sigmoid: min(x, 0) - log1p(exp(-|x|))."""
    with _quiet():
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _logits_backward(ctx, g):
    x, y, w, pw = ctx._checked_saved
    n = ctx.args
    nx, ny = ctx.needs_input_grad[:2]
    gx = gy = None
    if isinstance(g, Tensor):       # create_graph: PyTorch's composites, differentiable
        from .activation import logsigmoid
        if nx:
            if pw is None:
                gx = x.sigmoid() - y
            else:
                t = pw * y
                gx = (t + 1 - y) * x.sigmoid() - t
            gx = _scale(gx * g, w, n)
        if ny:
            gy = -x if pw is None else logsigmoid(-x) - logsigmoid(x) * pw
            gy = _scale(gy * g, w, n)
        return gx, gy
    xd, yd = x._data, y._data
    wd = None if w is None else w._data
    with _quiet():
        if nx:
            if pw is None:
                gx = _np_sigmoid(xd) - yd
            else:
                t = pw._data * yd
                gx = (t + 1 - yd) * _np_sigmoid(xd) - t
            gx = _scale(gx * g, wd, n)
        if ny:
            gy = -xd if pw is None else np_log_sigmoid(-xd) - np_log_sigmoid(xd) * pw._data
            gy = _scale(gy * g, wd, n)
    return gx, gy


BinaryCrossEntropyWithLogitsBackward0 = node("BinaryCrossEntropyWithLogitsBackward0",
                                             _logits_backward, saves=True)
BinaryCrossEntropyWithLogitsBackward0.np_backward = _logits_backward
