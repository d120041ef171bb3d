"""``ConvTranspose1d``, ``ConvTranspose2d``, ``ConvTranspose3d`` (as ``torch.nn``).

Weight (in_channels, out_channels / groups, *kernel_size), bias (out_channels,);
default initialisation as PyTorch's ``_ConvNd.reset_parameters`` (kaiming_uniform_(a=
sqrt(5)) with fan_in computed from that weight: out_channels / groups * prod(k)).
``forward(input, output_size=None)``: ``output_size`` picks the output_padding that gives
that size, as PyTorch's ``_ConvTransposeNd._output_padding``.
"""
from .. import functional as F
from .conv import _ConvNd

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for %s'
                             % type(self).__name__)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.transposed = True
        op = output_padding
        self.output_padding = tuple(op) if isinstance(op, (tuple, list)) else (op,) * self._nd

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        if output_size is None:
            return self.output_padding
        nd = num_spatial_dims
        lead = 2 if input.dim() == nd + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + nd:
            output_size = output_size[lead:]
        if len(output_size) != nd:
            raise ValueError("ConvTranspose%dD: for %dD input, output_size must have %d or %d "
                             "elements (got %d)" % (nd, input.dim(), nd, lead + nd,
                                                    len(output_size)))
        mins = [(input.shape[i + lead] - 1) * stride[i] - 2 * padding[i]
                + (dilation[i] if dilation is not None else 1) * (kernel_size[i] - 1) + 1
                for i in range(nd)]
        maxs = [m + s - 1 for m, s in zip(mins, stride)]
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(
                    "requested an output size of %s, but valid sizes range from %s to %s (for "
                    "an input of %s). Fix: ask for a size in that range."
                    % (output_size, mins, maxs, list(input.shape[lead:])))
        return tuple(s - m for s, m in zip(output_size, mins))

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size, self.stride, self.padding,
                                  self.kernel_size, self._nd, self.dilation)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, op,
                              self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution: (N, C_in, L) -> (N, C_out, L_out), L_out = (L - 1)
    stride - 2 padding + dilation (k - 1) + output_padding + 1."""

    _nd = 1
    _fn = F.conv_transpose1d


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution ("deconvolution"): (N, C_in, H, W) -> (N, C_out, H_out,
    W_out), H_out = (H - 1) stride - 2 padding + dilation (kH - 1) + output_padding + 1.

    Raises:
        ValueError: a padding_mode other than 'zeros', an ``output_size`` out of range.
        RuntimeError: in forward, as ``nn.functional.conv_transpose2d``.
    """

    _nd = 2
    _fn = F.conv_transpose2d


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution: (N, C_in, D, H, W) -> (N, C_out, D_out, H_out, W_out)."""

    _nd = 3
    _fn = F.conv_transpose3d
