"""``Unfold`` and ``Fold`` (as ``torch.nn``): thin modules over ``nn.functional.unfold``
(im2col) and ``fold`` (col2im). Constructor arguments, attributes and reprs are PyTorch's."""
from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Unfold(Module):
    """Sliding windows as columns: (N, C, H, W) -> (N, C kH kW, L) (``nn.functional.unfold``)."""

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, " \
               "stride={stride}".format(**self.__dict__)


class Fold(Module):
    """Columns summed back into an image: (N, C kH kW, L) -> (N, C, *output_size)
    (``nn.functional.fold``)."""

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return "output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, " \
               "padding={padding}, stride={stride}".format(**self.__dict__)
