"""transforms, TransformedDistribution families, biject_to / transform_to and the KL pairs of
the new families, against PyTorch 2.13 on hypothesis-drawn parameters."""
import numpy as np
import pytest
import torch as T
from hypothesis import given, settings, strategies as st

import leafgrad as L

_pos = st.floats(0.1, 8.0)
_vec3 = st.lists(_pos, min_size=3, max_size=3)


def _np(x):
    return np.asarray(x.detach().numpy()) if hasattr(x, "detach") else np.asarray(x)


def _close(a, b, rtol=2e-5, atol=1e-6):
    np.testing.assert_allclose(_np(b), _np(a), rtol=rtol, atol=atol)


def _families(t, a, b):
    D = t.distributions
    a, b = t.tensor(a, dtype=t.float64), t.tensor(b, dtype=t.float64)
    return {"LogNormal": D.LogNormal(a, b), "HalfNormal": D.HalfNormal(b),
            "HalfCauchy": D.HalfCauchy(b), "Gumbel": D.Gumbel(a, b), "Weibull": D.Weibull(a, b),
            "Pareto": D.Pareto(a, b), "Kumaraswamy": D.Kumaraswamy(a, b)}


_FAM = ["LogNormal", "HalfNormal", "HalfCauchy", "Gumbel", "Weibull", "Pareto", "Kumaraswamy"]


@pytest.mark.parametrize("name", _FAM)
@settings(max_examples=15, deadline=None)
@given(a=_vec3, b=_vec3, seed=st.integers(0, 2**31))
def test_transformed_families(name, a, b, seed):
    dt, dl = _families(T, a, b)[name], _families(L, a, b)[name]
    T.manual_seed(seed)
    st_ = dt.sample((2,))
    L.manual_seed(seed)
    sl = dl.sample((2,))
    np.testing.assert_allclose(_np(sl), _np(st_), rtol=1e-12)   # same draws, same transforms
    _close(dt.log_prob(st_), dl.log_prob(L.tensor(_np(st_))), rtol=1e-9)
    for attr in ("mean", "variance", "mode"):
        np.testing.assert_allclose(_np(getattr(dl, attr)), _np(getattr(dt, attr)), rtol=1e-9,
                                   equal_nan=True)
    _close(dt.entropy(), dl.entropy(), rtol=1e-9)
    assert repr(dt.support) == repr(dl.support)
    assert tuple(dt.expand((2, 3)).batch_shape) == tuple(dl.expand((2, 3)).batch_shape)
    if name in ("LogNormal", "HalfNormal", "HalfCauchy", "Gumbel", "Weibull", "Pareto"):
        _close(dt.cdf(st_), dl.cdf(L.tensor(_np(st_))), rtol=1e-9)
        u = T.tensor([0.1, 0.5, 0.9], dtype=T.float64)
        _close(dt.icdf(u), dl.icdf(L.tensor(_np(u))), rtol=1e-9)


def _transforms(t):
    tr = t.distributions.transforms
    return [tr.ExpTransform(), tr.PowerTransform(t.tensor(1.7, dtype=t.float64)),
            tr.SigmoidTransform(), tr.SoftplusTransform(), tr.TanhTransform(),
            tr.AffineTransform(t.tensor(0.5, dtype=t.float64), t.tensor(-2.0, dtype=t.float64)),
            tr.AffineTransform(1.0, 3.0, event_dim=1), tr.StickBreakingTransform(),
            tr.ComposeTransform([tr.ExpTransform(), tr.AffineTransform(1.0, 2.0)]),
            tr.ExpTransform().inv, tr.IndependentTransform(tr.SigmoidTransform(), 1),
            tr.CorrCholeskyTransform(), tr.ReshapeTransform((6,), (2, 3)),
            tr.CatTransform([tr.ExpTransform(), tr.identity_transform], 0, [1, 2]),
            tr.StackTransform([tr.ExpTransform(), tr.SigmoidTransform(), tr.TanhTransform()], 0)]


@settings(max_examples=20, deadline=None)
@given(x=st.lists(st.floats(-2.0, 2.0), min_size=6, max_size=6), i=st.integers(0, 14))
def test_transforms_forward_inverse_logdet(x, i):
    tt, tl = _transforms(T)[i], _transforms(L)[i]
    shape = (2, 3) if i in (7, 10, 11) else (6,) if i == 12 else (3, 2)
    xt = T.tensor(x, dtype=T.float64).reshape(shape)
    if i == 1:
        xt = xt.abs() + 0.1
    xl = L.tensor(_np(xt))
    yt, yl = tt(xt), tl(xl)
    _close(yt, yl, rtol=1e-10, atol=1e-12)
    _close(tt.log_abs_det_jacobian(xt, yt), tl.log_abs_det_jacobian(xl, yl), rtol=1e-9,
           atol=1e-10)
    _close(tt.inv(yt), tl.inv(yl), rtol=1e-7, atol=1e-8)
    assert repr(tt).replace("tensor", "") == repr(tl).replace("tensor", "")
    assert tuple(tt.forward_shape(T.Size(shape))) == tuple(tl.forward_shape(L.Size(shape)))
    assert tt.bijective == tl.bijective
    assert (tt.domain.event_dim, tt.codomain.event_dim) == (tl.domain.event_dim,
                                                          tl.codomain.event_dim)


def _constraints(t):
    C = t.distributions.constraints
    return [C.real, C.positive, C.nonnegative, C.greater_than(2.0), C.greater_than_eq(-1.0),
            C.less_than(3.0), C.interval(0.0, 1.0), C.interval(-2.0, 5.0),
            C.half_open_interval(0.0, 2.0), C.unit_interval, C.simplex, C.lower_cholesky,
            C.positive_definite, C.corr_cholesky, C.independent(C.positive, 1), C.real_vector,
            C.boolean]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("i", range(17))
def test_constraint_registry(registry, i):
    try:
        want = repr(getattr(T.distributions, registry)(_constraints(T)[i]))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            getattr(L.distributions, registry)(_constraints(L)[i])
        return
    assert repr(getattr(L.distributions, registry)(_constraints(L)[i])) == want


def _kl_dists(t, a, b):
    D = t.distributions
    a, b = t.tensor(a, dtype=t.float64), t.tensor(b, dtype=t.float64)
    return {"Gamma": D.Gamma(a, b), "Beta": D.Beta(a, b), "Normal": D.Normal(a, b),
            "Exponential": D.Exponential(b), "Uniform": D.Uniform(a * 0, a + b),
            "Gumbel": D.Gumbel(a, b), "Pareto": D.Pareto(b, a + 2.5),
            "HalfNormal": D.HalfNormal(b), "Laplace": D.Laplace(a, b),
            "Dirichlet": D.Dirichlet(t.stack([a, b], -1)), "Poisson": D.Poisson(a),
            "Binomial": D.Binomial(t.full_like(a, 5.0), probs=b / (b + 1)),
            "LogNormal": D.LogNormal(a, b), "Chi2": D.Chi2(a)}


_KL_NAMES = ["Gamma", "Beta", "Normal", "Exponential", "Uniform", "Gumbel", "Pareto",
             "HalfNormal", "Laplace", "Dirichlet", "Poisson", "Binomial", "LogNormal", "Chi2"]


@pytest.mark.parametrize("p", _KL_NAMES)
@settings(max_examples=4, deadline=None)
@given(a=_vec3, b=_vec3, a2=_vec3, b2=_vec3)
def test_kl_pairs(p, a, b, a2, b2):
    for q in _KL_NAMES:
        pt, qt = _kl_dists(T, a, b)[p], _kl_dists(T, a2, b2)[q]
        pl, ql = _kl_dists(L, a, b)[p], _kl_dists(L, a2, b2)[q]
        try:
            want = T.distributions.kl_divergence(pt, qt)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                L.distributions.kl_divergence(pl, ql)
            continue
        got = L.distributions.kl_divergence(pl, ql)
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-8, atol=1e-10, err_msg=p + q)


def test_registered_pairs_cover_torch_among_present_families():
    from torch.distributions.kl import _KL_REGISTRY as TR
    from leafgrad.distributions.kl import _KL_REGISTRY as LR
    have = set(L.distributions.__all__)
    ours = {(a.__name__, b.__name__) for a, b in LR}
    theirs = {(a.__name__, b.__name__) for a, b in TR}
    assert {p for p in theirs if p[0] in have and p[1] in have} <= ours
