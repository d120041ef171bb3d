"""Plain tests for the differences that tests/fuzz/test_fuzz_edge_values.py found at edge
values and that are fixed at their root, each against real PyTorch (values with the sign
of zeros, nan / inf at the same places, gradients)."""
import math

import numpy as np
import pytest
import torch

import leafgrad

EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1.0, -1.0, 0.5, -2.5]


def _run(T, f, values, dtype):
    x = T.tensor(np.asarray(values, dtype=dtype), requires_grad=True)
    y = f(T, x)
    (g,) = T.autograd.grad(y.sum(), [x])
    return [y.detach().numpy(), g.numpy()]


def check(f, values, dtype):
    for got, want in zip(_run(leafgrad, f, values, dtype), _run(torch, f, values, dtype)):
        # nan / inf at the same places, finite values within float tolerance
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float64 else 1e-4)
        zero = want == 0
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["relu", "relu_", "functional"])
def test_relu_keeps_negative_zero(name, dtype):
    # PyTorch's relu is clamp_min(x, 0): it keeps x unless x < 0, so relu(-0.0) is -0.0
    f = {"relu": lambda T, x: T.relu(x), "relu_": lambda T, x: (x * 1).relu_(),
         "functional": lambda T, x: T.nn.functional.relu(x)}[name]
    check(f, EDGES, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erfinv_keeps_negative_zero(dtype):
    check(lambda T, x: T.erfinv(x), [0.0, -0.0, 0.3, -0.3, 0.9, -0.99, 1.0, -1.0, 2.0, math.nan],
          dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["cumsum", "logcumsumexp"])
def test_running_sums_start_at_positive_zero(name, dtype):
    # PyTorch's kernels add each element to a running value that starts at 0: a leading
    # -0.0 gives +0.0 (a 0-d input is copied: -0.0 stays)
    check(lambda T, x: getattr(T, name)(x, 0), [-0.0, -0.0, 1.0, -1.0, math.nan], dtype)
    check(lambda T, x: getattr(T, name)(x.reshape(2, 3), 1), [-0.0, 1.0, -0.0, -0.0, -0.0, 2.0],
          dtype)
    for T in (torch, leafgrad):
        assert math.copysign(1, getattr(T, name)(T.tensor(-0.0), 0).item()) == -1, T


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_remainder_zero_keeps_the_dividends_sign(dtype):
    # PyTorch's kernel: fmod(a, b), plus b where the signs differ; a zero result is
    # fmod's (the dividend's sign): remainder(0, -1) is 0.0 where np.remainder gives -0.0
    e = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, -2.5, 3.0, -7.0]
    a, b = (g.ravel() for g in np.meshgrid(e, e, indexing="ij"))
    got = [leafgrad.remainder(leafgrad.tensor(a.astype(dtype)), leafgrad.tensor(
        b.astype(dtype))).numpy()]
    want = [torch.remainder(torch.tensor(a.astype(dtype)), torch.tensor(b.astype(dtype))).numpy()]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g[w == 0]), np.signbit(w[w == 0]))
    check(lambda T, x: T.remainder(x, -1.5), [0.0, -0.0, 1.5, -3.0, 2.0, -0.5], dtype)


def test_zeta_loop_stops_at_huge_arguments():
    # the Hurwitz sum's loop ran its 100000 passes (seconds) where w + 1 == w (q = -1.8e308)
    # or the terms underflow (s = 1e300); the values were and are PyTorch's
    import time
    s = np.array([2.0, 3.0, 1e300, 2.0, 2.5, 50.0])
    q = np.array([-1.8e308, -math.inf, 2.0, 0.7, -3.5, 0.3])
    start = time.process_time()
    got = leafgrad.special.zeta(leafgrad.tensor(s), leafgrad.tensor(q)).numpy()
    pg = leafgrad.polygamma(1, leafgrad.tensor([-1.8e308, -math.inf, 0.5],
                                               dtype=leafgrad.float64)).numpy()
    assert time.process_time() - start < 0.3       # 0.9 s CPU per loop before
    np.testing.assert_allclose(got, torch.special.zeta(torch.tensor(s), torch.tensor(q)).numpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(pg, torch.polygamma(1, torch.tensor(
        [-1.8e308, -math.inf, 0.5], dtype=torch.float64)).numpy(), rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_keep_the_first_of_equal_zeros(name, dtype):
    # PyTorch's kernel: b where a is nan or b is strictly beyond a, else a (np.fmax(0.0,
    # -0.0) gives -0.0, torch.fmax 0.0); gradients go to a on ties (derivatives.yaml)
    e = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.5]
    a, b = (g.ravel() for g in np.meshgrid(e, e, indexing="ij"))
    out = []
    for T in (leafgrad, torch):
        x = T.tensor(a.astype(dtype), requires_grad=True)
        y = T.tensor(b.astype(dtype), requires_grad=True)
        z = getattr(T, name)(x, y)
        gx, gy = T.autograd.grad(z.sum(), [x, y])
        out.append([v.detach().numpy() for v in (z, gx, gy)])
    for got, want in zip(*out):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_gradient_multiplies_g_by_the_derivative(dtype):
    # PyTorch's pow_backward: grad * (b * a^(b - 1)); at a = 0 and b = the largest float the
    # product is 0, where (grad * b) overflows first and inf * 0 gave nan
    big = float(np.finfo(dtype).max)
    a = np.array([0.0, -0.0, 5e-45, math.inf, 2.0, 0.5])
    b = np.array([big, big, big, -big, 3.0, -big])
    out = []
    for T in (leafgrad, torch):
        x = T.tensor(a.astype(dtype), requires_grad=True)
        y = T.tensor(b.astype(dtype), requires_grad=True)
        w = T.tensor(np.full(6, 1.5, dtype))
        (gx,) = T.autograd.grad((T.pow(x, y) * w).sum(), [x])
        out.append(gx.numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6)


@pytest.mark.parametrize("name", ["i0", "special.i1", "special.i0e"])
def test_bessel_i_at_the_largest_float(name):
    # I0(1.8e308) is inf (PyTorch): 2 pi x overflowed in the asymptotic form, and
    # exp(x) * (acc / inf) gave nan
    x = [1.7976931348623157e308, -1.7976931348623157e308, 1e300, 700.0, 30.0, -25.0]
    f = {"i0": lambda T: T.i0, "special.i1": lambda T: T.special.i1,
         "special.i0e": lambda T: T.special.i0e}[name]
    got = f(leafgrad)(leafgrad.tensor(x, dtype=leafgrad.float64)).numpy()
    want = f(torch)(torch.tensor(x, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
