"""Backward-engine behaviour, each error case checked against PyTorch's exception class."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad

LIBS = [pytest.param(torch, id="torch"), pytest.param(leafgrad, id="leafgrad")]


def _raises_like_torch(fn):
    """Run ``fn(T)`` on torch and leafgrad: both must raise, leafgrad the same class."""
    with pytest.raises(Exception) as te:
        fn(torch)
    with pytest.raises(type(te.value)) as le:
        fn(leafgrad)
    return te.value, le.value


@pytest.mark.slow
def test_million_op_chain_backpropagates_without_recursion_error():
    x = leafgrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.0000001
    y.sum().backward()
    # the gradient is the same float32 product as the forward value (x = 1); with the float32
    # constant 1.00000012 that is about 1.119 (1.0000001 ** 1e6 = 1.105 in exact arithmetic)
    assert x.grad is not None
    np.testing.assert_allclose(x.grad._data, y._data, rtol=1e-5)
    np.testing.assert_allclose(x.grad._data, [float(np.float32(1.0000001)) ** 1_000_000],
                               rtol=1e-2)


def test_deep_chain_matches_torch():
    res = []
    for T in (torch, leafgrad):
        x = T.tensor([0.5, -0.25], dtype=T.float64, requires_grad=True)
        y = x
        for i in range(3000):
            y = (y * 0.999 + 0.001).tanh() if i % 2 else y + 0.0001
        y.sum().backward()
        res.append(x.grad.numpy() if T is torch else x.grad._data)
    np.testing.assert_allclose(res[1], res[0], rtol=1e-9)


@pytest.mark.parametrize("T", LIBS)
def test_gradient_accumulates_across_backward_calls(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    (3 * x).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("T", LIBS)
def test_retain_graph_allows_second_backward(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    g1 = x.grad.clone()
    y.backward()
    np.testing.assert_allclose(x.grad.tolist(), (2 * g1).tolist(), rtol=1e-6)


def test_second_backward_without_retain_graph_raises():
    def f(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        y.backward()
    te, le = _raises_like_torch(f)
    assert isinstance(le, RuntimeError)
    assert "second time" in str(le) or "freed" in str(le)


def test_grad_after_backward_freed_raises():
    def f(T):
        x = T.tensor([1.0], requires_grad=True)
        y = (x.sin() * 2).sum()
        T.autograd.grad(y, x)
        T.autograd.grad(y, x)
    _raises_like_torch(f)


def test_non_scalar_backward_without_gradient_raises():
    def f(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).backward()
    te, le = _raises_like_torch(f)
    assert isinstance(le, RuntimeError)
    assert "scalar" in str(le)


@pytest.mark.parametrize("T", LIBS)
def test_non_scalar_backward_with_gradient(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    (x * x).backward(T.tensor([1.0, 0.5]))
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("T", LIBS)
def test_grad_returns_tuple(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    g = T.autograd.grad((x * x).sum(), x)
    # leafgrad: a tuple subclass that reports as tuple (its use as a number says to index it)
    assert isinstance(g, tuple) and type(g).__name__ == "tuple" and len(g) == 1
    assert g[0].tolist() == [2.0, 4.0]
    assert x.grad is None   # grad() does not accumulate into .grad


@pytest.mark.parametrize("T", LIBS)
def test_grad_allow_unused_returns_none(T):
    x = T.tensor([1.0], requires_grad=True)
    z = T.tensor([1.0], requires_grad=True)
    gx, gz = T.autograd.grad((x * 2).sum(), (x, z), allow_unused=True)
    assert gx.tolist() == [2.0] and gz is None
    gx, gz = T.autograd.grad((x * 2).sum(), (x, z), materialize_grads=True)
    assert gz.tolist() == [0.0]


def test_grad_unused_input_raises():
    def f(T):
        x = T.tensor([1.0], requires_grad=True)
        z = T.tensor([1.0], requires_grad=True)
        T.autograd.grad((x * 2).sum(), (x, z))
    te, le = _raises_like_torch(f)
    assert isinstance(le, RuntimeError)


def test_grad_of_output_without_grad_raises():
    def f(T):
        x = T.tensor([1.0])
        (x * 2).sum().backward()
    _raises_like_torch(f)


@pytest.mark.parametrize("T", LIBS)
def test_broadcasting_is_reduced_in_backward(T):
    a = T.tensor([[1.0], [2.0], [3.0]], requires_grad=True)      # (3, 1)
    b = T.tensor([10.0, 20.0], requires_grad=True)                 # (2,)
    c = T.tensor(0.5, requires_grad=True)                          # ()
    ((a * b + c) ** 2).sum().backward()
    assert tuple(a.grad.shape) == (3, 1) and tuple(b.grad.shape) == (2,)
    assert tuple(c.grad.shape) == ()


def test_broadcasting_gradients_match_torch():
    res = []
    for T in (torch, leafgrad):
        a = T.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
        b = T.tensor([[[10.0, 20.0]]], requires_grad=True)
        (a * b - a / b).sum().backward()
        res.append([a.grad.tolist(), b.grad.tolist()])
    np.testing.assert_allclose(np.array(res[1][0]), np.array(res[0][0]), rtol=1e-6)
    np.testing.assert_allclose(np.array(res[1][1]), np.array(res[0][1]), rtol=1e-6)


@pytest.mark.parametrize("T", LIBS)
def test_diamond_graph(T):
    x = T.tensor([1.5, -2.0], requires_grad=True)
    a = x * 2
    b = a.exp()
    c = a.sin()
    d = (b * c + a).sum()
    d.backward()
    xv = np.array([1.5, -2.0])
    expected = 2 * (np.exp(2 * xv) * np.sin(2 * xv) + np.exp(2 * xv) * np.cos(2 * xv) + 1)
    np.testing.assert_allclose(x.grad.tolist(), expected, rtol=1e-5)


@pytest.mark.parametrize("T", LIBS)
def test_same_tensor_used_twice(T):
    x = T.tensor([3.0], requires_grad=True)
    (x * x * x + x).sum().backward()
    assert x.grad.tolist() == [28.0]


def test_grad_of_non_leaf_is_none_with_user_warning():
    for T in (torch, leafgrad):
        x = T.tensor([1.0], requires_grad=True)
        y = x * 2
        y.sum().backward()
        with pytest.warns(UserWarning, match="leaf"):
            assert y.grad is None


@pytest.mark.parametrize("T", LIBS)
def test_retain_grad_on_non_leaf(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [4.0, 8.0]


@pytest.mark.parametrize("T", LIBS)
def test_log_of_zero_is_minus_inf_without_numpy_warning(T):
    # pytest turns RuntimeWarning into errors (pyproject filterwarnings)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = T.tensor([0.0, 1.0, -1.0], requires_grad=True)
        y = T.log(x)
        assert y[0].item() == float("-inf")
        assert np.isnan(y[2].item())
        y.sum().backward()
        assert x.grad[0].item() == float("inf")
        for f in (lambda: T.tensor([0.0]) / 0, lambda: T.tensor([1.0]) / 0,
                  lambda: T.sqrt(T.tensor([-1.0])), lambda: T.exp(T.tensor([1000.0])),
                  lambda: T.tensor([0.0]).log().exp(), lambda: T.tensor([0.0]) ** -1,
                  lambda: T.tensor([0.0]).rsqrt(), lambda: T.log1p(T.tensor([-1.0]))):
            f()


def test_integer_tensor_requires_grad_raises():
    te, le = _raises_like_torch(lambda T: T.tensor([1, 2], requires_grad=True))
    assert isinstance(le, RuntimeError)
    _raises_like_torch(lambda T: T.tensor([1, 2]).requires_grad_())
    _raises_like_torch(lambda T: T.zeros(2, dtype=T.int64, requires_grad=True))


def test_numpy_on_requires_grad_tensor_raises():
    te, le = _raises_like_torch(lambda T: T.tensor([1.0], requires_grad=True).numpy())
    assert isinstance(le, RuntimeError)
    assert leafgrad.tensor([1.0], requires_grad=True).detach().numpy().tolist() == [1.0]


@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (2,)),
                                    ((5, 2, 3), (5, 4, 2)), ((3,), (2, 4))])
def test_matmul_shape_mismatch_names_both_shapes(shapes):
    sa, sb = shapes
    te, le = _raises_like_torch(lambda T: T.matmul(T.ones(*sa), T.ones(*sb)))
    assert isinstance(le, RuntimeError)
    msg = str(le)
    # both operands' shapes appear (in any of the usual spellings)

    def spelled(s):
        return any(form in msg for form in ("x".join(map(str, s)), str(list(s)), str(tuple(s)),
                                            "[%d]" % s[0] if len(s) == 1 else "\0"))
    assert spelled(sa) or spelled((1,) + sa), msg
    assert spelled(sb) or spelled(sb + (1,)), msg


@pytest.mark.parametrize("T", LIBS)
def test_create_graph_second_derivative(T):
    x = T.tensor([2.0], requires_grad=True)
    (g,) = T.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    assert g.tolist() == [12.0] and gg.tolist() == [12.0]


@pytest.mark.parametrize("T", LIBS)
def test_no_grad_records_nothing(T):
    x = T.tensor([1.0], requires_grad=True)
    with T.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None


@pytest.mark.parametrize("T", LIBS)
def test_detach_stops_gradient(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    (x * x.detach()).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0]
