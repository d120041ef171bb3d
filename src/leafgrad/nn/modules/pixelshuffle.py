"""``PixelShuffle`` and ``PixelUnshuffle`` (as ``torch.nn``): thin modules over
``nn.functional.pixel_shuffle`` and ``pixel_unshuffle``; reprs PyTorch's."""
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r) (``nn.functional.pixel_shuffle``)."""

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return "upscale_factor=%s" % (self.upscale_factor,)


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W) (``nn.functional.pixel_unshuffle``)."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return "downscale_factor=%s" % (self.downscale_factor,)
