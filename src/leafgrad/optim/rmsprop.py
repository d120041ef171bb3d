"""``RMSprop`` (Hinton's lecture notes; centered version from Graves, 2013).

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.RMSprop.html):
v = alpha v + (1 - alpha) g^2; centered: a = lerp(a, g, 1 - alpha), avg = sqrt(v - a^2),
else avg = sqrt(v); avg += eps; with momentum b = momentum b + g / avg, p -= lr b;
otherwise p -= lr g / avg. State: ``step``, ``square_avg``, ``momentum_buffer``, ``grad_avg``.
"""
import numpy as np

from .._tensor.tensor import Tensor
from . import _foreach
from .adam import _lerp_
from .optimizer import Optimizer, _check_non_negative

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Raises ValueError for a negative lr, eps, momentum, weight_decay or alpha."""

    _numbers = ("lr", "alpha", "eps", "weight_decay", "momentum")

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        self._check_group(locals(), "", at_step=False)    # types first, then ranges
        _check_non_negative(("learning rate", lr), ("epsilon value", eps),
                            ("momentum value", momentum), ("weight_decay value", weight_decay),
                            ("alpha value", alpha))
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            if _foreach.wanted(group):
                found, rest = _foreach.buckets(group, lambda p, x: self._init(group, p, x))
                for bucket in found:
                    g = bucket.grads(group["maximize"])
                    x = bucket.data() if group["weight_decay"] != 0 else None
                    bucket.add(_update(group, lambda name: _foreach.flat_state(
                        self, bucket, name), x, g))
            else:
                rest = self._params_with_grad(group)
            for p, x, g in rest:
                self._init(group, p, x)
                state = self.state[p]
                x += _update(group, lambda name: state[name]._data, x, g)
                p._bump_version()
        return loss

    def _init(self, group, p, x):
        """Create the state of ``p`` on its first step; count the step."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = Tensor._make_plain(np.asarray(0.0, dtype=np.float32))
            state["square_avg"] = Tensor._make_plain(np.zeros_like(x))
            if group["momentum"] > 0:
                state["momentum_buffer"] = Tensor._make_plain(np.zeros_like(x))
            if group["centered"]:
                state["grad_avg"] = Tensor._make_plain(np.zeros_like(x))
        st = state["step"]
        st._data = st._data + np.float32(1)


def _update(group, state, x, g):
    """RMSprop's update of one parameter or flat bucket: ``state(name)`` gives the state
    arrays (updated in place); ``x`` the data (used only with weight decay); returns what
    to add to ``x``."""
    lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
    wd, momentum = group["weight_decay"], group["momentum"]
    if wd != 0:
        g = g + wd * x
    v = state("square_avg")
    v *= alpha
    v += (1 - alpha) * (g * g)
    if group["centered"]:
        a = state("grad_avg")
        _lerp_(a, g, 1 - alpha)
        avg = np.sqrt(v + (-1) * (a * a))
    else:
        avg = np.sqrt(v)
    avg += eps
    if momentum > 0:
        b = state("momentum_buffer")
        b *= momentum
        b += g / avg
        return (-lr) * b
    return (-lr) * (g / avg)
