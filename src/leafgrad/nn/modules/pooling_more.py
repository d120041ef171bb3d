"""``MaxPool3d``, ``AvgPool3d``, ``AdaptiveAvgPool3d``, ``AdaptiveMaxPool1d/2d/3d`` (as
``torch.nn``, PyTorch's constructor arguments and reprs); the computation is in
``leafgrad.ops.nn.pooling_3d``."""
from .. import functional as F
from .module import Module
from .pooling import AvgPool2d, _AdaptiveAvgPoolNd, _MaxPoolNd

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"]


class MaxPool3d(_MaxPoolNd):
    """Max over windows of (N, C, D, H, W) or (C, D, H, W); see
    ``nn.functional.max_pool3d``."""

    _fn = F.max_pool3d


class AvgPool3d(AvgPool2d):
    """Mean over windows of (N, C, D, H, W) or (C, D, H, W); see
    ``nn.functional.avg_pool3d``."""

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) to ``output_size``."""

    _fn = F.adaptive_avg_pool3d


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return "output_size={}".format(self.output_size)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) or (C, L) to ``output_size`` positions."""

    _fn = F.adaptive_max_pool1d


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, H, W) or (C, H, W) to ``output_size`` (an int or a pair; None
    keeps that input size); ``return_indices`` also returns the flat indices."""

    _fn = F.adaptive_max_pool2d


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) to ``output_size``."""

    _fn = F.adaptive_max_pool3d
