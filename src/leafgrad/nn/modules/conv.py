"""``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d`` and ``LazyConv1d/2d/3d``,
``LazyConvTranspose1d/2d/3d`` (as ``torch.nn``).

Default initialisation as PyTorch's ``_ConvNd.reset_parameters``: weight by
``kaiming_uniform_(a=sqrt(5))`` = U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in =
in_channels / groups * prod(kernel_size), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

Transposed: weight (in_channels, out_channels / groups, *kernel_size), bias
(out_channels,); fan_in computed from that weight (out_channels / groups * prod(k)).
``forward(input, output_size=None)``: ``output_size`` picks the output_padding that gives
that size, as PyTorch's ``_ConvTransposeNd._output_padding``.

Lazy: ``in_channels`` is read from the first input (see ``lazy.py``).
"""
from .. import functional as F
from .lazy import _LazyMixin, _uninit
from .linear import _reset_weight_and_bias, _weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]


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


class _LazyConvMixin(_LazyMixin):
    def _lazy_init(self, eager, out_channels, kernel_size, stride, padding, output_padding,
                   groups, bias, dilation, padding_mode, dtype):
        # the eager constructor with one input channel per group checks the arguments and
        # sets every attribute; its weight is then replaced (no random numbers drawn yet)
        Module.__init__(self)
        kwargs = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                      bias=bias, padding_mode=padding_mode)
        if output_padding is not None:
            kwargs["output_padding"] = output_padding
        probe = _probe_class(eager)(groups, out_channels, kernel_size, **kwargs)
        for k, v in probe.__dict__.items():
            if k not in ("_parameters", "_buffers", "_modules", "_non_persistent_buffers_set"):
                self.__dict__[k] = v
        self.in_channels = 0
        _uninit(self, ("weight", "bias"), bias, dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        nd = len(self.kernel_size)
        self.in_channels = input.shape[0] if input.dim() == nd + 1 else input.shape[1]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups)
        else:
            shape = (self.out_channels, self.in_channels // self.groups)
        self.weight.materialize(shape + tuple(self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


_PROBES = {}


def _probe_class(eager):
    """``eager`` with a ``reset_parameters`` that draws nothing (its weights are dropped)."""
    cls = _PROBES.get(eager)
    if cls is None:
        cls = _PROBES[eager] = type("_Probe" + eager.__name__, (eager,),
                                    {"reset_parameters": lambda self: None})
    return cls


def _lazy_conv(name, eager, transposed):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *rest, **kw):
        names = (["output_padding", "groups", "bias", "dilation"] if transposed else
                 ["dilation", "groups", "bias"]) + ["padding_mode", "device", "dtype"]
        args = dict(zip(names, rest))
        args.update(kw)
        self._lazy_init(eager, out_channels, kernel_size, stride, padding,
                        args.get("output_padding", 0) if transposed else None,
                        args.get("groups", 1), args.get("bias", True), args.get("dilation", 1),
                        args.get("padding_mode", "zeros"), args.get("dtype"))
    doc = "``%s`` whose ``in_channels`` is read from the first input." % eager.__name__
    return type(name, (_LazyConvMixin, eager), {"__init__": __init__, "cls_to_become": eager,
                                               "__doc__": doc, "__module__": __name__})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, False)


LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, False)


LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, False)


LazyConvTranspose1d = _lazy_conv("LazyConvTranspose1d", ConvTranspose1d, True)


LazyConvTranspose2d = _lazy_conv("LazyConvTranspose2d", ConvTranspose2d, True)


LazyConvTranspose3d = _lazy_conv("LazyConvTranspose3d", ConvTranspose3d, True)
