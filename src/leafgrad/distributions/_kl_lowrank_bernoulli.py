"""The KL closed forms of torch/distributions/kl.py (PyTorch 2.13) that involve
ContinuousBernoulli or LowRankMultivariateNormal; registered into ``kl``'s table on import."""
import math

import leafgrad as _t

from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import _batch_trace_XXT, _infinite_like, register_kl
from .laplace import Laplace
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform

_EVENT = ("KL-divergence between two {}Multivariate Normals with different event shapes "
          "cannot be computed")


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + _t.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - _t.log1p(-q.probs)
    return t1 + t2 + t3


def _to_cont_bern(p, q):
    return -p.entropy() - p.mean * q.logits - _t.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return _to_cont_bern(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = _to_cont_bern(p, q)
    outside = _t.max(_t.ge(p.high, q.support.upper_bound), _t.le(p.low, q.support.lower_bound))
    return _t.where(outside, _t.ones_like(result) * math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - _t.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + _t.square(q.loc / q.scale)) + _t.log(q.scale)
    t3 = ((p.variance + _t.square(p.mean) - 2.0 * q.loc * p.mean)
          / (2.0 * _t.square(q.scale)))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = _t.max(_t.ge(q.low, p.support.lower_bound), _t.le(q.high, p.support.upper_bound))
    return _t.where(outside, _t.ones_like(result) * math.inf, result)


def _register_infinite(pairs, param):
    def fn(p, q):
        return _infinite_like(getattr(p, param))
    for tp, tq in pairs:
        register_kl(tp, tq)(fn)


_register_infinite([(ContinuousBernoulli, Pareto)], "probs")
_register_infinite([(Exponential, ContinuousBernoulli)], "rate")
_register_infinite([(Gamma, ContinuousBernoulli)], "concentration")
_register_infinite([(t, ContinuousBernoulli) for t in (Gumbel, Laplace, Normal)], "loc")
_register_infinite([(Pareto, ContinuousBernoulli)], "scale")


def _q_lowrank_terms(p, q):
    """log det q, the Mahalanobis term of the means, and A = L_C^-1 W^T D^-1 of q."""
    logdet_q = _batch_lowrank_logdet(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                     q._capacitance_tril)
    term3 = _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                       q.loc - p.loc, q._capacitance_tril)
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    A = _t.linalg.solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)
    return logdet_q, term3, A


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(_EVENT.format("Low Rank "))
    logdet_q, term3, A = _q_lowrank_terms(p, q)
    term1 = logdet_q - _batch_lowrank_logdet(p._unbroadcasted_cov_factor,
                                             p._unbroadcasted_cov_diag, p._capacitance_tril)
    term21 = (p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
    term22 = _batch_trace_XXT(p._unbroadcasted_cov_factor
                              * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor))
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(_EVENT.format("(Low Rank) "))
    logdet_q, term3, A = _q_lowrank_terms(p, q)
    term1 = logdet_q - 2 * p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term21 = _batch_trace_XXT(p._unbroadcasted_scale_tril
                              * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A.matmul(p._unbroadcasted_scale_tril))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(_EVENT.format("(Low Rank) "))
    term1 = (2 * q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
             - _batch_lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag,
                                     p._capacitance_tril))
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    batch = _t.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2],
                                p._unbroadcasted_cov_factor.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    p_cov_factor = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    p_cov_diag = _t.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term21 = _batch_trace_XXT(_t.linalg.solve_triangular(q_scale_tril, p_cov_factor,
                                                         upper=False))
    term22 = _batch_trace_XXT(_t.linalg.solve_triangular(q_scale_tril, p_cov_diag, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])
