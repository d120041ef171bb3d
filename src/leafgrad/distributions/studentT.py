"""torch.distributions.StudentT (formulas: torch/distributions/studentT.py, PyTorch 2.13)."""
import math

import leafgrad as _t

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution, _expand
from .utils import _set_params, _standard_normal

__all__ = ["StudentT"]


class StudentT(Distribution):
    """StudentT(df, loc=0., scale=1.): Student's t with ``df`` degrees of freedom.

    ``rsample`` draws X ~ Normal(0, 1) then Z ~ Chi2(df) (PyTorch's order) and returns
    loc + scale * X * rsqrt(Z / df).

    Raises:
        ValueError: df or scale <= 0 (with validation on).
    """
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        m = self.loc.clone()
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        m = self.df.clone()
        m[self.df > 2] = (self.scale[self.df > 2].pow(2) * self.df[self.df > 2]
                          / (self.df[self.df > 2] - 2))
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        batch_shape = _set_params(self, df=df, loc=loc, scale=scale)
        self._chi2 = Chi2(self.df)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = _expand(self, StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype)
        Z = self._chi2.rsample(sample_shape)
        Y = X * _t.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + _t.lgamma(0.5 * self.df) - _t.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * _t.log1p(y ** 2.0 / self.df) - Z

    def entropy(self):
        lbeta = (_t.lgamma(0.5 * self.df) + math.lgamma(0.5) - _t.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log() + 0.5 * (self.df + 1)
                * (_t.digamma(0.5 * (self.df + 1)) - _t.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
