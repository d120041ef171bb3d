"""torch.distributions.Bernoulli (formulas: torch/distributions/bernoulli.py, PyTorch 2.13)."""
from numbers import Number

import leafgrad as _t
from leafgrad.nn import functional as F

from . import constraints
from . import _messages as M
from .distribution import ExponentialFamily, _expand
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """Bernoulli(probs=None, logits=None): 1 with probability ``probs`` (= sigmoid(logits)).

    Exactly one of probs / logits; the other is made on first access (and then shows in
    the repr, as in PyTorch). ``sample`` is ``torch.bernoulli(probs)`` (PyTorch's stream);
    ``log_prob`` is -binary_cross_entropy_with_logits(logits, value).

    Raises:
        ValueError: both or neither of probs / logits; probs outside [0, 1] (validation on).
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError(M.ONE_OF)
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = _t.Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = _expand(self, Bernoulli, batch_shape, _instance, ("probs", "logits"))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = _t.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (_t.logit(self.probs),)

    def _log_normalizer(self, x):
        return _t.log1p(_t.exp(x))
