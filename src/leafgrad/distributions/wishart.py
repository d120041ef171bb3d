"""torch.distributions.Wishart (torch/distributions/wishart.py, PyTorch 2.13): drawn by
Bartlett's decomposition (chi-squared diagonal from Chi2.rsample, then ``randn`` below it:
PyTorch's order), redrawing singular samples up to ``max_try_correction`` times."""
import math
import warnings
from numbers import Number

import leafgrad as _t

from . import constraints
from .chi2 import Chi2
from .distribution import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import finfo, lazy_property

__all__ = ["Wishart"]

_log_2 = math.log(2)


def _mvdigamma(x, p):
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return _t.digamma(x.unsqueeze(-1) - _t.arange(p, dtype=x.dtype).div(2).expand(
        x.shape + (-1,))).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=float(finfo(x.dtype).eps))


def _chi2_for(df, p, dtype, batch_shape):
    return Chi2(df=df.unsqueeze(-1) - _t.arange(p, dtype=dtype).expand(batch_shape + (-1,)))


def _one_param(covariance_matrix, precision_matrix, scale_tril):
    given = [p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None]
    if len(given) != 1:
        raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
    if given[0].dim() < 2:
        raise ValueError("scale_tril must be at least two-dimensional, with optional leading "
                         "batch dimensions")
    return given[0]


class Wishart(ExponentialFamily):
    """Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None).

    Raises:
        AssertionError: not exactly one of the matrix parameters.  ValueError: a matrix of
            dim < 2, df <= p - 1.  UserWarning: df < p (singular samples likely).
    """
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        param = _one_param(covariance_matrix, precision_matrix, scale_tril)
        if isinstance(df, Number):
            batch_shape = _t.Size(param.shape[:-2])
            self.df = _t.tensor(df, dtype=param.dtype)
        else:
            batch_shape = _t.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        name = ("scale_tril" if scale_tril is not None else "covariance_matrix"
                if covariance_matrix is not None else "precision_matrix")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _t.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = _chi2_for(self.df, self._event_shape[-1],
                                    self._unbroadcasted_scale_tril.dtype, batch_shape)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _t.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        new._dist_chi2 = _chi2_for(new.df, self.event_shape[-1],
                                   new._unbroadcasted_scale_tril.dtype, batch_shape)
        ExponentialFamily.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        identity = _t.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return _t.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (
            V.pow(2) + _t.einsum("...i,...j->...ij", diag_V, diag_V))

    def _bartlett_sampling(self, sample_shape=_t.Size()):
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(
            dim1=-2, dim2=-1)
        i, j = _t.tril_indices(p, p, offset=-1)
        noise[..., i, j] = _t.randn(_t.Size(sample_shape) + self._batch_shape
                                    + (int(p * (p - 1) / 2),), dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=_t.Size(), max_try_correction=None):
        """A Bartlett draw; as PyTorch 2.13, ``is_singular`` starts as the support check
        (so a valid first draw counts as 'singular' and is redrawn, with its warning)."""
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = _t.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(is_singular[is_singular].shape)
                sample[is_singular] = sample_new
                is_singular_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    is_singular_new = is_singular_new.amax(self._batch_dims)
                is_singular[is_singular.clone()] = is_singular_new
                if not is_singular.any():
                    break
        return sample

    def _log_det_term(self):
        p = self._event_shape[-1]
        return p * _log_2 / 2 + self._unbroadcasted_scale_tril.diagonal(
            dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        return (-nu * self._log_det_term() - _t.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * _t.linalg.slogdet(value).logabsdet
                - _t.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
                    dim1=-2, dim2=-1).sum(dim=-1) / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * self._log_det_term() + _t.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-_t.linalg.slogdet(-2 * x).logabsdet + _log_2 * p)
                + _t.mvlgamma(y + (p + 1) / 2, p=p))
