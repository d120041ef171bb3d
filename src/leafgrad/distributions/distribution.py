"""torch.distributions.Distribution: the base class (shapes, validation, repr).

Follows torch/distributions/distribution.py (PyTorch 2.13): ``sample`` is ``rsample``
under no_grad, ``_extended_shape`` is sample_shape + batch_shape + event_shape,
parameters are checked against ``arg_constraints`` when validation is on (the default,
off under ``python -O``), values against ``support`` in ``log_prob``.
"""
import warnings

import leafgrad as _t

from . import constraints
from . import _messages as M
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Abstract base class for probability distributions.

    Attributes: ``batch_shape`` and ``event_shape`` (torch.Size), ``has_rsample``,
    ``has_enumerate_support``, ``arg_constraints`` (parameter name -> Constraint), ``support``.
    """
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument / sample validation on or off for all distributions.

        Raises:
            ValueError: ``value`` is not True or False.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_t.Size(), event_shape=_t.Size(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    "%s does not define `arg_constraints`. Please set `arg_constraints = {}` or "
                    "initialize the distribution with `validate_args=False` to turn off "
                    "validation." % type(self), stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue        # a lazily made parameter is not checked
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(M.BAD_PARAMETER.format(
                        param=param, kind=type(value).__name__, shape=tuple(value.shape),
                        dist=repr(self), constraint=repr(constraint), value=value))
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with its batch dims expanded to ``batch_shape`` (views of the
        parameters; no new checks)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError("%s does not implement mode" % type(self))

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=_t.Size()):
        """A draw of shape sample_shape + batch_shape + event_shape, without gradient."""
        with _t.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_t.Size()):
        """A reparameterized draw (gradients flow to the parameters)."""
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning,
                      stacklevel=2)
        return self.sample(_t.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return _t.exp(self.entropy())

    def _extended_shape(self, sample_shape=_t.Size()):
        if not isinstance(sample_shape, _t.Size):
            sample_shape = _t.Size(sample_shape)
        return _t.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Raise ValueError unless ``value`` is a tensor broadcastable with batch_shape +
        event_shape, with event_shape rightmost, and inside the support."""
        if not isinstance(value, _t.Tensor):
            raise ValueError(M.NOT_TENSOR)
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(M.EVENT_SHAPE.format(value.size(), self._event_shape))
        actual_shape = value.size()
        expected_shape = _t.Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(M.NOT_BROADCASTABLE.format(actual_shape, expected_shape))
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                "%s does not define `support` to enable sample validation. Please initialize "
                "the distribution with `validate_args=False` to turn off validation."
                % type(self), stacklevel=2)
            return
        if not bool(support.check(value).all()):
            raise ValueError(M.OUT_OF_SUPPORT.format(
                kind=type(value).__name__, shape=tuple(value.shape), support=repr(support),
                dist=repr(self), value=value))

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(M.CUSTOM_INIT.format(type(self).__name__, cls.__name__))
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join("%s: %s" % (p, format(self.__dict__[p]) if self.__dict__[p].numel() == 1
                                     else self.__dict__[p].size()) for p in names)
        return type(self).__name__ + "(" + args + ")"


class ExponentialFamily(Distribution):
    """Distributions with density exp(<t(x), theta> - F(theta) + k(x)).

    ``entropy`` here is the Bregman form of PyTorch's exp_family.py: F(theta) - <theta,
    grad F(theta)> - E[k(x)], with grad F by autograd (families override it with their
    closed forms); ``kl_divergence`` of two of the same family uses the same idea.
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def _bregman(self):
        """The detached natural parameters (requiring grad), F at them and grad F."""
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = _t.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        return nparams, lg_normal, gradients

    def entropy(self):
        nparams, lg_normal, gradients = self._bregman()
        result = -self._mean_carrier_measure + lg_normal
        for p, g in zip(nparams, gradients):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result


def _expand(self, cls, batch_shape, _instance, names, param_shape=()):
    """``expand`` of a distribution whose parameters ``names`` (those present) all have
    shape batch_shape + param_shape: views of each, no new validation."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = _t.Size(batch_shape)
    shape = _t.Size(tuple(batch_shape) + tuple(param_shape))
    for name in names:
        if name in self.__dict__:
            setattr(new, name, self.__dict__[name].expand(shape))
    Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new
