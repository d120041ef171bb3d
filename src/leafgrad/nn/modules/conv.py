"""``Conv1d``, ``Conv2d``, ``Conv3d`` (as ``torch.nn``; the transposed ones are in
``conv_transpose.py``).

Default initialisation as PyTorch's ``_ConvNd.reset_parameters``: weight by
``kaiming_uniform_(a=sqrt(5))`` = U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in =
in_channels / groups * prod(kernel_size), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
"""
from .. import functional as F
from .linear import _reset_weight_and_bias, _weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d"]


class _ConvNd(Module):
    """Shared by ``Conv1d`` and ``Conv2d``: parameters, init, repr (PyTorch's)."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]
    _nd = 0
    _fn = None
    _transposed = False     # weight (C_in, C_out / groups, *k) instead of (C_out, C_in / groups, *k)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        nd = self._nd
        tup = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd  # noqa: E731
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in {"same", "valid"}:
                raise ValueError("Invalid padding string %r, should be one of {'valid', 'same'}"
                                 % padding)
            if padding == "same" and any(s != 1 for s in tup(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in modes:
            raise ValueError("padding_mode must be one of %s, but got padding_mode='%s'"
                             % (modes, padding_mode))
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride)
        self.padding = padding if isinstance(padding, str) else tup(padding)
        self.dilation = tup(dilation)
        self.transposed = False
        self.output_padding = (0,) * nd
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dim first), for the non-zero padding modes (PyTorch's attribute)
        if isinstance(self.padding, str):
            rev = [0, 0] * nd
            if self.padding == "same":
                for i, (d, k) in enumerate(zip(self.dilation[::-1], self.kernel_size[::-1])):
                    rev[2 * i], rev[2 * i + 1] = d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2
        else:
            rev = [p for p in self.padding[::-1] for _ in range(2)]
        self._reversed_padding_repeated_twice = rev
        shape = (in_channels, out_channels // groups) if self._transposed else \
            (out_channels, in_channels // groups)
        _weight_and_bias(self, shape + self.kernel_size, bias, dtype, out_channels)

    def reset_parameters(self):
        _reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        if self.padding_mode != "zeros":
            return type(self)._fn(F.pad(input, self._reversed_padding_repeated_twice,
                                        mode=self.padding_mode), self.weight, self.bias,
                                  self.stride, 0, self.dilation, self.groups)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding,
                              self.dilation, self.groups)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class Conv1d(_ConvNd):
    """1-d convolution: (N, C_in, L) or (C_in, L) -> (N, C_out, L_out); ``weight``
    (C_out, C_in / groups, k), ``bias`` (C_out,). See ``nn.functional.conv1d``."""

    _nd = 1
    _fn = F.conv1d


class Conv2d(_ConvNd):
    """2-d convolution: (N, C_in, H, W) or (C_in, H, W) -> (N, C_out, H_out, W_out);
    ``weight`` (C_out, C_in / groups, kH, kW), ``bias`` (C_out,).

    H_out = floor((H + 2 padding - dilation (kH - 1) - 1) / stride + 1) (PyTorch's docs);
    ``padding`` also 'valid' or 'same'; ``padding_mode`` 'zeros', 'reflect', 'replicate' or
    'circular' (the others through ``nn.functional.pad``). Raises RuntimeError in forward for a wrong channel count or an
    input smaller than the kernel (see ``nn.functional.conv2d``).
    """

    _nd = 2
    _fn = F.conv2d


class Conv3d(_ConvNd):
    """3-d convolution: (N, C_in, D, H, W) or (C_in, D, H, W) -> (N, C_out, D_out, H_out,
    W_out); ``weight`` (C_out, C_in / groups, kD, kH, kW). As ``Conv2d`` per dim."""

    _nd = 3
    _fn = F.conv3d
