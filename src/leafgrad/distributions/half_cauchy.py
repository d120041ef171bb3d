"""torch.distributions.HalfCauchy (torch/distributions/half_cauchy.py, PyTorch 2.13)."""
import math

import leafgrad as _t

from ._folded import _Folded
from .cauchy import Cauchy
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """|X| for X ~ Cauchy(0, scale) (mean inf).

    Raises:
        ValueError: scale <= 0 (with validation on).
    """

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _t.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
