"""Dropout family: ``Dropout``, ``Dropout1d/2d/3d``, ``AlphaDropout``,
``FeatureAlphaDropout`` (as ``torch.nn``), over the functional forms in
``ops/nn/dropout.py`` (``nn.functional.dropout``, ...), whose docstring gives PyTorch's
masks and formulas (ATen's ``_dropout_impl``).
"""
from ...ops.nn.dropout import (_check, alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,
                               feature_alpha_dropout)
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        _check(p)
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return "p=%s, inplace=%s" % (self.p, self.inplace)

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)


class Dropout(_DropoutNd):
    """Shape: any; output has the input's shape. Raises ValueError unless 0 <= p <= 1."""
    _fn = staticmethod(dropout)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) or (C, L) input."""
    _fn = staticmethod(dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) or (C, H, W) input."""
    _fn = staticmethod(dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    _fn = staticmethod(dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's zero mean and unit variance (Klambauer et al., 2017)."""
    _fn = staticmethod(alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""
    _fn = staticmethod(feature_alpha_dropout)
