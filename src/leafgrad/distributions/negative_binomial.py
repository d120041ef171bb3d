"""torch.distributions.NegativeBinomial (torch/distributions/negative_binomial.py,
PyTorch 2.13)."""
import leafgrad as _t
import leafgrad.nn.functional as F

from . import constraints
from ._binary_params import _BinaryParams, _finish_expand
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryParams):
    """Failures before ``total_count`` successes, success probability ``probs``; drawn as
    Poisson(Gamma(total_count, exp(-logits))) (PyTorch's gamma then poisson streams).

    Raises:
        ValueError: both or neither of probs / logits; total_count < 0 or probs outside
            [0, 1) (with validation on).
    """
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._set_count_and_binary(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_binary(new, batch_shape)
        return _finish_expand(self, new, batch_shape)

    @property
    def mean(self):
        return self.total_count * _t.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / _t.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=_t.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=_t.Size()):
        with _t.no_grad():
            return _t.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * F.logsigmoid(-self.logits)
                                 + value * F.logsigmoid(self.logits))
        log_normalization = (-_t.lgamma(self.total_count + value) + _t.lgamma(1.0 + value)
                             + _t.lgamma(self.total_count))
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
