"""torch.distributions.MixtureSameFamily (torch/distributions/mixture_same_family.py,
PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamilyConstraint(constraints.Constraint):
    """The component support checked with the mixture dim added back (all components)."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, constraints.Constraint):
            raise AssertionError("base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        keep = value.dim() - self.event_dim
        return result.reshape(result.shape[:keep] + (-1,)).all(-1)

    def __repr__(self):
        return f"{self.__class__.__name__}({repr(self.base_constraint)})"


def _check_parts(mix, comp):
    if not isinstance(mix, Categorical):
        raise ValueError(" The Mixture distribution needs to be an "
                         " instance of torch.distributions.Categorical")
    if not isinstance(comp, Distribution):
        raise ValueError("The Component distribution needs to be an "
                         "instance of torch.distributions.Distribution")
    mdbs, cdbs = mix.batch_shape, comp.batch_shape[:-1]
    for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
        if size1 != 1 and size2 != 1 and size1 != size2:
            raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                             f"compatible with `component_distribution.batch_shape`({cdbs})")
    km, kc = mix.logits.shape[-1], comp.batch_shape[-1]
    if km != kc:
        raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                         f"`component_distribution.batch_shape[-1]` ({kc})")
    return km, cdbs


class MixtureSameFamily(Distribution):
    """A mixture over the rightmost batch dim of ``component_distribution`` with weights
    ``mixture_distribution`` (a Categorical); ``sample`` draws the mixture index first, then
    every component (PyTorch's order), and gathers.

    Raises:
        ValueError: a mixture that is not a Categorical, a component that is not a
            Distribution, incompatible batch shapes or component counts.
    """
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component, cdbs = _check_parts(mixture_distribution, component_distribution)
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = _t.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return _t.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = _t.sum(probs * self.component_distribution.variance, dim=dim)
        var_cond_mean = _t.sum(
            probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0), dim=dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return _t.sum(cdf_x * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = _t.log_softmax(self.mixture_distribution.logits, dim=-1)
        return _t.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape=_t.Size()):
        with _t.no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = self.event_shape
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = mix_sample.shape
            comp_samples = self.component_distribution.sample(sample_shape)
            mix_sample_r = mix_sample.reshape(mix_shape + _t.Size([1] * (len(es) + 1)))
            mix_sample_r = mix_sample_r.repeat(_t.Size([1] * len(mix_shape)) + _t.Size([1]) + es)
            return _t.gather(comp_samples, gather_dim, mix_sample_r).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = x.shape
        return x.reshape(xs[:-1] + _t.Size(pad_ndims * [1]) + xs[-1:]
                         + _t.Size(self._event_ndims * [1]))

    def __repr__(self):
        return ("MixtureSameFamily(\n  " + f"{self.mixture_distribution},\n  "
                f"{self.component_distribution})")
