"""``Adadelta`` (Zeiler, 2012).

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.Adadelta.html):
t += 1; g (+ wd p); v = rho v + (1 - rho) g^2; d = sqrt(u + eps) / sqrt(v + eps) g;
u = rho u + (1 - rho) d^2; p -= lr d. State: ``step`` (0-dim float32), ``square_avg``,
``acc_delta``.
"""
import numpy as np

from .adam import _next_step
from .optimizer import Optimizer, _check_non_negative, _init_state

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Raises ValueError for a negative lr, eps or weight_decay, or rho outside [0, 1]."""

    _numbers = ("lr", "rho", "eps", "weight_decay")

    # PyTorch's wording of its capturable=True check on CPU (see optimizer._refuse_step_flags)
    _capturable_checked = ("params and state_steps", "['cuda', 'xpu', 'hpu', 'privateuseone']")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        self._check_group(locals(), "", at_step=False)    # types first, then ranges
        _check_non_negative(("learning rate", lr))
        if not 0.0 <= rho <= 1.0:
            raise ValueError("Invalid rho value: %s" % rho)
        _check_non_negative(("epsilon value", eps), ("weight_decay value", weight_decay))
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, rho = group["lr"], group["rho"]
            eps, wd = group["eps"], group["weight_decay"]
            for p, x, g in self._params_with_grad(group):
                state = _init_state(self.state[p], x, "square_avg", "acc_delta")
                _next_step(state)
                if wd != 0:
                    g = g + wd * x
                v = state["square_avg"]._data
                u = state["acc_delta"]._data
                v *= rho
                v += (1 - rho) * (g * g)
                delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
                u *= rho
                u += (1 - rho) * (delta * delta)
                x += (-lr) * delta
                p._bump_version()
        return loss
