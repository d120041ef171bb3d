"""``LayerNorm`` and ``BatchNorm1d/2d/3d``, written with leafgrad tensor ops so gradients flow.

Formulas from the PyTorch docs: y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta with the
biased variance; BatchNorm's running variance is updated with the unbiased one:
running = (1 - momentum) * running + momentum * batch_stat (``momentum=None``: cumulative
average). Running stats are buffers (``running_mean``, ``running_var``,
``num_batches_tracked``), so they appear in ``state_dict``.
"""
import numbers


from ..._tensor import creation as _creation
from ...ops.nn.normalization import rms_norm
from ...ops.nn.normalization import batch_norm, group_norm, layer_norm
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "RMSNorm", "GroupNorm"]


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


class _BatchNorm(Module):
    _expected_dims = (2, 3)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_creation.empty(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(_creation.empty(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", _creation.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            for buf, v in ((self.running_mean, 0), (self.running_var, 1),
                           (self.num_batches_tracked, 0)):
                buf._data[...] = v
                buf._bump_version()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        if input.dim() not in self._expected_dims:
            raise ValueError("expected %s input (got %dD input)" % (
                " or ".join("%dD" % d for d in self._expected_dims), input.dim()))

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        count = (self.training and self.track_running_stats
                 and self.num_batches_tracked is not None)
        if count and self.momentum is None:
            factor = 1.0 / (float(self.num_batches_tracked._data) + 1)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        # batch_norm checks its input before it updates the running stats; the batch is
        # counted only once it went through (a bad input changes nothing, unlike
        # PyTorch, which counts it and then raises)
        out = batch_norm(input, self.running_mean if track else None,
                         self.running_var if track else None, self.weight, self.bias,
                         use_batch, factor, self.eps)
        if count:
            self.num_batches_tracked._data[...] += 1
            self.num_batches_tracked._bump_version()
        return out

    def extra_repr(self):
        return ("%s, eps=%s, momentum=%s, affine=%s, bias=%s, track_running_stats=%s" % (
            self.num_features, self.eps, self.momentum, self.affine, self.bias is not None,
            self.track_running_stats))


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input, per channel C.

    Raises:
        ValueError: for other input ranks, or one value per channel in training.
    """
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input, per channel C."""
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) input, per channel C."""
    _expected_dims = (5,)
