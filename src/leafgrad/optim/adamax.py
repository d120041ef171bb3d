"""``Adamax`` (Kingma & Ba, 2014, section 7: Adam with the infinity norm).

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.Adamax.html):
t += 1; g (+ wd p); m = lerp(m, g, 1 - beta1); u = max(beta2 u, |g| + eps);
p -= lr / (1 - beta1^t) * m / u. State: ``step`` (0-dim float32), ``exp_avg``, ``exp_inf``.
"""
import numpy as np

from .adam import _check_adam_args, _lerp_, _next_step
from .optimizer import Optimizer, _init_state

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Raises ValueError for a negative lr, eps or weight_decay, or betas outside [0, 1)."""

    _numbers = ("lr", "eps", "weight_decay")
    _has_betas = True

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        self._check_group(locals(), "", at_step=False)    # types first, then ranges
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2) = group["lr"], group["betas"]
            eps, wd = group["eps"], group["weight_decay"]
            for p, x, g in self._params_with_grad(group):
                state = _init_state(self.state[p], x, "exp_avg", "exp_inf")
                step = _next_step(state)
                if wd != 0:
                    g = g + wd * x
                m = state["exp_avg"]._data
                u = state["exp_inf"]._data
                _lerp_(m, g, 1 - beta1)
                u *= beta2
                np.maximum(u, np.abs(g) + eps, out=u)
                clr = lr / (1 - beta1 ** step)
                x += ((-clr) * m) / u
                p._bump_version()
        return loss
