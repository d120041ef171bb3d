"""``Identity``, ``Linear``, ``Bilinear``, ``LazyLinear`` (as ``torch.nn``) and
``NonDynamicallyQuantizableLinear`` (``MultiheadAttention.out_proj``).

Default initialisation as PyTorch's ``reset_parameters``: weight by
``kaiming_uniform_(a=sqrt(5))`` = U(-1/sqrt(in), 1/sqrt(in)), bias U(-1/sqrt(in), 1/sqrt(in)).
"""
import math

from ..._tensor import creation as _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .lazy import _LazyMixin, _uninit
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


def _factory(shape, dtype):
    return _creation.empty(*shape, dtype=dtype)


def _weight_and_bias(module, shape, bias, dtype, bias_size=None):
    """``module.weight`` of ``shape`` and ``module.bias`` of (shape[0],) (or
    (bias_size,); None without ``bias``), initialised by ``module.reset_parameters()``."""
    module.weight = Parameter(_factory(shape, dtype))
    if bias:
        module.bias = Parameter(_factory(shape[:1] if bias_size is None else (bias_size,),
                                         dtype))
    else:
        module.register_parameter("bias", None)
    module.reset_parameters()


def _reset_weight_and_bias(weight, bias):
    """PyTorch's init for Linear and Conv: kaiming_uniform_(a=sqrt(5)) for the weight,
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    """Returns its input unchanged (any arguments to the constructor are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b.

    Shapes: input (*, in_features) -> output (*, out_features); ``weight``
    (out_features, in_features), ``bias`` (out_features,).
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        _weight_and_bias(self, (out_features, in_features), bias, dtype)

    def reset_parameters(self):
        _reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features=%s, out_features=%s, bias=%s" % (
            self.in_features, self.out_features, self.bias is not None)




class Bilinear(Module):
    """y = x1^T A x2 + b.

    Shapes: input1 (*, in1), input2 (*, in2) -> (*, out); weight (out, in1, in2).
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_factory((out_features, in1_features, in2_features), dtype))
        if bias:
            self.bias = Parameter(_factory((out_features,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return "in1_features=%s, in2_features=%s, out_features=%s, bias=%s" % (
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name PyTorch gives ``MultiheadAttention.out_proj`` (its repr)."""


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
