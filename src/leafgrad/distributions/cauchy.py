"""torch.distributions.Cauchy (formulas: torch/distributions/cauchy.py, PyTorch 2.13)."""
import math

import leafgrad as _t

from . import constraints
from .distribution import Distribution, _expand
from .utils import _set_params

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2)).

    ``rsample`` is loc + scale * eps with eps from ``cauchy_()`` (PyTorch's stream).

    Raises:
        ValueError: scale <= 0 (with validation on).
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        batch_shape = _set_params(self, loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return _t.full(self._extended_shape(), float("nan"), dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return _t.full(self._extended_shape(), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        eps = self.loc.new(shape).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return _t.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
