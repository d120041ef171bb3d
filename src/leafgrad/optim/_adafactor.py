"""``Adafactor`` (Shazeer & Stern, 2018), as torch/optim/_adafactor.py (public as
``torch.optim.Adafactor``).

Update rule (PyTorch's single-tensor path): t += 1; beta2_t = 1 - t^beta2_decay;
rho = min(lr, 1/sqrt(t)); alpha = max(eps2, RMS(p)) rho; p *= 1 - lr wd; for a >= 2-D
gradient the row/column means of g^2 (over the last two dims) are lerped into ``row_var`` /
``col_var`` and the variance estimate is ``row_var @ col_var / max(mean(row_var), eps1)``,
for a vector (or 0-d) ``variance`` is lerped with g^2; u = g / sqrt(max(v, eps1^2));
p -= alpha / max(1, RMS(u) / d) u. ``eps1=None`` means the parameter dtype's machine
epsilon (PyTorch keeps the first parameter's for the rest of the group).
State (created at the first step): ``step`` and ``row_var`` + ``col_var`` or ``variance``.
Norms are summed in float64 and rounded to the parameter's dtype.
"""
import numpy as np

from .._tensor.tensor import Tensor
from .optimizer import Optimizer, _step_tensor
from .asgd import _fma
from .rprop import _check_tensor_lr, _lr_value, _set_flags_and_tensor_state

__all__ = ["Adafactor"]


def _check_adafactor_args(lr, beta2_decay, eps, d, weight_decay):
    """PyTorch's constructor checks, in its order and with its messages."""
    checks = ((0.0 <= lr, "Learning rate should be >= 0 but is: %s" % lr),
              (0.0 >= beta2_decay, "beta2_decay should be <= 0 but is: %s" % beta2_decay),
              (eps[0] is None or 0.0 <= eps[0], "epsilon1 should be >= 0 but is: %s" % eps[0]),
              (0.0 <= eps[1], "epsilon2 should be >= 0 but is: %s" % eps[1]),
              (1.0 <= d, "Clipping threshold d should be >= 1 but is: %s" % d),
              (0.0 <= weight_decay, "weight_decay should be >= 0 but is: %s" % weight_decay))
    for ok, message in checks:
        if not ok:
            raise ValueError(message)


def _norm(a, axis=None):
    """The 2-norm of ``a`` (over ``axis``, kept) in ``a``'s dtype, summed in float64."""
    s = np.sum(np.square(a, dtype=np.float64), axis=axis, keepdims=axis is not None)
    return np.sqrt(s).astype(a.dtype)


def _lerp_(a, b, w):
    """``a.lerp_(b, w)`` in place as PyTorch's CPU kernel: one fused multiply-add,
    ``a + w (b - a)`` for ``|w| < 0.5``, else ``b + (w - 1)(b - a)`` (float32 through float64,
    where the product is exact)."""
    w = a.dtype.type(w)
    diff = b - a
    coeff, base = (w, a) if abs(w) < 0.5 else (w - 1, b)
    if a.dtype == np.float32:
        a[...] = (base.astype(np.float64) + np.float64(coeff) * diff).astype(np.float32)
    else:
        a[...] = base + coeff * diff


def _variance_estimate(state, g, w, eps1):
    """Lerp the second-moment state towards g^2 with weight ``w``; return the estimate."""
    if g.ndim > 1:
        row, col = state["row_var"]._data, state["col_var"]._data
        _lerp_(row, np.square(_norm(g, -1)) / g.dtype.type(g.shape[-1]), w)
        _lerp_(col, np.square(_norm(g, -2)) / g.dtype.type(g.shape[-2]), w)
        v = row @ col
        mean = np.mean(row, axis=-2, keepdims=True, dtype=np.float64).astype(row.dtype)
        v /= np.maximum(mean, eps1)
        return v
    variance = state["variance"]._data
    _lerp_(variance, g * g, w)
    return variance.copy()


class Adafactor(Optimizer):
    """Raises ValueError for lr < 0, beta2_decay > 0, eps entries < 0, d < 1 or
    weight_decay < 0; RuntimeError at ``step`` for a complex parameter."""

    _numbers = ("lr", "beta2_decay", "d", "weight_decay")
    _tensor_ok = ("lr",)

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        _check_tensor_lr(lr)
        self._check_group(locals(), "", at_step=False)
        _check_adafactor_args(lr, beta2_decay, eps, d, weight_decay)
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flags_and_tensor_state(self, (("foreach", None),))

    @staticmethod
    def _init(state, x):
        state["step"] = _step_tensor()
        if x.ndim > 1:
            state["row_var"] = Tensor._make_plain(np.zeros(x.shape[:-1] + (1,), x.dtype))
            state["col_var"] = Tensor._make_plain(
                np.zeros(x.shape[:-2] + (1,) + x.shape[-1:], x.dtype))
        else:
            state["variance"] = Tensor._make_plain(np.zeros_like(x))

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            eps1, eps2 = group["eps"]
            lr, d, wd = _lr_value(group["lr"]), group["d"], group["weight_decay"]
            for p in group["params"]:
                if p._grad is not None and np.iscomplexobj(p._data):
                    raise RuntimeError("Adafactor does not support complex parameters")
            for p, x, g in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    self._init(state, x)
                if eps1 is None:
                    eps1 = float(np.finfo(x.dtype).eps)
                st = state["step"]
                st._data = st._data + np.float32(1)
                t = float(st._data)
                rho = min(lr, 1 / (t ** 0.5))
                alpha = max(eps2, float(_norm(x)) / (x.size ** 0.5)) * rho
                if wd != 0:
                    x *= 1 - lr * wd
                update = _variance_estimate(state, g, t ** group["beta2_decay"], eps1)
                np.maximum(update, eps1 * eps1, out=update)
                update = 1 / np.sqrt(update)
                update *= g
                denom = max(1.0, float(_norm(update)) / ((update.size ** 0.5) * d))
                x[...] = _fma(x, update, -alpha / denom)
                p._bump_version()
        return loss
