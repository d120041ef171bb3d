"""``Adagrad`` (Duchi et al., 2011).

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.Adagrad.html):
t += 1; g (+ wd p); clr = lr / (1 + (t - 1) lr_decay); s += g^2; p -= clr g / (sqrt(s) + eps).
State (created in the constructor, as PyTorch): ``step``, ``sum``.
"""
import numpy as np

from .._tensor.tensor import Tensor
from . import _foreach
from .optimizer import Optimizer, _check_non_negative

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Raises ValueError for a negative lr, lr_decay, weight_decay,
    initial_accumulator_value or eps."""

    _numbers = ("lr", "lr_decay", "weight_decay", "eps", "initial_accumulator_value")

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        self._check_group(locals(), "", at_step=False)    # types first, then ranges
        _check_non_negative(("learning rate", lr), ("lr_decay value", lr_decay),
                            ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps))
        _foreach.check_flags(foreach, fused, differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = Tensor._make_plain(np.asarray(0.0, dtype=np.float32))
                state["sum"] = Tensor._make_plain(
                    np.full_like(p._data, group["initial_accumulator_value"]))

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            if _foreach.wanted(group):
                found, rest = _foreach.buckets(group, self._next_step)
                for bucket in found:
                    g = bucket.grads(group["maximize"])
                    x = bucket.data() if group["weight_decay"] != 0 else None
                    bucket.add(_update(group, _foreach.flat_state(self, bucket, "sum"), x, g,
                                       bucket.key[1]))
                items = ((p, x, g, self._next_step(p, x)) for p, x, g in rest)
            else:
                items = ((p, x, g, self._next_step(p, x))
                         for p, x, g in self._params_with_grad(group))
            for p, x, g, step in items:
                x += _update(group, self.state[p]["sum"]._data, x, g, step)
                p._bump_version()
        return loss

    def _next_step(self, p, x):
        st = self.state[p]["step"]
        st._data = st._data + np.float32(1)
        return float(st._data)


def _update(group, s, x, g, step):
    """Adagrad's update of one parameter or flat bucket: ``s`` (the sum of squares) in
    place; ``x`` the data (used only with weight decay); returns what to add to ``x``."""
    lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
    wd = group["weight_decay"]
    if wd != 0:
        g = g + wd * x
    clr = lr / (1 + (step - 1) * lr_decay)
    s += g * g
    std = np.sqrt(s)
    std += eps
    return (-clr) * (g / std)
