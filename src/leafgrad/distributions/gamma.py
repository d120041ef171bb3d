"""torch.distributions.Gamma (formulas: torch/distributions/gamma.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from ._gamma_kernels import _standard_gamma
from .distribution import ExponentialFamily, _expand
from .utils import _set_params, finfo

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Gamma(a) on x > 0.

    ``rsample`` is ``_standard_gamma(concentration) / rate`` (PyTorch's Marsaglia-Tsang stream),
    with implicit-reparameterisation gradients, clamped to the dtype's tiny.

    Raises:
        ValueError: concentration or rate <= 0 (with validation on).
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        batch_shape = _set_params(self, concentration=concentration, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Gamma, batch_shape, _instance, ("concentration", "rate"))

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=float(finfo(value.dtype).tiny))
        return value

    def log_prob(self, value):
        value = _t.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (_t.xlogy(self.concentration, self.rate) + _t.xlogy(self.concentration - 1, value)
                - self.rate * value - _t.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - _t.log(self.rate) + _t.lgamma(self.concentration)
                + (1.0 - self.concentration) * _t.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _t.lgamma(x + 1) + (x + 1) * _t.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.special.gammainc(self.concentration, self.rate * value)
