"""torch.distributions.LowRankMultivariateNormal
(torch/distributions/lowrank_multivariate_normal.py, PyTorch 2.13): covariance
cov_factor @ cov_factor.T + diag(cov_diag), with log_prob and entropy through the
capacitance matrix I + W^T D^-1 W (Woodbury and the matrix determinant lemma)."""
import math

import leafgrad as _t

from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity(K):
    return K + _t.eye(K.shape[-1], dtype=K.dtype)


def _batch_capacitance_tril(W, D):
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return _t.linalg.cholesky(_plus_identity(_t.matmul(Wt_Dinv, W)))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


def _check_shapes(loc, cov_factor, cov_diag):
    if loc.dim() < 1:
        raise ValueError("loc must be at least one-dimensional.")
    event_shape = loc.shape[-1:]
    if cov_factor.dim() < 2:
        raise ValueError("cov_factor must be at least two-dimensional, "
                         "with optional leading batch dimensions")
    if cov_factor.shape[-2:-1] != event_shape:
        raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
    if cov_diag.shape[-1:] != event_shape:
        raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
    return event_shape


class LowRankMultivariateNormal(Distribution):
    """Multivariate normal with low-rank-plus-diagonal covariance.

    Raises:
        ValueError: loc of dim < 1, cov_factor of dim < 2 or rows != event size, cov_diag of
            the wrong size, or batch shapes that do not broadcast.
    """
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        event_shape = _check_shapes(loc, cov_factor, cov_diag)
        try:
            loc_, self.cov_factor, cov_diag_ = _t.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = _t.Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        for name in ("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag",
                     "_capacitance_tril"):
            setattr(new, name, getattr(self, name))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    def _full(self, m):
        return m.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / d_sqrt
        K = _plus_identity(_t.matmul(Dinvsqrt_W, Dinvsqrt_W.mT))
        return self._full(d_sqrt * _t.linalg.cholesky(K))

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return self._full(_t.matmul(W, W.mT) + _t.diag_embed(self._unbroadcasted_cov_diag))

    @lazy_property
    def precision_matrix(self):
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = _t.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        return self._full(_t.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A)

    def rsample(self, sample_shape=_t.Size()):
        shape = self._extended_shape(sample_shape)
        W_shape = shape[:-1] + self.cov_factor.shape[-1:]
        eps_W = _standard_normal(W_shape, dtype=self.loc.dtype)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, value - self.loc,
                                       self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
