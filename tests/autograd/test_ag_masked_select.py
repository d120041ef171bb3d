"""Masked backwards select (issue 10 items 3 and 7), against real PyTorch.

PyTorch's rules for piecewise and selecting ops pick the upstream gradient
(``where(mask, grad, 0)``), so an inf or nan upstream gradient gives exactly 0
where the mask is off; multiplying by a 0/1 mask would give nan there. Each case
runs with an upstream gradient holding inf, nan and -inf, then with
``create_graph=True``: whether the gradient requires grad and its own gradient
(0 for piecewise-linear ops, not an error).
"""
import math
import warnings

import numpy as np
import pytest
import torch as real_torch

import leafgrad

X = np.array([-1.0, 0.5, 4.0, 2.0])
UPSTREAM = np.array([math.inf, math.nan, 1.0, -math.inf])


def _setitem_mask(T, x):
    y = x * 1
    y[y > 1] = 0.0
    return y


def _fill_view(T, x, zero):
    y = x * 1
    v = y[1:3]
    v.zero_() if zero else v.fill_(2.0)
    return y


CASES = {
    "relu": lambda T, x: T.relu(x),
    "relu_method": lambda T, x: x.relu(),
    "relu6": lambda T, x: T.nn.functional.relu6(x),
    "hardtanh": lambda T, x: T.nn.functional.hardtanh(x),
    "leaky_relu": lambda T, x: T.nn.functional.leaky_relu(x),
    "threshold": lambda T, x: T.nn.functional.threshold(x, 0.1, 2.0),
    "hardsigmoid": lambda T, x: T.nn.functional.hardsigmoid(x),
    "hardswish": lambda T, x: T.nn.functional.hardswish(x),
    "clamp": lambda T, x: x.clamp(0, 1),
    "clamp_min": lambda T, x: x.clamp(min=0),
    "clamp_tensors": lambda T, x: x.clamp(T.zeros(4, dtype=x.dtype), T.ones(4, dtype=x.dtype)),
    "where": lambda T, x: T.where(x > 0, x, 0.0),
    "where_both": lambda T, x: T.where(x > 0, x, x * 2),
    "max_dim": lambda T, x: x.reshape(2, 2).max(0).values,
    "min_dim": lambda T, x: x.reshape(2, 2).min(1).values,
    "median_dim": lambda T, x: x.reshape(2, 2).median(1).values,
    "max_all": lambda T, x: x.max().expand(4),
    "pow0": lambda T, x: x ** 0,
    "masked_fill": lambda T, x: x.masked_fill(x > 0, 1.0),
    "setitem_mask": _setitem_mask,
    "zero_of_view": lambda T, x: _fill_view(T, x, True),
    "fill_of_view": lambda T, x: _fill_view(T, x, False),
    "margin_ranking_loss": lambda T, x: T.nn.functional.margin_ranking_loss(
        x, x.detach() * 0 + 0.5, T.tensor([1.0, -1, 1, -1], dtype=x.dtype), reduction="none"),
    "hinge_embedding_loss": lambda T, x: T.nn.functional.hinge_embedding_loss(
        x, T.tensor([1.0, -1, 1, -1], dtype=x.dtype), reduction="none"),
    "smooth_l1_loss": lambda T, x: T.nn.functional.smooth_l1_loss(
        x, T.zeros(4, dtype=x.dtype), reduction="none"),
    "max_pool1d": lambda T, x: T.nn.functional.max_pool1d(x.reshape(1, 1, 4), 2).reshape(2),
    "std_constant": lambda T, x: (x * 0 + 1).reshape(2, 2).std(1),
    "norm_p0": lambda T, x: T.linalg.vector_norm(x.reshape(2, 2), 0, dim=1),
    "norm_p3_zero": lambda T, x: T.linalg.vector_norm((x * 0).reshape(2, 2), 3, dim=1),
    "maximum": lambda T, x: T.maximum(x, T.zeros(4, dtype=x.dtype)),
}


def _np(t):
    return None if t is None else t.detach().numpy().copy()


def _first_order(T, f):
    x = T.tensor(X, requires_grad=True)
    out = f(T, x)
    v = T.tensor(UPSTREAM[:out.numel()].reshape(tuple(out.shape)))
    (g,) = T.autograd.grad(out, x, v, allow_unused=True)
    return _np(g)


def _second_order(T, f):
    x = T.tensor(X, requires_grad=True)
    (g,) = T.autograd.grad(f(T, x).sum(), x, create_graph=True, allow_unused=True)
    if g is None or not g.requires_grad:
        return g is not None and g.requires_grad, None
    try:
        (gg,) = T.autograd.grad(g.sum(), x, allow_unused=True)
    except RuntimeError:
        return True, "RuntimeError"
    return True, _np(gg)


def _same(a, b, what):
    if isinstance(b, np.ndarray) and a is None:
        a = np.zeros_like(b)   # an unused input: None is a zero gradient
    if isinstance(a, np.ndarray) and b is None:
        b = np.zeros_like(a)
    if isinstance(b, np.ndarray):
        np.testing.assert_allclose(a, b, equal_nan=True, err_msg=what)
    else:
        assert a == b, what


@pytest.mark.parametrize("name", sorted(CASES))
def test_masked_backward_selects_like_torch(name):
    f = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        _same(_first_order(leafgrad, f), _first_order(real_torch, f), "first order")
        lr, lgg = _second_order(leafgrad, f)
        tr, tgg = _second_order(real_torch, f)
    assert lr == tr, "the first-order gradient requires grad under create_graph: %s vs %s" % (
        lr, tr)
    _same(lgg, tgg, "second order")


def test_relu_sqrt_reproducer():
    x = leafgrad.tensor([-1.0, 4.0], requires_grad=True)
    leafgrad.relu(x).sqrt().sum().backward()
    assert x.grad.tolist() == [0.0, 0.25]


def test_negative_number_base_pow_at_zero_gives_nan_grad():
    for T in (leafgrad, real_torch):
        x = T.tensor(0.0, requires_grad=True)
        ((-2.0) ** x).backward()
        assert math.isnan(x.grad.item())


def test_max_of_0d_over_dim0_backward():
    for T in (leafgrad, real_torch):
        x = T.tensor(3.0, requires_grad=True)
        r = T.max(x, dim=0)
        r.values.backward()
        assert x.grad.item() == 1.0 and r.indices.item() == 0


@pytest.mark.parametrize("name", ["relu", "hardtanh", "relu6", "leaky_relu", "threshold"])
def test_second_order_of_piecewise_linear_is_zero(name):
    x = leafgrad.tensor([-1.0, 0.5, 4.0], requires_grad=True)
    (g,) = leafgrad.autograd.grad(CASES[name](leafgrad, x).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = leafgrad.autograd.grad(g.sum(), x)
    assert gg.tolist() == [0.0, 0.0, 0.0]
