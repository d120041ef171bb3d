"""``SparseAdam``, as torch/optim/sparse_adam.py: Adam for sparse gradients (lazy: only the
rows a gradient touches move).

leafgrad has no sparse gradients (``nn.Embedding(sparse=True)`` produces a dense one), so
this class is PyTorch's constructor (its checks, ``defaults``, dense and non-complex
parameters) and ``step`` refuses every gradient with PyTorch's error for a dense one. A
state dict saved by PyTorch's ``SparseAdam`` loads (``step`` an int, ``exp_avg``,
``exp_avg_sq``), so a checkpoint round-trips.
"""
import numpy as np

from .optimizer import Optimizer
from .rprop import _check_tensor_lr

__all__ = ["SparseAdam"]

_DENSE = ("SparseAdam does not support dense gradients, please consider Adam instead "
          "(leafgrad has no sparse gradients: every gradient is dense, "
          "nn.Embedding(sparse=True)'s included. Fix: use torch.optim.Adam, whose update "
          "matches SparseAdam's on the rows a gradient touches)")


def _check_sparse_adam_args(lr, betas, eps):
    if not 0.0 < lr:
        raise ValueError("Invalid learning rate: %s" % lr)
    if not 0.0 < eps:
        raise ValueError("Invalid epsilon value: %s" % eps)
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError("Invalid beta parameter at index %d: %s" % (i, betas[i]))


class SparseAdam(Optimizer):
    """Raises ValueError for lr <= 0, eps <= 0, betas outside [0, 1) or complex
    parameters; ``step`` raises RuntimeError for a (dense) gradient."""

    _numbers = ("lr", "eps")
    _tensor_ok = ("lr",)
    _has_betas = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        _check_tensor_lr(lr)
        self._check_group(locals(), "", at_step=False)
        _check_sparse_adam_args(lr, betas, eps)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if np.iscomplexobj(p._data)]
        if complex_params:
            raise ValueError("Complex params at indices %s: SparseAdam does not support complex "
                             "parameters" % complex_params)

    def step(self, closure=None):
        """Refuses (RuntimeError) as soon as a parameter has a gradient: all of leafgrad's
        are dense. Returns ``closure()``'s loss when no parameter has one."""
        loss = self._closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    raise RuntimeError(_DENSE)
        return loss
