"""torch.distributions.Poisson (formulas: torch/distributions/poisson.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from .distribution import ExponentialFamily, _expand
from .utils import _set_params, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson(rate): counts k >= 0 with pmf rate^k exp(-rate) / k!.

    ``sample`` is ``torch.poisson(rate)`` (PyTorch's stream); log_prob is
    k log(rate) - rate - lgamma(k + 1).

    Raises:
        ValueError: rate < 0 (with validation on).
    """
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def __init__(self, rate, validate_args=None):
        batch_shape = _set_params(self, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Poisson, batch_shape, _instance, ("rate",))

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (_t.log(self.rate),)

    def _log_normalizer(self, x):
        return _t.exp(x)
