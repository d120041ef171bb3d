"""torch.distributions on leafgrad vs real PyTorch: values of log_prob / entropy / moments /
cdf / icdf, draws under the same seed (bit for bit), gradients through rsample and log_prob,
repr, shapes and the errors' classes."""
import math

import numpy as np
import pytest
import torch as T

import leafgrad as L


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _same(a, b, exact=False):
    """torch result ``a`` vs leafgrad result ``b`` (tensors, sizes, strings, tuples)."""
    if isinstance(a, (tuple, list)) and not isinstance(a, T.Size):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, exact)
        return
    if isinstance(a, T.Tensor):
        assert isinstance(b, L.Tensor), type(b)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        if exact:
            np.testing.assert_array_equal(_np(b), _np(a))
        else:
            np.testing.assert_allclose(_np(b), _np(a), rtol=2e-6, atol=1e-6)
        return
    assert str(a) == str(b)


def _same_call(fa, fb):
    """The same value, or the same exception class, from torch's ``fa`` and our ``fb``."""
    try:
        ra = fa()
    except Exception as exc:
        with pytest.raises(type(exc)):
            fb()
        return
    _same(ra, fb())


def _params(t):
    """The distributions of every family, built the same way in torch and leafgrad."""
    cov = t.tensor([[2.0, 0.5], [0.5, 1.0]])
    return {
        "normal": t.distributions.Normal(t.tensor([0.0, 1.0, -2.0]), t.tensor([1.0, 2.0, 0.3])),
        "normal_scalar": t.distributions.Normal(0.5, 2.0),
        "bernoulli_probs": t.distributions.Bernoulli(probs=t.tensor([0.2, 0.7, 0.5])),
        "bernoulli_logits": t.distributions.Bernoulli(logits=t.tensor([0.3, -1.0, 2.0])),
        "categorical_probs": t.distributions.Categorical(
            probs=t.tensor([[0.1, 0.2, 0.7], [1.0, 1.0, 2.0]])),
        "categorical_logits": t.distributions.Categorical(logits=t.tensor([1.0, 2.0, 0.5, -1.0])),
        "onehot": t.distributions.OneHotCategorical(probs=t.tensor([[0.1, 0.2, 0.7],
                                                                    [0.3, 0.3, 0.4]])),
        "uniform": t.distributions.Uniform(t.tensor([0.0, 1.0]), t.tensor([2.0, 5.0])),
        "exponential": t.distributions.Exponential(t.tensor([1.0, 3.0, 0.5])),
        "laplace": t.distributions.Laplace(t.tensor([0.0, 1.0]), t.tensor([1.0, 0.5])),
        "mvn_cov": t.distributions.MultivariateNormal(t.tensor([0.0, 1.0]), covariance_matrix=cov),
        "mvn_prec": t.distributions.MultivariateNormal(t.zeros(3, 2), precision_matrix=cov),
        "mvn_tril": t.distributions.MultivariateNormal(
            t.tensor([1.0, -1.0]), scale_tril=t.tensor([[[1.0, 0.0], [0.3, 2.0]],
                                                        [[0.5, 0.0], [-0.2, 1.0]]])),
        "cauchy": t.distributions.Cauchy(t.tensor([0.0, 1.0]), t.tensor([1.0, 0.5])),
        "poisson": t.distributions.Poisson(t.tensor([0.5, 4.0, 12.0])),
        "geometric_probs": t.distributions.Geometric(t.tensor([0.2, 0.9])),
        "geometric_logits": t.distributions.Geometric(logits=t.tensor([0.3, -2.0])),
        "multinomial": t.distributions.Multinomial(5, t.tensor([[0.2, 0.3, 0.5],
                                                                [0.1, 0.1, 0.8]])),
        "independent": t.distributions.Independent(
            t.distributions.Normal(t.zeros(3, 2), t.tensor([1.0, 2.0]).expand(3, 2)), 1),
    }


NAMES = sorted(_params(T))
# draws that are the generator's stream through exact arithmetic (bit for bit); the others
# (mvn: a matmul; laplace: log1p) are compared within float32 rounding
EXACT = {"normal", "normal_scalar", "bernoulli_probs", "bernoulli_logits", "categorical_probs",
         "categorical_logits", "onehot", "uniform", "exponential", "independent", "poisson",
         "geometric_probs", "geometric_logits", "multinomial"}
VALUES = {
    "normal": [0.5, -1.0, 0.0], "normal_scalar": [[0.1, 3.0]],
    "bernoulli_probs": [1.0, 0.0, 1.0], "bernoulli_logits": [[0.0, 1.0, 1.0]],
    "categorical_probs": [2, 0], "categorical_logits": [[3], [0]],
    "onehot": [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], "uniform": [1.0, 4.0],
    "exponential": [0.5, 2.0, 0.0], "laplace": [0.5, 2.0],
    "mvn_cov": [[0.5, 0.5], [1.0, 2.0]], "mvn_prec": [1.0, 1.0], "mvn_tril": [0.0, 0.5],
    "independent": [[1.0, 2.0], [0.0, 0.0], [-1.0, 0.5]],
    "cauchy": [0.5, -3.0], "poisson": [0.0, 3.0, 15.0], "geometric_probs": [0.0, 3.0],
    "geometric_logits": [[2.0, 0.0]], "multinomial": [[1.0, 1.0, 3.0], [0.0, 0.0, 5.0]],
}


@pytest.mark.parametrize("name", NAMES)
def test_repr_shapes_and_moments(name):
    a, b = _params(T)[name], _params(L)[name]
    _same(repr(a), repr(b))
    _same((a.batch_shape, a.event_shape, a.has_rsample, a.has_enumerate_support),
          (b.batch_shape, b.event_shape, b.has_rsample, b.has_enumerate_support))
    for attr in ("mean", "variance", "stddev", "mode"):
        _same_call(lambda: getattr(a, attr), lambda: getattr(b, attr))
    _same_call(a.entropy, b.entropy)    # Poisson's raises NotImplementedError in both
    _same(repr(a.support), repr(b.support))
    _same(repr(a), repr(b))      # lazily made parameters now show in both


@pytest.mark.parametrize("name", NAMES)
def test_log_prob(name):
    a, b = _params(T)[name], _params(L)[name]
    dtype = "long" if name.startswith("categorical") else "float"
    _same(a.log_prob(getattr(T.tensor(VALUES[name]), dtype)()),
          b.log_prob(getattr(L.tensor(VALUES[name]), dtype)()))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_samples_follow_torchs_stream(name, shape):
    a, b = _params(T)[name], _params(L)[name]
    T.manual_seed(7)
    L.manual_seed(7)
    sa, sb = a.sample(shape), b.sample(shape)
    # a second draw too: the generator advanced by the same amount
    _same((sa, a.sample()), (sb, b.sample()), exact=name in EXACT)
    if a.has_rsample:
        T.manual_seed(3)
        L.manual_seed(3)
        _same(a.rsample(shape), b.rsample(shape), exact=name in EXACT)


@pytest.mark.parametrize("name", ["normal", "uniform", "exponential", "laplace", "cauchy"])
def test_cdf_icdf(name):
    a, b = _params(T)[name], _params(L)[name]
    x = [0.3, 0.9, 0.1][:a.batch_shape[0]]
    inside = [0.3, 1.5] if name == "uniform" else x
    _same(a.cdf(T.tensor(inside)), b.cdf(L.tensor(inside)))
    _same(a.icdf(T.tensor(x)), b.icdf(L.tensor(x)))


@pytest.mark.parametrize("name", ["bernoulli_probs", "categorical_probs", "onehot"])
def test_enumerate_support(name):
    a, b = _params(T)[name], _params(L)[name]
    _same(a.enumerate_support(), b.enumerate_support(), exact=True)
    _same(a.enumerate_support(expand=False), b.enumerate_support(expand=False), exact=True)


@pytest.mark.parametrize("name", NAMES)
def test_expand(name):
    a, b = _params(T)[name], _params(L)[name]
    shape = (2,) + tuple(a.batch_shape)
    ea, eb = a.expand(shape), b.expand(shape)
    _same((repr(ea), ea.batch_shape, ea.event_shape), (repr(eb), eb.batch_shape, eb.event_shape))
    T.manual_seed(0)
    L.manual_seed(0)
    _same(ea.sample(), eb.sample(), exact=name in EXACT)


def _kl_pairs(t):
    d = t.distributions
    p = _params(t)
    return [
        (p["normal"], d.Normal(t.tensor([1.0, 0.0, 0.0]), t.tensor([0.5, 1.0, 3.0]))),
        (p["bernoulli_probs"], d.Bernoulli(t.tensor([0.5, 0.0, 1.0]))),
        (d.Bernoulli(t.tensor([0.0, 1.0, 0.3])), p["bernoulli_logits"]),
        (p["categorical_probs"], d.Categorical(logits=t.tensor([0.1, 0.2, 0.3]))),
        (p["categorical_probs"], d.Categorical(t.tensor([0.5, 0.5, 0.0]))),
        (p["onehot"], d.OneHotCategorical(t.tensor([0.3, 0.3, 0.4]))),
        (p["uniform"], d.Uniform(t.tensor([-1.0, 2.0]), t.tensor([3.0, 6.0]))),
        (p["exponential"], d.Exponential(t.tensor([2.0, 1.0, 1.0]))),
        (p["laplace"], d.Laplace(t.tensor([1.0, 0.0]), t.tensor([2.0, 1.0]))),
        (p["mvn_cov"], p["mvn_tril"]), (p["mvn_prec"], p["mvn_cov"]),
        (p["independent"], d.Independent(d.Normal(t.ones(3, 2), t.ones(3, 2)), 1)),
        (p["uniform"], d.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0]))),
        (p["uniform"], d.Exponential(t.tensor([1.0, 2.0]))),
        (d.Uniform(t.tensor([-1.0, 2.0]), 3.0), d.Exponential(t.tensor([1.0, 2.0]))),
        (p["exponential"], p["normal"]), (p["laplace"], d.Normal(t.zeros(2), t.ones(2))),
        (d.Normal(t.zeros(2), t.ones(2)), p["laplace"]),
        (p["normal"], d.Uniform(t.zeros(3), 1.0)), (p["normal"], p["exponential"]),
        (p["laplace"], p["uniform"]), (p["laplace"], d.Exponential(t.ones(2))),
        (p["exponential"], d.Uniform(t.zeros(3), 1.0)),
        (p["geometric_probs"], p["geometric_logits"]),
        (p["poisson"], d.Poisson(t.tensor([1.0, 1.0, 20.0]))),
        (p["bernoulli_probs"], d.Poisson(t.tensor([1.0, 1.0, 20.0]))),
        (p["poisson"], p["bernoulli_logits"]),
        (p["cauchy"], d.Cauchy(t.tensor([1.0, 1.0]), 2.0)),
    ]


@pytest.mark.parametrize("i", range(len(_kl_pairs(T))))
def test_kl_divergence(i):
    pa, qa = _kl_pairs(T)[i]
    pb, qb = _kl_pairs(L)[i]
    _same(T.distributions.kl_divergence(pa, qa), L.distributions.kl_divergence(pb, qb))


def test_kl_errors_and_register():
    for t in (T, L):
        with pytest.raises(NotImplementedError):
            t.distributions.kl_divergence(t.distributions.Categorical(t.ones(2)),
                                          t.distributions.Normal(0.0, 1.0))
        with pytest.raises(NotImplementedError):     # exponential families of two kinds
            t.distributions.kl_divergence(t.distributions.Bernoulli(0.3),
                                          t.distributions.Normal(0.0, 1.0))
        with pytest.raises(TypeError):
            t.distributions.register_kl("Normal", t.distributions.Normal)

    class MyNormal(L.distributions.Normal):
        pass

    @L.distributions.register_kl(MyNormal, L.distributions.Normal)
    def _kl(p, q):
        return L.zeros(())

    assert L.distributions.kl_divergence(MyNormal(0.0, 1.0), L.distributions.Normal(1.0, 1.0)) == 0
    # the base pair still dispatches to the closed form
    v = L.distributions.kl_divergence(L.distributions.Normal(0.0, 1.0),
                                      L.distributions.Normal(1.0, 1.0))
    assert float(v) == 0.5


def test_gradients_through_rsample_and_log_prob():
    out = []
    for t in (T, L):
        t.manual_seed(0)
        loc = t.tensor([0.5, -0.3], requires_grad=True)
        scale = t.tensor([1.2, 0.7], requires_grad=True)
        d = t.distributions.Normal(loc, scale)
        (d.rsample((4,)) ** 2).sum().backward()
        logits = t.tensor([0.2, 0.5, -0.1], requires_grad=True)
        pol = t.distributions.Categorical(logits=logits)     # REINFORCE
        a = pol.sample((6,))
        (-(pol.log_prob(a) * t.arange(6.0)).sum() - 0.1 * pol.entropy()).backward()
        low = t.tensor([0.0, 1.0], requires_grad=True)
        u = t.distributions.Uniform(low, t.tensor([2.0, 4.0]))
        u.rsample((3,)).sum().backward()
        L_ = t.tensor([[1.0, 0.0], [0.3, 2.0]], requires_grad=True)
        m = t.distributions.MultivariateNormal(t.zeros(2), scale_tril=L_)
        (m.log_prob(t.tensor([[0.5, 0.5], [1.0, 2.0]])).sum() + m.entropy()).backward()
        probs = t.tensor([0.3, 0.6], requires_grad=True)
        b = t.distributions.Bernoulli(probs)
        t.distributions.kl_divergence(b, t.distributions.Bernoulli(t.tensor([0.5, 0.5]))).sum() \
            .backward()
        out.append([loc.grad, scale.grad, a, logits.grad, low.grad, L_.grad, probs.grad])
    _same(out[0], out[1])


def test_second_order_through_log_prob():
    out = []
    for t in (T, L):
        loc = t.tensor([0.5, -0.3], dtype=t.float64, requires_grad=True)
        lp = t.distributions.Normal(loc, 2.0).log_prob(t.tensor([1.0, 1.0], dtype=t.float64))
        g, = t.autograd.grad(lp.sum() ** 2, loc, create_graph=True)
        h, = t.autograd.grad(g.sum(), loc)
        out.append((g, h))
    _same(out[0], out[1])


def _bad_calls(t):
    d = t.distributions
    return [
        lambda: d.Normal(t.tensor([0.0]), t.tensor([-1.0])),
        lambda: d.Normal(t.tensor([float("nan")]), 1.0),
        lambda: d.Bernoulli(t.tensor([1.5])),
        lambda: d.Bernoulli(),
        lambda: d.Bernoulli(0.5, logits=0.0),
        lambda: d.Categorical(t.tensor(1.0)),
        lambda: d.Categorical(logits=t.tensor(1.0)),
        lambda: d.Categorical(t.tensor([-0.5, 1.0])),
        lambda: d.Normal(0.0, 1.0).log_prob(0.5),
        lambda: d.Bernoulli(0.5).log_prob(t.tensor(0.5)),
        lambda: d.Categorical(t.tensor([0.5, 0.5])).log_prob(t.tensor(3)),
        lambda: d.Uniform(1.0, 0.0),
        lambda: d.Uniform(0.0, 1.0).log_prob(t.tensor(2.0)),
        lambda: d.Exponential(t.tensor([0.0])),
        lambda: d.Exponential(1.0).log_prob(t.tensor(-1.0)),
        lambda: d.Normal(t.zeros(2), t.ones(2)).log_prob(t.zeros(3)),
        lambda: d.MultivariateNormal(t.zeros(2)),
        lambda: d.MultivariateNormal(t.tensor(0.0), t.eye(2)),
        lambda: d.MultivariateNormal(t.zeros(2), t.ones(2)),
        lambda: d.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
        lambda: d.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 1.0], [0.0, 1.0]])),
        lambda: d.MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.zeros(3)),
        lambda: d.Independent(d.Normal(0.0, 1.0), 1),
        lambda: d.Normal("a", 1.0),
        lambda: d.Distribution.set_default_validate_args(3),
        lambda: d.Geometric(t.tensor([0.0, 0.5])),
        lambda: d.Poisson(t.tensor([-1.0])),
        lambda: d.Poisson(2.0).log_prob(t.tensor(0.5)),
        lambda: d.Multinomial(2.5, t.tensor([0.5, 0.5])),
        lambda: d.Multinomial(3, t.tensor([0.5, 0.5])).log_prob(t.tensor([2.0, 2.0])),
        lambda: d.Cauchy(0.0, -1.0),
    ]


@pytest.mark.parametrize("i", range(len(_bad_calls(T))))
def test_errors_match_torch(i):
    def outcome(t):
        try:
            _bad_calls(t)[i]()
        except Exception as exc:
            return type(exc), str(exc).split("\nFix:")[0].split(". Fix:")[0]
        return None, None
    cls_a, msg_a = outcome(T)
    cls_b, msg_b = outcome(L)
    assert cls_a is not None and cls_b is cls_a
    assert msg_b == msg_a


def test_validation_can_be_turned_off():
    d = L.distributions
    assert math.isnan(float(d.Normal(0.0, -1.0, validate_args=False).log_prob(L.tensor(0.0))))
    d.Distribution.set_default_validate_args(False)
    try:
        d.Bernoulli(L.tensor([1.5]))            # no check now
        d.Normal(0.0, 1.0).log_prob(0.5)        # a Python number is then accepted (as torch)
    finally:
        d.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        d.Bernoulli(L.tensor([1.5]))


def test_constraints_repr_and_check():
    for name in ("real", "positive", "nonnegative", "unit_interval", "simplex", "boolean",
                 "real_vector", "lower_cholesky", "positive_definite", "one_hot",
                 "nonnegative_integer"):
        assert repr(getattr(L.distributions.constraints, name)) == \
            repr(getattr(T.distributions.constraints, name))
    x = [[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]]
    for name in ("simplex", "positive", "unit_interval", "real"):
        _same(getattr(T.distributions.constraints, name).check(T.tensor(x)),
              getattr(L.distributions.constraints, name).check(L.tensor(x)), exact=True)
    _same(T.distributions.constraints.interval(0, 0.5).check(T.tensor(x)),
          L.distributions.constraints.interval(0, 0.5).check(L.tensor(x)), exact=True)
    assert L.distributions.constraints.is_dependent(L.distributions.Uniform.support)
    assert not L.distributions.constraints.is_dependent(L.distributions.constraints.real)


def test_straight_through_rsample():
    out = []
    for t in (T, L):
        t.manual_seed(5)
        p = t.tensor([0.2, 0.3, 0.5], requires_grad=True)
        s = t.distributions.OneHotCategoricalStraightThrough(probs=p).rsample((4,))
        (s * t.arange(3.0)).sum().backward()
        out.append((s, p.grad))
    _same(out[0], out[1])
