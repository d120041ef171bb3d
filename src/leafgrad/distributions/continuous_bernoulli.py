"""torch.distributions.ContinuousBernoulli (torch/distributions/continuous_bernoulli.py,
PyTorch 2.13): density C(p) p^x (1 - p)^(1 - x) on [0, 1], with PyTorch's Taylor
expansions inside the unstable region ``lims`` around p = 0.5."""
import math
from numbers import Number

import leafgrad as _t
from leafgrad.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._binary_params import _BinaryParams, _finish_expand
from .distribution import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily, _BinaryParams):
    """ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501)); probs are clamped
    to (eps, 1 - eps). ``rsample`` / ``sample`` are icdf(rand) (PyTorch's stream).

    Raises:
        ValueError: both or neither of probs / logits; probs outside [0, 1] (with
            validation on).
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._set_binary(probs, logits)
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(_t.Size() if is_scalar else self._param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        self._expand_binary(new, _t.Size(batch_shape))
        return _finish_expand(self, new, batch_shape)

    def _outside_unstable_region(self):
        return _t.max(_t.le(self.probs, self._lims[0]), _t.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return _t.where(self._outside_unstable_region(), self.probs,
                        self._lims[0] * _t.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below = _t.where(_t.le(cut, 0.5), cut, _t.zeros_like(cut))
        above = _t.where(_t.ge(cut, 0.5), cut, _t.ones_like(cut))
        log_norm = _t.log(_t.abs(_t.log1p(-cut) - _t.log(cut))) - _t.where(
            _t.le(cut, 0.5), _t.log1p(-2.0 * below), _t.log(2.0 * above - 1.0))
        x = _t.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _t.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (_t.log1p(-cut) - _t.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * _t.pow(x, 2)) * x
        return _t.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return _t.sqrt(self.variance)

    @property
    def variance(self):
        cut = self._cut_probs()
        vars_ = (cut * (cut - 1.0) / _t.pow(1.0 - 2.0 * cut, 2)
                 + 1.0 / _t.pow(_t.log1p(-cut) - _t.log(cut), 2))
        x = _t.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _t.where(self._outside_unstable_region(), vars_, taylor)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def sample(self, sample_shape=_t.Size()):
        u = _t.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with _t.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=_t.Size()):
        return self.icdf(_t.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = ((_t.pow(cut, value) * _t.pow(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = _t.where(self._outside_unstable_region(), cdfs, value)
        return _t.where(_t.le(value, 0.0), _t.zeros_like(value),
                        _t.where(_t.ge(value, 1.0), _t.ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inside = ((_t.log1p(-cut + value * (2.0 * cut - 1.0)) - _t.log1p(-cut))
                  / (_t.log(cut) - _t.log1p(-cut)))
        return _t.where(self._outside_unstable_region(), inside, value)

    def entropy(self):
        log_probs0 = _t.log1p(-self.probs)
        log_probs1 = _t.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        out_unst_reg = _t.max(_t.le(x, self._lims[0] - 0.5), _t.gt(x, self._lims[1] - 0.5))
        cut_nat_params = _t.where(out_unst_reg, x, (self._lims[0] - 0.5) * _t.ones_like(x))
        log_norm = (_t.log(_t.abs(_t.special.expm1(cut_nat_params)))
                    - _t.log(_t.abs(cut_nat_params)))
        taylor = 0.5 * x + _t.pow(x, 2) / 24.0 - _t.pow(x, 4) / 2880.0
        return _t.where(out_unst_reg, log_norm, taylor)
