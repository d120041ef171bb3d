"""``InstanceNorm1d/2d/3d``, ``LocalResponseNorm``, ``CrossMapLRN2d`` (as ``torch.nn``); ``EmbeddingBag`` is in
``sparse_more.py``. Constructor arguments, buffers, reprs and checks PyTorch's."""

from .. import functional as F
from .module import Module
from .normalization import _BatchNorm
from ..._core import errors as _errors

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm",
           "CrossMapLRN2d"]


class _InstanceNorm(_BatchNorm):
    _no_batch_dim = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def _check_input_dim(self, input):
        if input.dim() not in (self._no_batch_dim, self._no_batch_dim + 1):
            raise ValueError("expected %dD or %dD input (got %dD input)"
                             % (self._no_batch_dim, self._no_batch_dim + 1, input.dim()))

    def _apply(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError("expected input's size at dim=%d to match num_features (%d), but "
                                 "got: %d." % (feature_dim, self.num_features,
                                               input.shape[feature_dim]))
            _errors.warn("input's size at dim=%d does not match num_features. You can silence "
                         "this warning by not passing in num_features, which is not used "
                         "because affine=False" % feature_dim)
        if input.dim() == self._no_batch_dim:
            return self._apply(input.unsqueeze(0)).squeeze(0)
        return self._apply(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of (N, C, L) or (C, L): each (sample, channel) over L."""
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of (N, C, H, W) or (C, H, W): each (sample, channel) over (H, W)."""
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of (N, C, D, H, W) or (C, D, H, W)."""
    _no_batch_dim = 4


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
    """Lua Torch's cross-channel LRN over (N, C, H, W) (``ops.nn.cross_map_lrn``: PyTorch's
    numbers, and its backward formula)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        from ...ops.nn.local_response_norm import cross_map_lrn2d
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)
