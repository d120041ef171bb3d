"""``SGD`` with momentum, dampening, Nesterov, weight decay and maximize.

Update rule (PyTorch, https://pytorch.org/docs/stable/generated/torch.optim.SGD.html):
g = grad (negated when maximize) + weight_decay * p; with momentum, the buffer starts
as a copy of g and then b = momentum * b + (1 - dampening) * g; g = g + momentum * b
(Nesterov) or g = b; finally p = p - lr * g.
"""
import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, _bump, required

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (state key ``'momentum_buffer'``).

    Raises:
        ValueError: for a negative lr, momentum or weight_decay, or Nesterov without
            momentum or with dampening.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: %s" % lr)
        if momentum < 0.0:
            raise ValueError("Invalid momentum value: %s" % momentum)
        if weight_decay < 0.0:
            raise ValueError("Invalid weight_decay value: %s" % weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        self._scratch = {}      # id(param) -> work buffer for lr * grad (not state)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._closure(closure)
        state = self.state
        scratch = self._scratch
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            dampening = group["dampening"]
            wd = group["weight_decay"]
            nesterov = group["nesterov"]
            for p, x, g in self._params_with_grad(group):
                if wd != 0:
                    g = g + wd * x
                if momentum != 0:
                    st = state[p]
                    buf = st.get("momentum_buffer")
                    if buf is None:
                        buf = Tensor._make_plain(np.array(g, dtype=x.dtype, copy=True))
                        st["momentum_buffer"] = buf
                    else:
                        b = buf._data
                        b *= momentum
                        if dampening:
                            b += (1 - dampening) * g
                        else:
                            b += g
                        _bump(buf)
                    g = g + momentum * buf._data if nesterov else buf._data
                # lr * g into a buffer kept per parameter: a fresh temporary of a
                # large layer costs page faults on every step (blas_mlp: ~1 ms)
                tmp = scratch.get(id(p))
                if tmp is None or tmp.shape != x.shape or tmp.dtype != x.dtype:
                    tmp = scratch[id(p)] = np.empty_like(x)
                np.multiply(g, -lr, out=tmp, casting="unsafe")
                x += tmp
                _bump(p)
        return loss

