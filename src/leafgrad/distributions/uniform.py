"""torch.distributions.Uniform (formulas: torch/distributions/uniform.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from .distribution import Distribution, _expand
from .utils import _set_params

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform(low, high): uniform on the half-open interval [low, high).

    ``rsample`` is low + rand * (high - low) with ``torch.rand`` (PyTorch's stream).

    Raises:
        ValueError: low >= high anywhere (with validation on: low's constraint is
            less_than(high)).
    """
    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return float("nan") * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low, high, validate_args=None):
        batch_shape = _set_params(self, low=low, high=high)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        rand = _t.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return _t.log(lb.mul(ub)) - _t.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return _t.log(self.high - self.low)
