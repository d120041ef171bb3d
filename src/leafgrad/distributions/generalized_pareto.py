"""torch.distributions.GeneralizedPareto (torch/distributions/generalized_pareto.py,
PyTorch 2.13)."""
import math
from numbers import Number, Real

import leafgrad as _t

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """GPD(loc, scale, concentration); the concentration 0 case is the shifted exponential
    (``isclose(concentration, 0)`` as PyTorch). ``rsample`` is icdf(rand).

    Raises:
        ValueError: scale <= 0 (with validation on).
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = all(isinstance(v, Number) for v in (loc, scale, concentration))
        super().__init__(_t.Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = _t.Size(batch_shape)
        for name in ("loc", "scale", "concentration"):
            setattr(new, name, getattr(self, name).expand(batch_shape))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_t.rand(shape, dtype=self.loc.dtype))

    def _safe(self):
        eq_zero = _t.isclose(self.concentration, _t.tensor(0.0))
        return eq_zero, _t.where(eq_zero, _t.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        y = 1 / safe_conc + _t.ones_like(z)
        where_nonzero = _t.where(y == 0, y, y * _t.log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - _t.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        return _t.where(eq_zero, -z, -_t.log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value):
        return _t.log1p(-_t.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return _t.exp(self.log_cdf(value))

    def icdf(self, value):
        conc = self.concentration
        eq_zero = _t.isclose(conc, _t.zeros_like(conc))
        safe_conc = _t.where(eq_zero, _t.ones_like(conc), conc)
        logu = _t.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * _t.expm1(-safe_conc * logu)
        return _t.where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = _t.where(valid, self.concentration, 0.5)
        return _t.where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = _t.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return _t.where(valid, result, math.nan)

    def entropy(self):
        return _t.broadcast_to(_t.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = _t.where(self.concentration < 0, lower - self.scale / self.concentration,
                         math.inf)
        return constraints.interval(lower, upper)
