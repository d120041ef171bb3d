"""``LayerNorm``, ``GroupNorm``, ``RMSNorm``, ``LocalResponseNorm`` and ``CrossMapLRN2d``
(as ``torch.nn``), written with leafgrad tensor ops so gradients flow (the batch norms are
in ``batchnorm.py``, the instance norms in ``instancenorm.py``, as PyTorch's files).

Formulas from the PyTorch docs: y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta with the
biased variance over the normalised dims.
"""
import numbers


from ..._tensor import creation as _creation
from ...ops.nn.normalization import batch_norm, group_norm, layer_norm, rms_norm
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _affine_params(module, affine, bias, shape, dtype):
    """``weight`` and ``bias`` Parameters of ``shape`` (registered as None when absent)."""
    if affine:
        module.weight = Parameter(_creation.empty(*shape, dtype=dtype))
        if bias:
            module.bias = Parameter(_creation.empty(*shape, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    """weight = 1, bias = 0 (those present)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalise over the last ``len(normalized_shape)`` dims.

    Shapes: input (*, *normalized_shape) -> same shape; weight/bias ``normalized_shape``.

    Raises:
        RuntimeError: when the input's trailing dims are not ``normalized_shape``.
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_params(self, elementwise_affine, bias, self.normalized_shape, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "%s, eps=%s, elementwise_affine=%s, bias=%s" % (
            self.normalized_shape, self.eps, self.elementwise_affine, self.bias is not None)


class GroupNorm(Module):
    """Normalise each sample over groups of ``num_channels // num_groups`` channels (and
    all spatial dims), then scale and shift per channel (``affine``).

    Shapes: input (N, C, *) -> same shape; weight/bias (C,).

    Raises:
        ValueError: ``num_channels`` not divisible by ``num_groups``.
    """

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels (%s) must be divisible by num_groups (%s)"
                             % (num_channels, num_groups))
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_params(self, affine, bias, (num_channels,), dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "%s, %s, eps=%s, affine=%s, bias=%s" % (
            self.num_groups, self.num_channels, self.eps, self.affine, self.bias is not None)


class RMSNorm(Module):
    """y = x / sqrt(mean(x^2) + eps) * weight over the last dims (``eps=None``: dtype's eps)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_creation.ones(*self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "%s, eps=%s, elementwise_affine=%s" % (self.normalized_shape, self.eps,
                                                      self.elementwise_affine)


class _LRN(Module):
    """size, alpha, beta, k and the repr shared by the two LRN layers."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha, beta, k):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class LocalResponseNorm(_LRN):
    """``F.local_response_norm`` over the channels of (N, C, *)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)


class CrossMapLRN2d(_LRN):
    """Lua Torch's cross-channel LRN over (N, C, H, W) (``ops.nn.local_response_norm``: PyTorch's
    numbers, and its backward formula)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        from ...ops.nn.local_response_norm import cross_map_lrn2d
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)
