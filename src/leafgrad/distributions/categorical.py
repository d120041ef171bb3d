"""torch.distributions.Categorical (formulas: torch/distributions/categorical.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from . import _messages as M
from .distribution import Distribution, _expand
from .utils import finfo, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical(probs=None, logits=None): an index in [0, K) with the last dim's weights.

    ``probs`` is normalised to sum 1 over the last dim, ``logits`` to logsumexp 0; the batch
    shape is the parameter's shape less its last dim. ``sample`` draws through
    ``torch.multinomial(probs_2d, n, True).T`` (PyTorch's stream).

    Raises:
        ValueError: both or neither of probs / logits; a 0-d parameter; probs off the simplex
            (validation on).
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(
        constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError(M.ONE_OF)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else _t.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = _expand(self, Categorical, batch_shape, _instance, ("probs", "logits"),
                      (self._num_events,))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        new._num_events = self._num_events
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return _t.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return _t.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=_t.Size()):
        if not isinstance(sample_shape, _t.Size):
            sample_shape = _t.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = _t.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = _t.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = float(finfo(self.logits.dtype).min)
        logits = _t.clamp(self.logits, min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = _t.arange(self._num_events, dtype=_t.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
