"""``NAdam`` (Dozat, 2016: Adam with Nesterov momentum).

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.NAdam.html):
t += 1; g (+ wd p, or p *= 1 - lr wd when decoupled); mu_t = beta1 (1 - 0.5 0.96^(t psi));
prod *= mu_t; m = lerp(m, g, 1 - beta1); v = beta2 v + (1 - beta2) g^2;
d = sqrt(v / (1 - beta2^t)) + eps; p -= lr (1 - mu_t) / (1 - prod) g / d
+ lr mu_{t+1} / (1 - prod mu_{t+1}) m / d.
State: ``step``, ``mu_product`` (0-dim float32 tensors), ``exp_avg``, ``exp_avg_sq``.
"""
import numpy as np

from .adam import _check_adam_args, _moments, _next_step, _weight_decay
from .optimizer import Optimizer, _state_tensor, _step_tensor

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Raises ValueError for a negative lr, eps, weight_decay or momentum_decay, or betas
    outside [0, 1)."""

    _numbers = ("lr", "eps", "weight_decay", "momentum_decay")
    _has_betas = True
    _late_defaults = dict(maximize=False, decoupled_weight_decay=False)

    # PyTorch's wording of its capturable=True check on CPU (see optimizer._refuse_step_flags)
    _capturable_checked = ("params, mu_products and state_steps", "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        self._check_group(locals(), "", at_step=False)    # types first, then ranges
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError("Invalid momentum_decay value: %s" % momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2) = group["lr"], group["betas"]
            eps, wd = group["eps"], group["weight_decay"]
            psi, decoupled = group["momentum_decay"], group["decoupled_weight_decay"]
            for p, x, g in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["mu_product"] = _state_tensor(np.asarray(1.0, dtype=np.float32))
                    for name in ("exp_avg", "exp_avg_sq"):
                        state[name] = _state_tensor(np.zeros_like(x))
                step = _next_step(state)
                bias_correction2 = 1 - beta2 ** step
                g = _weight_decay(x, g, lr, wd, decoupled)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                mp = state["mu_product"]
                # in the state's dtype (float64 once loaded into float64 params: as torch)
                mp._data = mp._data * mp._data.dtype.type(mu)
                mu_product = float(mp._data)
                m, v = _moments(state, g, beta1, beta2)
                denom = np.sqrt(v / bias_correction2)
                denom += eps
                mu_product_next = mu_product * mu_next
                x += ((-lr * (1.0 - mu) / (1.0 - mu_product)) * g) / denom
                x += (((-lr * mu_next) / (1.0 - mu_product_next)) * m) / denom
                p._bump_version()
        return loss
