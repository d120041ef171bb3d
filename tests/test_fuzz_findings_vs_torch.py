"""Reproducers of what the differential fuzzer (tests/fuzz) found and was fixed at its
root, against real PyTorch: inf, nan and large-magnitude inputs or upstream
gradients, values and first/second-order gradients (nan and inf at the same places,
finite values close).
"""
import math
import warnings

import numpy as np
import pytest
import torch as real_torch

import leafgrad

INF, NAN = math.inf, math.nan


def _grads(T, x, y, second=True):
    """y's values, d(sum(w y))/dx and (float64) the gradient of sum(v dy/dx)."""
    w = T.linspace(0.5, 1.5, y.numel(), dtype=y.dtype).reshape(y.shape)
    (g,) = T.autograd.grad((y * w).sum(), x, create_graph=second)
    out = [y, g]
    if second and g.requires_grad:
        v = T.linspace(0.5, 1.5, g.numel(), dtype=g.dtype).reshape(g.shape)
        (gg,) = T.autograd.grad((g * v).sum(), x, allow_unused=True)
        out.append(T.zeros_like(x) if gg is None else gg)
    return out


def _trace(T):
    x = T.tensor([[1e30, INF, 0.9], [0.9, 1.8, -1e30], [-1.9, INF, -1.0], [-1.4, 0.0, -0.8]],
                 dtype=T.float64, requires_grad=True)
    return _grads(T, x, T.asin(T.trace(x)))


def _adaptive_avg_pool(nd, size):
    def f(T):
        x = np.random.default_rng(0).normal(size=(2, 3, 4, 7, 5)[-nd - 2:])
        x.flat[7], x.flat[30] = INF, NAN
        x = T.tensor(x, requires_grad=True)
        pool = getattr(T.nn.functional, "adaptive_avg_pool%dd" % nd)
        return _grads(T, x, pool(x, size).exp())
    return f


CASES = {
    "trace_backward_selects_the_diagonal": _trace,
    "adaptive_avg_pool1d_inf_input": _adaptive_avg_pool(1, 3),
    "adaptive_avg_pool2d_inf_input": _adaptive_avg_pool(2, (3, 2)),
    "adaptive_avg_pool3d_inf_input": _adaptive_avg_pool(3, (3, 2, 2)),
}


def _rounding_rule(op):
    def f(T):
        a = T.tensor([1.95, 1.9, -1.1, 3.0, INF, 1.1, -1.1], dtype=T.float64, requires_grad=True)
        b = T.tensor([0.0, INF, -2.0, 1.0, -1.5, -INF, INF], dtype=T.float64, requires_grad=True)
        y = getattr(T, op)(a, b)
        ga, gb = T.autograd.grad((y * y).sum(), (a, b), create_graph=True)
        gga, ggb = T.autograd.grad((ga + gb).sum(), (a, b), allow_unused=True)
        return [y, ga, gb, gga, ggb]
    return f


CASES.update({"fmod_second_order_at_b_0_or_inf": _rounding_rule("fmod"),
              "remainder_second_order_at_b_0_or_inf": _rounding_rule("remainder")})


_EDGES = [-1e30, -100, -30, -21, -3, -0.5, 0, 0.7, 5, 21, 40, 258259.0, 1e30, INF, -INF, NAN]


def _smooth_activation(name, dtype):
    def f(T):
        x = T.tensor(_EDGES[:13] if name == "gelu" and dtype == "float32" else _EDGES,
                     dtype=getattr(T, dtype), requires_grad=True)
        y = getattr(T.nn.functional, name)(x)
        (g_inf,) = T.autograd.grad((y * INF).sum(), x, retain_graph=True)
        return _grads(T, x, y, second=dtype == "float64") + [g_inf]
    return f


for _name in ("gelu", "silu", "mish", "logsigmoid"):
    for _dt in ("float32", "float64"):
        CASES["%s_%s_edges_and_inf_upstream" % (_name, _dt)] = _smooth_activation(_name, _dt)


def _softmax_0d(name, v):
    def f(T):
        x = T.tensor(v, dtype=T.float64, requires_grad=True)
        return _grads(T, x, getattr(T.nn.functional, name)(x, 0))
    return f


for _name in ("softmax", "log_softmax", "softmin"):
    for _v in (-INF, INF, NAN, 2.0):
        CASES["%s_0d_%s" % (_name, _v)] = _softmax_0d(_name, _v)


def _norm_of_one_element(ord):
    def f(T):
        x = T.tensor([[1e30], [2.0], [1e-30], [0.0], [-3.0]], requires_grad=True)
        return _grads(T, x, T.linalg.vector_norm(x, ord, dim=1), second=False)
    return f


for _ord in (2, 3, 1.5, 0.5, -1, 1, INF):
    CASES["vector_norm_of_one_element_is_abs_ord_%s" % _ord] = _norm_of_one_element(_ord)
CASES["cosine_similarity_float32_1e30"] = lambda T: [T.nn.functional.cosine_similarity(
    T.tensor([[[-1.3, 1e30]]]), T.tensor([[[1.8, -1.2]]]))]


def _var_float32_large(name, unbiased):
    def f(T):
        x = T.tensor([[-2.5, 1e30, 1.0], [1e20, -1e20, 3.0], [1e30, -1e30, 0.0]],
                     requires_grad=True)
        y = getattr(T, name)(x, 1, unbiased)
        return [t.detach() for t in (y if isinstance(y, tuple) else (y,))]
    return f


for _name in ("var", "std", "var_mean", "std_mean"):
    for _u in (True, False):
        CASES["%s_float32_accumulates_in_float64_%s" % (_name, _u)] = _var_float32_large(_name, _u)


def _nansum_inf_upstream(T):
    x = T.tensor([[NAN, 1.0, 2.0], [NAN, NAN, NAN]], dtype=T.float64, requires_grad=True)
    out = _grads(T, x, (T.nanmean(x, 1) + x.nansum(1)) * INF, second=False)
    return out + _grads(T, x, T.nanmean(x, 1) + x.nansum(1))


CASES["nansum_nanmean_grad_multiplies_by_not_nan"] = _nansum_inf_upstream


def _cosine_embedding_inf(T):
    x1 = T.tensor([[1.06, -INF, INF, -0.4], [-1e30, -1e30, 0.97, 1.25], [-1.5, -1.9, -1e30, -1.36]],
                  requires_grad=True)
    x2 = T.tensor([[-1.4, -1.7, -0.97, 1.6], [-1.8, 0.4, 1.7, -0.9], [-1.1, 0.5, 1.5, 0.7]],
                  requires_grad=True)
    loss = T.nn.functional.cosine_embedding_loss(x1, x2, T.tensor([1.0, -1.0, 1.0]))
    return [loss] + list(T.autograd.grad(loss, (x1, x2)))


CASES["cosine_embedding_loss_composite_as_torch"] = _cosine_embedding_inf


def _run(f, T):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # NumPy's must not leak
        return [t.detach().numpy() for t in f(T)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzzer_finding_matches_torch(name):
    want, got = _run(CASES[name], real_torch), _run(CASES[name], leafgrad)
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.shape == b.shape, k
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg="nan places of %d" % k)
        np.testing.assert_array_equal(np.where(np.isinf(b), b, 0), np.where(np.isinf(a), a, 0),
                                      err_msg="inf places of %d" % k)
        fin = np.isfinite(b)
        rtol = 1e-5 if b.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=rtol, err_msg=str(k))
