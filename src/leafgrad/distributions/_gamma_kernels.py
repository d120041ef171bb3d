"""The differentiable entry points of the Gamma-family samplers: ``torch._standard_gamma``
(gradient ``_standard_gamma_grad``, derivatives.yaml), ``torch._sample_dirichlet`` through
``_Dirichlet`` (gradient ``_dirichlet_grad``, torch/distributions/dirichlet.py) and
``torch.binomial``. Kernels and their sources: ``leafgrad._random.gamma_family``."""
import numpy as np

import leafgrad as _t
from .._random import gamma_family as K
from .._random.generator import gen as _gen

__all__ = ["_standard_gamma", "_sample_dirichlet", "_dirichlet_backward", "_binomial"]


def _np(x):
    return np.ascontiguousarray(x.detach().numpy())


class _StandardGamma(_t.autograd.Function):
    @staticmethod
    def forward(ctx, alpha):
        x = _t.from_numpy(K.standard_gamma(_np(alpha), _gen(None)))
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _t.from_numpy(K.standard_gamma_grad(_np(alpha), _np(x)))


def _standard_gamma(alpha):
    """Standard Gamma(alpha) draws of alpha's shape and dtype (PyTorch's stream); the
    gradient to alpha is the implicit reparameterisation dx/dalpha."""
    return _StandardGamma.apply(alpha)


def _dirichlet_backward(x, concentration, grad_output):
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = _t.from_numpy(K.dirichlet_grad(_np(x), _np(concentration), _np(total)))
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(_t.autograd.Function):
    @staticmethod
    def forward(ctx, concentration):
        x = _t.from_numpy(K.sample_dirichlet(_np(concentration), _gen(None)))
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _dirichlet_backward(x, concentration, grad_output)


def _sample_dirichlet(concentration):
    """Dirichlet draws over the last dim (PyTorch's stream), differentiable (``_Dirichlet``)."""
    return _Dirichlet.apply(concentration)


def _binomial(count, prob):
    """``torch.binomial(count, prob)``: counts of count's dtype and shape (PyTorch's stream)."""
    return _t.from_numpy(K.binomial(_np(count), _np(prob), _gen(None)))
