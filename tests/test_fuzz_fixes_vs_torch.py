"""Plain tests for the defects the differential fuzzer (tests/fuzz) found and that are
fixed at their root: edge values (+-0, +-inf, nan, 1e30, float32 overflow), each
against real PyTorch (values and first / second-order gradients, nan and inf at the
same places), and no NumPy RuntimeWarning where PyTorch is silent."""
import math
import warnings

import numpy as np
import pytest
import torch

import leafgrad


def _run(T, f, arrays, dtype, second):
    xs = [T.tensor(np.asarray(a, dtype=dtype), requires_grad=True) for a in arrays]
    y = f(T, *xs)
    out = [y]
    gs = T.autograd.grad(y.sum(), xs, create_graph=second, allow_unused=True)
    out += [g for g in gs if g is not None]
    if second:
        tot = sum((g * 1.0).sum() for g in gs if g is not None and g.requires_grad)
        if not isinstance(tot, int):
            out += [g for g in T.autograd.grad(tot, xs, allow_unused=True) if g is not None]
    return [o.detach().numpy(force=True) if T is torch else o.detach().numpy() for o in out]


def check(f, arrays, dtype=np.float64, second=False, rtol=1e-6):
    want = _run(torch, f, arrays, dtype, second)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)      # PyTorch is silent
        got = _run(leafgrad, f, arrays, dtype, second)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isposinf(a), np.isposinf(b))
        np.testing.assert_array_equal(np.isneginf(a), np.isneginf(b))
        fin = np.isfinite(b)
        np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=1e-6)


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-30, 1.0, -2.5, 0.5, 2.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sinc_gradient_masks_where_pi_x_squared_underflows(dtype):
    # PyTorch's sinc_backward: 0 where pi x^2 == 0 (1e-30 in float32 included)
    check(lambda T, x: T.sinc(x), [SPECIAL], dtype)


def test_logit_eps_gradient_at_nan_is_zero():
    # the differentiable form (create_graph; its vectorized kernel agrees, its scalar
    # tail does not: tests/fuzz/known_mismatches.py): nan is outside [eps, 1 - eps]
    x = [0.5, np.nan, 0.05, 0.95, 0.3] * 8
    check(lambda T, x: T.logit(x, eps=0.1), [x], np.float64, True)


@pytest.mark.parametrize("p", [float("inf"), float("-inf")])
def test_vector_norm_inf_gradient_counts_nan_as_the_argmax(p):
    x = [[0.68, np.nan], [1.0, -1.0], [np.inf, 2.0], [-np.inf, np.nan]]
    check(lambda T, x: T.linalg.vector_norm(x, p, dim=1), [x], np.float64, True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("args", [(3.0, 1, 2.0), (2, 0, 1.0), (1, -1, 0.5)])
def test_renorm_gradient_selects_the_scaled_slices(dtype, args):
    # a slice with a nan norm is left alone (gradient g); float32 norms in float64 as
    # PyTorch's renorm_backward (1e30 ** 3 does not overflow there)
    x = [[-0.54, np.nan, 0.07, 2.5], [1e30, 1.0, -3.0, 0.1], [0.1, 0.2, 0.3, 0.1]]
    check(lambda T, x: T.renorm(x, *args), [x], dtype, dtype == np.float64)
    check(lambda T, x: (x * 1).renorm_(*args), [x], dtype)


def test_renorm_grad_fn_name():
    x = leafgrad.ones(2, 3, requires_grad=True)
    assert leafgrad.renorm(x, 2, 0, 1.0).grad_fn.name() == "RenormBackward0"


def test_bilinear_contracts_in1_first():
    # x1^T A x2 summed over in1 first (PyTorch's _trilinear): an inf in x2 meets finite
    # column sums, not +-inf halves
    x1 = [[1.787, 0.314, 1.271]]
    x2 = [[np.inf, 1.094, -0.0]]
    w = [[[1e30, -0.18, 0.77], [-1.35, -0.0, 1.96], [-1.25, 1.56, -0.24]]]
    check(lambda T, a, b, w: T.nn.functional.bilinear(a, b, w), [x1, x2, w], np.float64, True)


@pytest.mark.parametrize("t,k,pad", [(5, 2, 1), (3, 1, 2), (4, 3, 0), (6, 3, 2)])
def test_conv_tbc_never_multiplies_padding(t, k, pad):
    rng = np.random.default_rng(t * 10 + k)
    x, w, b = rng.normal(size=(t, 2, 3)), rng.normal(size=(k, 3, 4)), rng.normal(size=4)
    w[0, 0, 0] = np.inf
    check(lambda T, x, w, b: T.conv_tbc(x, w, b, pad), [x, w, b], np.float64, True)


def test_conv_tbc_negative_length_raises_as_torch():
    with pytest.raises(RuntimeError):
        torch.conv_tbc(torch.ones(2, 2, 3), torch.ones(4, 3, 4), torch.zeros(4))
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        leafgrad.conv_tbc(leafgrad.ones(2, 2, 3), leafgrad.ones(4, 3, 4), leafgrad.zeros(4))


def test_cov_with_no_degrees_of_freedom_divides_by_plus_zero():
    # PyTorch zeroes the normaliser: c / +0 keeps c's sign (norm * 0 gave -0 for a
    # negative normaliser)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(lambda T, x: T.cov(x, correction=2, aweights=T.tensor([0.5, 1.0],
                                                                    dtype=x.dtype)),
              [[[-1.0, 1.0]]], np.float64)


def test_trace_of_opposite_infinities_is_silent_nan():
    check(lambda T, x: T.trace(x), [[[np.inf, 1.0], [2.0, -np.inf]]], np.float64)


@pytest.mark.parametrize("padding", ["zeros"])   # PyTorch 2.13 crashes (SIGSEGV) on an inf
# location with border / reflection padding
def test_grid_sample_out_of_bounds_taps_send_no_gradient(padding):
    # an inf / nan grid location: PyTorch's masked scatter sends the input no gradient
    # there (no 0 * inf = nan), its value is nan; no warning
    rng = np.random.default_rng(0)
    inp = rng.normal(size=(1, 2, 3, 4))
    grid = rng.uniform(-1, 1, size=(1, 2, 2, 2))
    grid[0, 0, 0, 0], grid[0, 1, 1, 1] = np.inf, np.nan
    grid[0, 1, 0, 0] = -np.inf
    check(lambda T, a, g: T.nn.functional.grid_sample(a, g, padding_mode=padding,
                                                      align_corners=False), [inp, grid])


@pytest.mark.parametrize("name", ["chebyshev_polynomial_t", "chebyshev_polynomial_w",
                                  "hermite_polynomial_h", "laguerre_polynomial_l",
                                  "legendre_polynomial_p"])
def test_polynomials_overflow_in_float32_as_torch(name):
    # computed in float32 (inf, then inf - inf = nan, as PyTorch's kernels)
    x = np.array([1e30, -1e30, 1e10, -1e7, 1e5, 0.5, -0.3, 3.0], np.float32)
    for n in (4, 5, 9, 12):
        want = getattr(torch.special, name)(torch.tensor(x), n).numpy()
        got = getattr(leafgrad.special, name)(leafgrad.tensor(x), n).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        fin = np.isfinite(want)
        np.testing.assert_allclose(got[fin], want[fin], rtol=1e-4)


def test_trigamma_float32_near_a_pole_as_torch():
    # digamma's gradient: float32 sin(pi x) at x = -1 decides the value (1.29e15)
    check(lambda T, x: T.digamma(x), [[-1.0, 1.0, -2.0, -0.5]], np.float32, rtol=1e-5)


def test_zeta_and_polygamma_far_below_zero():
    # (PyTorch's Cephes loop runs |q| terms: q of -1e7 would take it seconds)
    q = [-2.07725678e+05, -1.50482464e+03, -3.2e4 - 0.3, -5.3, 2.5]
    for s in (2.0, 3.0, 4.0):
        want = torch.special.zeta(torch.tensor(s, dtype=torch.float64),
                                  torch.tensor(q, dtype=torch.float64)).numpy()
        got = leafgrad.special.zeta(leafgrad.tensor(s, dtype=leafgrad.float64),
                                    leafgrad.tensor(q, dtype=leafgrad.float64)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-9)
    check(lambda T, x: x.polygamma(2) + x.polygamma(1), [q], np.float64, rtol=1e-9)


def test_rrelu_eval_gradient_at_zero_is_the_slope():
    check(lambda T, x: T.rrelu_(x * 1, 0.1, 0.4), [[0.0, -0.0, -2.0, 3.0]])
    check(lambda T, x: T.nn.functional.rrelu(x, 0.1, 0.4), [[0.0, -0.0, -2.0, 3.0]])


def test_adaptive_max_pool_takes_the_last_nan():
    x = np.zeros((3, 3, 3))
    x[0, 0, 0] = x[0, 2, 2] = 1.0           # tied maxima: the first
    x[1, 1, 1] = x[1, 0, 0] = np.nan        # nans: the last
    for T in (torch, leafgrad):
        t = T.tensor(x)
        r = [T.nn.functional.adaptive_max_pool2d(t, (1, 1), return_indices=True)[1],
             T.nn.functional.adaptive_max_pool1d(t[1], 2, return_indices=True)[1]]
        if T is torch:
            want = [v.numpy() for v in r]
        else:
            got = [v.numpy() for v in r]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    check(lambda T, x: T.nn.functional.adaptive_max_pool2d(x, (1, 1)), [x])


# ---- session 10: found by the default fuzz run of a fresh clone
_EDGES = [math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 0.5, 1.0, 3.0]


@pytest.mark.parametrize("op", ["igamma", "igammac"])
def test_igamma_boundary_cascade(op):
    # PyTorch tests x < 0 or a < 0, a == 0, x == 0, inf a, inf x in that order:
    # igamma(nan, 0) is 0 and igamma(nan, inf) is 1
    a, x = np.meshgrid(_EDGES, _EDGES)
    check(lambda T, a, x: getattr(T, op)(a.detach(), x), [a.ravel(), x.ravel()])


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_takes_the_last_nan(nd):
    rng = np.random.default_rng(nd)
    for trial in range(20):
        x = rng.choice([math.nan, 1.0, 2.0, -math.inf, math.inf, 0.0], (1, 2) + (5,) * nd)
        outs = []
        for T in (torch, leafgrad):
            t = T.tensor(x, requires_grad=True)
            T.manual_seed(trial)
            y, i = getattr(T.nn.functional, "fractional_max_pool%dd" % nd)(
                t, 2, output_size=(2,) * nd, return_indices=True)
            y.sum().backward()
            outs.append((i.numpy(), t.grad.numpy()))
        np.testing.assert_array_equal(outs[1][0], outs[0][0])
        np.testing.assert_array_equal(outs[1][1], outs[0][1])


def test_logcumsumexp_float32_keeps_a_double_running_value():
    # at |x| ~ 1e7 float32's ulp is 1: PyTorch's CPU kernel accumulates in double
    x = np.array([10106137.0, -254860.47, -11686119.0, 1033343.06], np.float32)
    g = np.array([0.62048423, 1.6547631, -1.7389183, 1.3399528], np.float32)
    got = []
    for T in (torch, leafgrad):
        t = T.tensor(x, requires_grad=True)
        y = T.logcumsumexp(t, 0)
        y.backward(T.tensor(g))
        got.append((y.detach().numpy(), t.grad.numpy()))
    np.testing.assert_array_equal(got[1][0], got[0][0])
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-6)


def test_std_double_backward_nan_at_a_constant_input():
    # PyTorch's std_backward is (grad / (2 std)).masked_fill(std == 0, 0): its double
    # backward has 0 * inf = nan where the std is 0
    check(lambda T, a, y: (T.special.xlog1py(a.std(1), y)).sum(),
          [[[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]], [0.82, -1.38]], second=True)


@pytest.mark.parametrize("interpolation", ["linear", "midpoint"])
def test_quantile_interpolates_with_lerp_at_infinities(interpolation):
    x = [[-2.0, 3.5, math.inf], [-math.inf, -2.0, 3.5], [3.5, -math.inf, -2.0]]
    check(lambda T, t: t.quantile(0.25, -1, True, interpolation=interpolation)
          + t.nanquantile(0.5, interpolation=interpolation), [x])


def test_ldexp_exponent_gradient_reads_the_result():
    # derivatives.yaml: other: grad * result * ln 2 (the full-size result): under a
    # broadcast exponent at inf the double backward sums +-inf per element (nan), and at
    # 1.8e308 * 2**-1 the product is not formed as a * 2**b * ln 2 (which overflows)
    check(lambda T, a, b: T.ldexp(a.detach(), b).sum(),
          [[[3e3, -2e3], [4e4, -7e5]], [math.inf]], second=True)
    check(lambda T, a, b: (T.ldexp(a, b) * 1.5).sum(),
          [[1.8e308, -1.8e308, 1.8e308, 2.0], [-1.0, -1.0, -math.inf, 3.0]])
