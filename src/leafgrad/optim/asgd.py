"""``ASGD``: averaged stochastic gradient descent (Polyak & Juditsky, 1992), as
torch/optim/asgd.py.

Update rule (PyTorch's single-tensor path): t += 1; g (+ wd p); p *= 1 - lambd eta;
p -= eta g; ax = p while mu == 1, else ax += mu (p - ax); then
eta = lr / (1 + lambd lr t)^alpha and mu = 1 / max(1, t - t0).
State (created at the first step, as PyTorch): ``step``, ``eta``, ``mu`` (0-dim float32
tensors) and ``ax`` (the running average of the parameter).
"""
import numpy as np

from .._tensor.tensor import Tensor
from .optimizer import Optimizer, _check_non_negative, _step_tensor
from .rprop import (_FLAGS, _as_real, _check_tensor_lr, _lr_value,
                    _set_flags_and_tensor_state)

__all__ = ["ASGD"]


def _scalar_tensor(value):
    return Tensor._make_plain(np.asarray(value, dtype=np.float32))


def _fma(a, b, alpha):
    """``a + alpha * b`` rounded once, as PyTorch's ``add(b, alpha=)`` kernel (a fused
    multiply-add on CPU): float32 through float64, where the product is exact."""
    if a.dtype == np.float32:
        return (a.astype(np.float64) + np.float64(np.float32(alpha)) * b).astype(np.float32)
    return a + alpha * b


def _update(x, g, ax, eta, mu, lambd, wd):
    """PyTorch's single-tensor ASGD update of ``x`` and ``ax`` in place."""
    if wd != 0:
        g = _fma(g, x, wd)
    x *= 1 - lambd * eta
    x[...] = _fma(x, g, -eta)
    if float(mu) != 1:
        ax += (x - ax) * mu
    else:
        ax[...] = x


def _foreach_update(x, g, ax, eta, mu, lambd, wd):
    """PyTorch's multi-tensor (``foreach=True``) order: i = g (+ wd p) + lambd p;
    p -= i eta; ax += (p - ax) mu (always, even while mu is 1)."""
    if wd != 0:
        g = _fma(g, x, wd)
    inter = _fma(g, x, lambd)
    x[...] = _fma(x, inter, -eta)
    ax[...] = _fma(ax, x - ax, mu)


def _pow32(base, exponent):
    return np.float32(np.float64(base) ** exponent)


def _next_eta_mu(state, lr, lambd, alpha, t0, foreach, tensor_lr):
    """eta = lr / (1 + lambd lr t)^alpha, mu = 1 / max(1, t - t0), written into the state
    tensors (float32, or float64 once loaded beside a float64 parameter). PyTorch computes
    them in Python floats and rounds to float32 (its default dtype); its foreach path
    computes eta on the float32 step tensor."""
    step = state["step"]._data
    f = np.float32
    if foreach:
        # ``lr / tensor`` is ``tensor.reciprocal() * lr`` in PyTorch; its float32 pow
        # (Sleef's, within 1 ulp) is taken here as the correctly rounded one
        eta = (f(1) / _pow32(f(1) + f(lambd * lr) * step, alpha)) * f(lr)
    elif tensor_lr:     # PyTorch keeps a 0-dim lr a tensor: float32 arithmetic
        eta = f(lr) / _pow32(f(1) + (f(lambd) * f(lr)) * step, alpha)
    else:
        eta = np.float32(lr / ((1 + lambd * lr * float(step)) ** alpha))
    mu = np.float32(1 / max(1, float(step) - t0))
    for key, value in (("eta", eta), ("mu", mu)):
        t = state[key]
        t._data = np.asarray(value, dtype=t._data.dtype)


class ASGD(Optimizer):
    """Raises ValueError for a negative lr or weight_decay (PyTorch checks nothing else:
    a bad ``lambd``, ``alpha`` or ``t0`` fails at ``step``)."""

    _numbers = ("lr", "lambd", "alpha", "t0", "weight_decay")
    _tensor_ok = ("lr",)

    # PyTorch's wording of its capturable=True check on CPU (see optimizer._refuse_step_flags)
    _capturable_checked = ("params, mus, etas, and state_steps", "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_tensor_lr(lr)
        _check_non_negative(("learning rate", lr), ("weight_decay value", weight_decay))
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flags_and_tensor_state(self, _FLAGS, ("step", "eta", "mu"))

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            wd = group["weight_decay"]
            lr = _lr_value(group["lr"])
            for p, x, g in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["eta"] = _scalar_tensor(lr)
                    state["mu"] = _scalar_tensor(1.0)
                    state["ax"] = Tensor._make_plain(np.zeros_like(x))
                x, g = _as_real(x), _as_real(g)
                ax = _as_real(state["ax"]._data)
                st = state["step"]
                st._data = st._data + np.float32(1)
                mu = x.dtype.type(state["mu"]._data)   # a 0-dim tensor: the param's dtype
                eta = float(state["eta"]._data)
                if group["foreach"]:
                    _foreach_update(x, g, ax, eta, mu, lambd, wd)
                else:
                    _update(x, g, ax, eta, mu, lambd, wd)
                _next_eta_mu(state, lr, lambd, alpha, t0, group["foreach"],
                             isinstance(group["lr"], Tensor))
                p._bump_version()
        return loss
