"""torch.distributions.Dirichlet (formulas: torch/distributions/dirichlet.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from ._gamma_kernels import _sample_dirichlet
from .distribution import ExponentialFamily, _expand

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): distributions on the simplex of the last dim (event shape).

    ``rsample`` is ``_sample_dirichlet`` (PyTorch's stream: float64 gammas normalised) with
    PyTorch's implicit-reparameterisation gradient (``_dirichlet_grad``).

    Raises:
        ValueError: concentration of dim < 1 or with entries <= 0 (with validation on).
    """
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand(self, Dirichlet, batch_shape, _instance, ("concentration",),
                       self.event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (_t.xlogy(self.concentration - 1.0, value).sum(-1)
                + _t.lgamma(self.concentration.sum(-1)) - _t.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = _t.nn.functional.one_hot(
            mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (_t.lgamma(self.concentration).sum(-1) - _t.lgamma(a0)
                - (k - a0) * _t.digamma(a0)
                - ((self.concentration - 1.0) * _t.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - _t.lgamma(x.sum(-1))
