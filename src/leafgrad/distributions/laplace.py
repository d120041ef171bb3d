"""torch.distributions.Laplace (formulas: torch/distributions/laplace.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from .distribution import Distribution, _expand
from .utils import _set_params, finfo

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale).

    ``rsample`` inverts the cdf at u drawn by ``uniform_(eps - 1, 1)`` (PyTorch's stream).

    Raises:
        ValueError: scale <= 0 (with validation on).
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        batch_shape = _set_params(self, loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Laplace, batch_shape, _instance, ("loc", "scale"))

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        eps = float(finfo(self.loc.dtype).eps)
        u = self.loc.new(shape).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * _t.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -_t.log(2 * self.scale) - _t.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * _t.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _t.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + _t.log(2 * self.scale)
