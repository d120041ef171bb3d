"""The dropout functions of ``nn.functional`` (``dropout``, ``dropout1d/2d/3d``,
``alpha_dropout``, ``feature_alpha_dropout``) with PyTorch's masks; their modules are in
``nn/modules/dropout.py``.

As ATen's ``_dropout_impl`` (aten/src/ATen/native/Dropout.cpp, the CPU path): a noise
tensor like the input (or (N, C, 1, ...) for the feature variants) gets
``bernoulli_(1 - p)`` from the default generator (53-bit uniform < 1 - p per element),
then ``noise / (1 - p)`` in the input's dtype and ``input * noise``; the alpha variants
use ``a = 1 / sqrt((alpha^2 p + 1)(1 - p))`` and add ``b = (noise - 1) alpha a + alpha a p``.
p = 0, eval mode and empty inputs return the input; p = 1 multiplies by zero; neither
draws. Gradients flow through the multiplication (grad * noise), as PyTorch's.
"""
import math

import numpy as np

from ..._random import generator as _random
from ..._tensor.tensor import Tensor

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]     # nn.functional's

_ALPHA = 1.7580993408473766


def _check(p):
    if p < 0 or p > 1:
        raise ValueError("dropout probability has to be between 0 and 1, but got %s. Fix: "
                         "pass 0 <= p <= 1" % p)


def _dropout_impl(input, p, train, feature, alpha, inplace=False):
    _check(p)
    x = input._data
    if p == 0 or not train or x.size == 0:
        return input
    if p == 1:
        out = input * Tensor._make_plain(np.zeros((), x.dtype))
        return input.copy_(out) if inplace else out
    shape = x.shape[:2] + (1,) * (x.ndim - 2) if feature else x.shape
    keep = _random.bernoulli_scalar(_random.default_generator, int(np.prod(shape)), 1 - p)
    noise = keep.reshape(shape).astype(x.dtype)
    dt = x.dtype.type
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = (noise - dt(1)) * dt(_ALPHA * a) + dt(_ALPHA * a * p)
        noise = noise * dt(a)
        out = input * Tensor._make_plain(noise) + Tensor._make_plain(b)
    else:
        out = input * Tensor._make_plain(noise / dt(1 - p))
    return input.copy_(out) if inplace else out


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability ``p``, scale the rest by 1/(1-p) (training only).
    Shape: any. Raises ValueError unless 0 <= p <= 1."""
    return _dropout_impl(input, p, training, False, False, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's zero mean and unit variance (Klambauer et al., 2017)."""
    return _dropout_impl(input, p, training, False, True, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels of (N, C, ...) input."""
    return _dropout_impl(input, p, training, True, True, inplace)


def _feature(input, p, training, inplace, dims, name):
    _check(p)
    nd = input.dim()
    if nd not in (dims + 1, dims + 2):
        raise RuntimeError("%s: Expected %dD or %dD input, but received a %dD input. Fix: "
                           "pass (N, C, ...) or (C, ...) input" % (name, dims + 1, dims + 2, nd))
    if nd == dims + 1:      # unbatched: PyTorch unsqueezes a batch dim of 1
        out = _dropout_impl(input.unsqueeze(0), p, training, True, False)
        out = out.squeeze(0)
        return input.copy_(out) if inplace and out is not input else out
    return _dropout_impl(input, p, training, True, False, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) input."""
    return _feature(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) or (C, H, W) input."""
    if input.dim() not in (3, 4):
        _check(p)
        return _dropout_impl(input, p, training, True, False, inplace)
    return _feature(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    return _feature(input, p, training, inplace, 3, "dropout3d")
