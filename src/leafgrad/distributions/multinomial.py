"""torch.distributions.Multinomial (formulas: torch/distributions/multinomial.py, 2.13)."""
import leafgrad as _t

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all, probs_to_logits

__all__ = ["Multinomial"]


def _binomial_log_prob(total_count, probs, value):
    """Binomial(total_count, probs).log_prob(value) as torch/distributions/binomial.py:
    value logit - lgamma(k+1) - lgamma(n-k+1) - (n max(logit, 0) + n log1p(e^-|logit|)
    - lgamma(n+1))."""
    total_count, probs = broadcast_all(total_count, probs)
    logits = probs_to_logits(probs, is_binary=True)
    clamp_by_zero = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
    normalize_term = (total_count * clamp_by_zero
                      + total_count * _t.log1p(_t.exp(-_t.abs(logits)))
                      - _t.lgamma(total_count + 1))
    return (value * logits - _t.lgamma(value + 1) - _t.lgamma(total_count - value + 1)
            - normalize_term)


class Multinomial(Distribution):
    """Multinomial(total_count=1, probs=None, logits=None): counts of ``total_count`` draws
    of a Categorical over the last dim (event shape (K,)).

    ``sample`` is total_count Categorical draws (PyTorch's stream) counted by scatter_add_.

    Raises:
        NotImplementedError: a total_count that is not an int.
        ValueError: as :class:`Categorical`; a negative total_count (its Binomial's
        constraint, as PyTorch).
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        # as PyTorch: the Binomial marginal, made with the default validation (so a
        # negative total_count raises its ValueError even under validate_args=False)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = _t.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=_t.Size()):
        sample_shape = _t.Size(sample_shape)
        samples = self._categorical.sample(_t.Size((self.total_count,) + tuple(sample_shape)))
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = samples.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, samples, _t.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        n = _t.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - _t.lgamma(n + 1)
        # the binomial marginals' support 1..n, shaped (n, 1, ..., 1) against probs
        support = _t.arange(1 + self.total_count, dtype=self.probs.dtype)
        support = support.view((-1,) + (1,) * self.probs.dim())[1:]
        binomial_probs = _t.exp(_binomial_log_prob(float(self.total_count), self.probs, support))
        term2 = (binomial_probs * _t.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = _t.lgamma(value.sum(-1) + 1)
        log_factorial_xs = _t.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -float("inf"))] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
