"""``Adam`` and ``AdamW`` (Kingma & Ba, 2014; Loshchilov & Hutter, 2017).

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.Adam.html):
t += 1; g = grad (+ wd * p for Adam; AdamW instead scales p by 1 - lr * wd);
m = lerp(m, g, 1 - beta1); v = beta2 v + (1 - beta2) g^2; with amsgrad v_max = max(v_max, v);
p -= lr / (1 - beta1^t) * m / (sqrt(v or v_max) / sqrt(1 - beta2^t) + eps).
State keys: ``step`` (0-dim float32 tensor), ``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq``.
"""
import numpy as np

from . import _foreach
from .optimizer import Optimizer, _check_non_negative, _init_state

__all__ = ["Adam", "AdamW"]


def _lerp_(a, b, w):
    """a <- a + w (b - a) in place (PyTorch's lerp for w < 0.5; the other branch otherwise)."""
    if w < 0.5:
        a += w * (b - a)
    else:
        a[...] = b - (b - a) * (1 - w)


def _check_adam_args(lr, betas, eps, weight_decay):
    """PyTorch's constructor range checks shared by the Adam family, in its order."""
    _check_non_negative(("learning rate", lr), ("epsilon value", eps))
    for i in (0, 1):        # betas[i]: a short tuple raises IndexError, as PyTorch
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError("Invalid beta parameter at index %d: %s" % (i, betas[i]))
    _check_non_negative(("weight_decay value", weight_decay))


def _weight_decay(x, g, lr, wd, decoupled):
    """The Adam family's weight decay: ``x *= 1 - lr wd`` in place when decoupled (AdamW),
    else returns ``g + wd x``."""
    if wd != 0:
        if decoupled:
            x *= 1 - lr * wd
        else:
            g = g + wd * x
    return g


def _moments(state, g, beta1, beta2):
    """``exp_avg = lerp(exp_avg, g, 1 - beta1)``, ``exp_avg_sq = beta2 exp_avg_sq +
    (1 - beta2) g^2`` in place; returns both arrays."""
    m = state["exp_avg"]._data
    v = state["exp_avg_sq"]._data
    _moments_(m, v, g, beta1, beta2)
    return m, v


def _moments_(m, v, g, beta1, beta2):
    """``_moments`` on the arrays ``m`` (exp_avg) and ``v`` (exp_avg_sq)."""
    _lerp_(m, g, 1 - beta1)
    v *= beta2
    v += (1 - beta2) * (g * g)


def _next_step(state):
    """``state['step'] += 1`` (a 0-dim float32 tensor); returns the new step as a float."""
    st = state["step"]
    st._data = st._data + np.float32(1)
    return float(st._data)


class Adam(Optimizer):
    """Adam; ``decoupled_weight_decay=True`` makes it AdamW.

    Raises:
        ValueError: for a negative lr, eps or weight_decay, or betas outside [0, 1).
    """

    _numbers = ("lr", "eps", "weight_decay")
    _has_betas = True
    _late_defaults = dict(amsgrad=False, maximize=False, decoupled_weight_decay=False)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        self._check_group(locals(), "", at_step=False)    # types first, then ranges
        _check_adam_args(lr, betas, eps, weight_decay)
        _foreach.check_flags(foreach, fused, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            if _foreach.wanted(group):
                amsgrad = group["amsgrad"]

                def key(p, x):
                    return self._next_step(self.state[p], x, amsgrad)

                found, rest = _foreach.buckets(group, key)
                for bucket in found:
                    self._step_flat(group, bucket)
                items = ((p, x, g, self._next_step(self.state[p], x, amsgrad))
                         for p, x, g in rest)
            else:
                items = self._steps(group)
            for p, x, g, step in items:
                state = self.state[p]
                x += self._update(group, state["exp_avg"]._data, state["exp_avg_sq"]._data,
                                  state["max_exp_avg_sq"]._data if group["amsgrad"] else None,
                                  x, g, step)
                p._bump_version()
        return loss

    def _steps(self, group):
        amsgrad = group["amsgrad"]
        for p, x, g in self._params_with_grad(group):
            yield p, x, g, self._next_step(self.state[p], x, amsgrad)

    @staticmethod
    def _next_step(state, x, amsgrad):
        """Initialise an empty ``state``; count the step; return it."""
        if len(state) == 0:
            _init_state(state, x, "exp_avg", "exp_avg_sq",
                        *(("max_exp_avg_sq",) if amsgrad else ()))
        return _next_step(state)

    def _step_flat(self, group, bucket):
        """The loop's update of one bucket, over flat arrays (see ``_foreach``)."""
        names = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())
        flats = [_foreach.flat_state(self, bucket, name) for name in names]
        g = bucket.grads(group["maximize"])
        x = bucket.data() if group["weight_decay"] != 0 else None
        update = self._update(group, *flats[:2], flats[2] if len(flats) > 2 else None,
                              x, g, bucket.key[1])
        if x is not None and group["decoupled_weight_decay"]:
            x += update
            bucket.store(x)
        else:
            bucket.add(update)

    @staticmethod
    def _update(group, m, v, vmax, x, g, step):
        """The Adam update of one parameter or of a flat bucket: weight decay (``x``, the
        data, decayed in place when decoupled; unused without weight decay), the moments
        ``m``, ``v`` (and ``vmax`` with amsgrad) in place; returns what to add to ``x``."""
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        g = _weight_decay(x, g, lr, group["weight_decay"], group["decoupled_weight_decay"])
        _moments_(m, v, g, beta1, beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bc2_sqrt = bias_correction2 ** 0.5
        if vmax is not None:
            np.maximum(vmax, v, out=vmax)
            denom = np.sqrt(vmax) / bc2_sqrt
        else:
            denom = np.sqrt(v) / bc2_sqrt
        denom += group["eps"]
        return (-step_size) * (m / denom)


class AdamW(Adam):
    """Adam with decoupled weight decay (default ``weight_decay=1e-2``): p *= 1 - lr * wd
    before the Adam update."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
