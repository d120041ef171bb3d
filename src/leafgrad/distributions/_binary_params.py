"""The probs / logits pair shared by Binomial, NegativeBinomial, ContinuousBernoulli and
LogitRelaxedBernoulli (as torch/distributions): exactly one given, the other made lazily."""
import leafgrad as _t

from . import _messages as M
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["_BinaryParams"]


class _BinaryParams(Distribution):

    def _set_binary(self, probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError(M.ONE_OF)

    def _set_count_and_binary(self, total_count, probs, logits):
        """``total_count`` broadcast with the one of probs / logits given, in its dtype."""
        self._set_binary(probs, logits)
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        count, param = broadcast_all(total_count, given)
        self.total_count = count.type_as(param)
        setattr(self, name, param)
        self._param = param

    def _expand_binary(self, new, batch_shape):
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


def _finish_expand(self, new, batch_shape):
    Distribution.__init__(new, _t.Size(batch_shape), validate_args=False)
    new._validate_args = self._validate_args
    return new
