"""The folding shared by HalfNormal and HalfCauchy (|X| for X symmetric about 0): log_prob
doubles the base density on x >= 0 (-inf below), cdf 2 F(x) - 1, icdf F^-1((p + 1) / 2)."""
import math

import leafgrad as _t

from . import constraints
from .transformed_distribution import TransformedDistribution

__all__ = ["_Folded"]


class _Folded(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return _t.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = _t.as_tensor(value, dtype=self.base_dist.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _t.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
