"""torch.distributions.LKJCholesky (torch/distributions/lkj_cholesky.py, PyTorch 2.13):
Cholesky factors of correlation matrices, density ~ det(L L^T)^(concentration - 1), drawn
by the onion method (a Beta draw per row, then ``randn`` directions: PyTorch's order)."""
import math

import leafgrad as _t

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, finfo

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=1.0): event shape (dim, dim).

    Raises:
        ValueError: dim < 2; concentration <= 0 (with validation on).
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = _t.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = _t.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), _t.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _t.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_t.Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = _t.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :].fill_(0.0)
        w = _t.sqrt(y) * u_hypersphere
        tiny = float(finfo(w.dtype).tiny)
        diag_elems = _t.clamp(1 - _t.sum(w ** 2, dim=-1), min=tiny).sqrt()
        return w + _t.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = _t.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = _t.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize_term = (0.5 * dm1 * math.log(math.pi) + _t.mvlgamma(alpha - 0.5, dm1)
                          - _t.lgamma(alpha) * dm1)
        return unnormalized_log_pdf - normalize_term
