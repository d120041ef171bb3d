"""``Dropout``: zero elements with probability ``p`` in training mode (scaled by 1/(1-p)).

As ``torch.nn.Dropout`` (https://pytorch.org/docs/stable/generated/torch.nn.Dropout.html):
identity in eval mode; the mask comes from leafgrad's generator.
"""
from ... import _creation
from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return "p=%s, inplace=%s" % (self.p, self.inplace)


class Dropout(_DropoutNd):
    """Shape: any; output has the input's shape.

    Raises:
        ValueError: unless 0 <= p <= 1.
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class _ChannelDropout(_DropoutNd):
    _min_dim = 2

    def forward(self, input):
        if not self.training or self.p == 0:
            return input
        if self.p == 1:
            return input * 0
        # one draw per (N, C) channel, broadcast over the remaining dims
        x = input._data
        lead = 2 if x.ndim > self._min_dim else 1
        shape = x.shape[:lead] + (1,) * (x.ndim - lead)
        keep = (_creation._rng().random(shape) >= self.p).astype(x.dtype) / (1 - self.p)
        return input * Tensor._make_plain(keep)


class Dropout1d(_ChannelDropout):
    """Zero whole channels of (N, C, L) or (C, L) input."""
    _min_dim = 2


class Dropout2d(_ChannelDropout):
    """Zero whole channels of (N, C, H, W) or (C, H, W) input."""
    _min_dim = 3


class Dropout3d(_ChannelDropout):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    _min_dim = 4


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's zero mean and unit variance (Klambauer et al., 2017)."""

    def forward(self, input):
        if not self.training or self.p == 0:
            return input
        alpha_p = -1.7580993408473766
        p = self.p
        a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * p
        x = input._data
        keep = (_creation._rng().random(x.shape) >= p).astype(x.dtype)
        k = Tensor._make_plain(keep)
        return (input * k + alpha_p * (1 - k)) * a + b
