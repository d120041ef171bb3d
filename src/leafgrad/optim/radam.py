"""``RAdam`` (Liu et al., 2019: Adam with a rectified adaptive learning rate).

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.RAdam.html):
t += 1; g (+ wd p, or p *= 1 - lr wd when decoupled); m = lerp(m, g, 1 - beta1);
v = beta2 v + (1 - beta2) g^2; rho_inf = 2 / (1 - beta2) - 1;
rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t); if rho_t > 5:
p -= lr m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t with
r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)),
else p -= lr m / (1 - beta1^t). State: ``step`` (0-dim float32), ``exp_avg``, ``exp_avg_sq``.
"""
import numpy as np

from .adam import _check_adam_args, _moments, _next_step, _weight_decay
from .optimizer import Optimizer, _init_state

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Raises ValueError for a negative lr, eps or weight_decay, or betas outside [0, 1)."""

    _numbers = ("lr", "eps", "weight_decay")
    _has_betas = True
    _late_defaults = dict(maximize=False, decoupled_weight_decay=False)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        self._check_group(locals(), "", at_step=False)    # types first, then ranges
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2) = group["lr"], group["betas"]
            eps, wd = group["eps"], group["weight_decay"]
            decoupled = group["decoupled_weight_decay"]
            for p, x, g in self._params_with_grad(group):
                state = _init_state(self.state[p], x, "exp_avg", "exp_avg_sq")
                step = _next_step(state)
                g = _weight_decay(x, g, lr, wd, decoupled)
                m, v = _moments(state, g, beta1, beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                corrected = m / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = (bias_correction2 ** 0.5) / (np.sqrt(v) + eps)
                    x -= corrected * lr * adaptive * rect
                else:
                    x -= corrected * lr
                p._bump_version()
        return loss
