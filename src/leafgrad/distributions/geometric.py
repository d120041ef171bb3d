"""torch.distributions.Geometric (formulas: torch/distributions/geometric.py, PyTorch 2.13)."""
from numbers import Number

import leafgrad as _t
from leafgrad.nn import functional as F

from . import constraints
from . import _messages as M
from .distribution import Distribution, _expand
from .utils import broadcast_all, finfo, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Geometric(probs=None, logits=None): the number of failures before the first success
    of Bernoulli(probs) trials.

    ``sample`` is floor(log(u) / log1p(-probs)) with u from ``uniform_(tiny, 1)``.

    Raises:
        ValueError: both or neither of probs / logits; probs outside (0, 1] (validation on).
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError(M.ONE_OF)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        batch_shape = _t.Size() if isinstance(given, Number) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    "Expected parameter probs (%s of shape %s) of distribution %r to be "
                    "positive but found invalid values:\n%s\nFix: pass probs in (0, 1]."
                    % (type(value).__name__, tuple(value.shape), self, value.data[~valid]))

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _t.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        tiny = float(finfo(self.probs.dtype).tiny)
        with _t.no_grad():
            u = self.probs.new(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs
