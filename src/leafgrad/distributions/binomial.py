"""torch.distributions.Binomial (formulas: torch/distributions/binomial.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from ._gamma_kernels import _binomial
from ._binary_params import _BinaryParams, _finish_expand

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_BinaryParams):
    """Binomial(total_count=1, probs=None, logits=None): successes in ``total_count`` trials.

    ``sample`` is ``torch.binomial`` (PyTorch's BTRS / inversion stream).

    Raises:
        ValueError: both or neither of probs / logits; probs outside [0, 1] or a negative
            total_count (with validation on).
    """
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self._set_count_and_binary(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_binary(new, batch_shape)
        return _finish_expand(self, new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = _t.lgamma(self.total_count + 1)
        log_factorial_k = _t.lgamma(value + 1)
        log_factorial_nmk = _t.lgamma(self.total_count - value + 1)
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * _t.log1p(_t.exp(-_t.abs(self.logits)))
                          - log_factorial_n)
        return (value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term)

    def entropy(self):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(_t.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`.")
        values = _t.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
