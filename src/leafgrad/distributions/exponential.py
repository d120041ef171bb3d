"""torch.distributions.Exponential (formulas: torch/distributions/exponential.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from .distribution import ExponentialFamily, _expand
from .utils import _set_params

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential(rate): density rate * exp(-rate x) on x >= 0.

    ``rsample`` is ``exponential_()`` / rate (PyTorch's stream).

    Raises:
        ValueError: rate <= 0 (with validation on).
    """
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _t.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def __init__(self, rate, validate_args=None):
        batch_shape = _set_params(self, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Exponential, batch_shape, _instance, ("rate",))

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        return self.rate.new(shape).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _t.exp(-self.rate * value)

    def icdf(self, value):
        return -_t.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - _t.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -_t.log(-x)
