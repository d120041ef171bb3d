"""Lazy layers (as ``torch.nn``): ``LazyLinear``, ``LazyConv1d/2d/3d``,
``LazyConvTranspose1d/2d/3d``, ``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``, and
``UninitializedParameter`` / ``UninitializedBuffer``.

A lazy layer's input size is read from its first input; until then its parameters are
``UninitializedParameter`` (no data). The first call materialises them with that size,
initialises them by the layer's own ``reset_parameters`` (the same ``nn.init`` calls as
the eager layer, so one random stream gives the same weights), and turns the module into
its eager class (``Linear``, ``Conv2d``, ...: PyTorch's ``cls_to_become``). The
parameter objects stay the same, so an optimizer built before the first call keeps
working.
"""
import numpy as np

from ..._tensor.tensor import Tensor
from ..parameter import Parameter
from .conv import Conv1d, Conv2d, Conv3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .normalization_more import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet; ``materialize(shape)`` gives it data
    (uninitialised memory, as ``torch.empty``) and makes it a plain ``Parameter``."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        p = Parameter.__new__(cls, None, requires_grad)
        if dtype is not None:
            from ..._core.dtype import to_dtype
            p._data = p._data.astype(to_dtype(dtype).np)
        return p

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(None, requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        dt = self._data.dtype if dtype is None else dtype.np
        self._data = np.empty(tuple(shape), dt)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (``torch.nn.UninitializedBuffer``);
    ``materialize(shape)`` gives it data and makes it a plain ``Tensor``."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from ..._core.dtype import to_dtype
        from ..._core.dtype import get_default_dtype
        dt = to_dtype(dtype).np if dtype is not None else get_default_dtype().np
        t = Tensor._make_plain(np.empty((0,), dt))
        t.__class__ = cls
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def materialize(self, shape, device=None, dtype=None):
        dt = self._data.dtype if dtype is None else dtype.np
        self._data = np.empty(tuple(shape), dt)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedBuffer>"

    __str__ = __repr__


def _has_uninitialized(module):
    return any(isinstance(p, UninitializedParameter) for p in module._parameters.values()
               if p is not None)


class _LazyMixin:
    """``forward`` of the first call: infer sizes, materialise, become the eager class."""

    cls_to_become = None

    def has_uninitialized_params(self):
        return _has_uninitialized(self)

    def forward(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
        self.__class__ = self.cls_to_become
        return self.forward(*args, **kwargs)


def _uninit(module, names, bias, dtype):
    for name in names:
        if name == "bias" and not bias:
            module.register_parameter("bias", None)
        else:
            setattr(module, name, UninitializedParameter(dtype=dtype))


class LazyLinear(_LazyMixin, Linear):
    """``Linear`` whose ``in_features`` is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        _uninit(self, ("weight", "bias"), bias, dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        self.in_features = input.shape[-1]
        self.weight.materialize((self.out_features, self.in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        self.reset_parameters()


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


class _LazyBatchNormMixin(_LazyMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        Module.__init__(self)
        self.num_features = 0
        self.eps, self.momentum, self.affine = eps, momentum, affine
        self.track_running_stats = track_running_stats
        if affine:
            _uninit(self, ("weight", "bias"), True, dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        from ..._tensor import creation as _creation
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(0))
            self.register_buffer("running_var", _creation.zeros(0))
            self.register_buffer("num_batches_tracked", _creation.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def initialize_parameters(self, input):
        from ..._tensor import creation as _creation
        self.num_features = input.shape[1]
        if self.affine:
            self.weight.materialize((self.num_features,))
            self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean = _creation.zeros(self.num_features)
            self.running_var = _creation.ones(self.num_features)
        self.reset_parameters()

    def has_uninitialized_params(self):
        return self.num_features == 0


def _lazy_bn(name, eager):
    doc = "``%s`` whose ``num_features`` is read from the first input." % eager.__name__
    return type(name, (_LazyBatchNormMixin, eager), {"cls_to_become": eager, "__doc__": doc,
                                                    "__module__": __name__})


LazyBatchNorm1d = _lazy_bn("LazyBatchNorm1d", BatchNorm1d)
LazyBatchNorm2d = _lazy_bn("LazyBatchNorm2d", BatchNorm2d)
LazyBatchNorm3d = _lazy_bn("LazyBatchNorm3d", BatchNorm3d)
LazyInstanceNorm1d = _lazy_bn("LazyInstanceNorm1d", InstanceNorm1d)
LazyInstanceNorm2d = _lazy_bn("LazyInstanceNorm2d", InstanceNorm2d)
LazyInstanceNorm3d = _lazy_bn("LazyInstanceNorm3d", InstanceNorm3d)
