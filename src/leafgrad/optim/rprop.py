"""``Rprop``: resilient backpropagation (Riedmiller & Braun, 1993), as torch/optim/rprop.py.

Update rule (PyTorch's single-tensor path): t += 1; s = sign(g * prev) with s > 0 -> etaplus,
s < 0 -> etaminus, s == 0 -> 1; step_size = clamp(step_size * s, *step_sizes); where
s == etaminus the gradient counts as 0; p -= sign(g) * step_size; prev = g.
State (created at the first step, as PyTorch): ``step``, ``prev``, ``step_size``.
Complex parameters update as pairs of real numbers (PyTorch's ``view_as_real``).
"""
import numpy as np

from .._tensor.tensor import Tensor
from .optimizer import Optimizer, _check_non_negative, _init_state

__all__ = ["Rprop"]


def _as_real(a):
    """A complex array as its interleaved real view (``view_as_real``); others unchanged."""
    return a.view(a.real.dtype) if np.iscomplexobj(a) else a


def _lr_value(lr):
    """A float learning rate from a float or a 1-element tensor (PyTorch's ``_to_scalar``)."""
    return float(lr.item()) if isinstance(lr, Tensor) else lr


def _check_tensor_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def _set_flags_and_tensor_state(opt, flags, keys=("step",)):
    """``__setstate__`` as PyTorch's: missing group flags get their defaults, and state
    entries ``keys`` saved as Python numbers (older checkpoints) become 0-dim float32
    tensors."""
    for group in opt.param_groups:
        for k, v in flags:
            group.setdefault(k, v)
        for p in group["params"]:
            state = opt.state.get(p, {})
            for key in keys:
                if len(state) != 0 and not isinstance(state[key], Tensor):
                    state[key] = Tensor._make_plain(np.asarray(float(state[key]), np.float32))


_FLAGS = (("foreach", None), ("maximize", False), ("differentiable", False),
          ("capturable", False))


class Rprop(Optimizer):
    """Raises ValueError for a negative lr or etas outside ``0 < etaminus < 1 < etaplus``."""

    _numbers = ("lr",)
    _tensor_ok = ("lr",)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_tensor_lr(lr)
        self._check_group(locals(), "", at_step=False)
        _check_non_negative(("learning rate", lr))
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("Invalid eta values: %s, %s" % (etas[0], etas[1]))
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flags_and_tensor_state(self, _FLAGS)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        self._check_groups()
        loss = self._closure(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            smin, smax = group["step_sizes"]
            for p, x, g in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    _init_state(state, x, "prev")
                    lr = _lr_value(group["lr"])
                    state["step_size"] = Tensor._make_plain(
                        np.full_like(x, complex(lr, lr) if np.iscomplexobj(x) else lr))
                st = state["step"]
                st._data = st._data + np.float32(1)
                x, g = _as_real(x), _as_real(g)
                prev = _as_real(state["prev"]._data)
                step_size = _as_real(state["step_size"]._data)
                sign = np.asarray(np.sign(g * prev))    # 0-d stays an array
                sign[sign > 0] = etaplus
                sign[sign < 0] = etaminus
                sign[sign == 0] = 1
                step_size *= sign
                np.clip(step_size, smin, smax, out=step_size)
                g = np.array(g)     # a copy, and an array for a 0-d gradient
                g[sign == etaminus] = 0
                x -= np.sign(g) * step_size
                prev[...] = g
                p._bump_version()
        return loss
