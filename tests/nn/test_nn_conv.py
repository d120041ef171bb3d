"""Convolution and pooling modules against real PyTorch: reprs, state_dict keys,
default init, forward/backward with copied weights, a small CNN trained for a few
SGD steps, grad_fn names, higher-order derivatives and the error classes.
(The functional ops themselves are in tests/op_table.py.)"""
import math

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn
from leafgrad.autograd import gradcheck, gradgradcheck
from test_nn_layers import arr, copy_weights, run_both

# both libraries warn for padding='same' with an even kernel (checked in test_same_padding_warns_like_torch)
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")

REPRS = [
    "Conv2d(1, 8, 3)", "Conv2d(1, 8, kernel_size=(3, 5), stride=2, padding=1)",
    "Conv2d(4, 6, 3, stride=(2, 1), padding=(1, 2), dilation=2, groups=2, bias=False)",
    "Conv2d(2, 4, 3, padding='same')", "Conv2d(2, 4, 3, padding='valid')",
    "Conv1d(2, 3, 3)", "Conv1d(2, 4, 5, stride=2, padding=2, groups=2)",
    "MaxPool2d(2)", "MaxPool2d((2, 3), stride=1, padding=1, dilation=2, ceil_mode=True)",
    "MaxPool2d(3, return_indices=True)", "MaxPool1d(2)", "MaxPool1d(3, 2, 1)",
    "AvgPool2d(2)", "AvgPool2d(3, 2, 1, True, False, 2)", "AvgPool1d(3)", "AvgPool1d(4, 2, 1)",
    "AdaptiveAvgPool2d(1)", "AdaptiveAvgPool2d((None, 3))", "AdaptiveAvgPool1d(4)",
    "Sequential(Conv2d(1, 4, 3, padding=1), ReLU(), MaxPool2d(2), Flatten(), Linear(16, 2))",
]


@pytest.mark.parametrize("expr", REPRS)
def test_repr_matches_torch(expr):
    assert repr(eval(expr, {**vars(lnn)})) == repr(eval(expr, {**vars(torch.nn)}))


@pytest.mark.parametrize("expr", ["Conv2d(2, 4, 3)", "Conv2d(2, 4, 3, bias=False)",
                                  "Conv1d(3, 2, 2, groups=1)"])
def test_parameters_and_state_dict_match_torch(expr):
    t, m = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert list(m.state_dict()) == list(t.state_dict())
    for (tn, tp), (ln, lp) in zip(t.named_parameters(), m.named_parameters()):
        assert tn == ln and tuple(lp.shape) == tuple(tp.shape)
        assert lp.dtype == lg.float32 and lp.requires_grad


def test_conv_default_init_bounds():
    lg.manual_seed(0)
    conv = lnn.Conv2d(6, 40, (3, 5), groups=2)
    bound = 1 / math.sqrt(3 * 3 * 5)            # fan_in = in_channels / groups * kH * kW
    w, b = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01


MODULES = [
    ("Conv2d(3, 4, 3)", (2, 3, 6, 5)),
    ("Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)",
     (2, 4, 7, 6)),
    ("Conv2d(2, 3, 4, padding='same', bias=False)", (1, 2, 5, 5)),
    ("Conv2d(3, 2, 3, padding=1)", (3, 6, 6)),                 # unbatched
    ("Conv1d(3, 4, 3, stride=2, padding=1)", (2, 3, 9)),
    ("Conv1d(2, 2, 2, padding='same', groups=2)", (2, 7)),
    ("MaxPool2d(2)", (2, 3, 6, 6)),
    ("MaxPool2d(3, stride=2, padding=1, ceil_mode=True)", (2, 3, 7, 6)),
    ("MaxPool2d(2, stride=1, dilation=2)", (3, 7, 7)),
    ("MaxPool1d(3, stride=2, padding=1)", (2, 3, 8)),
    ("AvgPool2d(2)", (2, 3, 6, 6)),
    ("AvgPool2d(3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)", (2, 3, 7, 6)),
    ("AvgPool2d(2, divisor_override=3)", (3, 5, 5)),
    ("AvgPool1d(3, stride=2, padding=1)", (2, 3, 8)),
    ("AdaptiveAvgPool2d((2, 3))", (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d(1)", (2, 3, 4, 4)),
    ("AdaptiveAvgPool1d(3)", (2, 3, 7)),
]


@pytest.mark.parametrize("expr,shape", MODULES)
def test_module_matches_torch(expr, shape):
    t, m = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    copy_weights(t, m)
    tout, lout = run_both(t, m, arr(*shape, seed=3))
    assert str(lout.dtype) == str(tout.dtype) == "torch.float32"
    assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__


def test_maxpool_return_indices_matches_torch():
    x = arr(2, 3, 7, 6, seed=1)
    t = torch.nn.MaxPool2d(3, stride=2, padding=1, return_indices=True)(torch.tensor(x))
    m = lnn.MaxPool2d(3, stride=2, padding=1, return_indices=True)(lg.tensor(x))
    np.testing.assert_array_equal(m[0].numpy(), t[0].numpy())
    np.testing.assert_array_equal(m[1].numpy(), t[1].numpy())
    assert m[1].dtype == lg.int64


def _cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
                         nn.Flatten(), nn.Linear(6 * 2 * 2, 3))


def test_small_cnn_sgd_steps_match_torch():
    """Forward, backward and three SGD(momentum) steps of a CNN, weights copied."""
    t, m = _cnn(torch.nn), _cnn(lnn)
    copy_weights(t, m)
    topt = torch.optim.SGD(t.parameters(), lr=0.1, momentum=0.9)
    lopt = lg.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    for step in range(3):
        x, y = arr(5, 1, 8, 8, seed=step), np.arange(5) % 3
        tl = torch.nn.functional.cross_entropy(t(torch.tensor(x)), torch.tensor(y))
        ll = lg.nn.functional.cross_entropy(m(lg.tensor(x)), lg.tensor(y))
        np.testing.assert_allclose(ll.item(), tl.item(), rtol=1e-5)
        topt.zero_grad(), lopt.zero_grad()
        tl.backward(), ll.backward()
        for (n, tp), lp in zip(t.named_parameters(), m.parameters()):
            np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6,
                                       err_msg=n)
        topt.step(), lopt.step()
    for tp, lp in zip(t.parameters(), m.parameters()):
        np.testing.assert_allclose(lp.detach().numpy(), tp.detach().numpy(), rtol=1e-4,
                                   atol=1e-6)


def test_gradient_penalty_through_a_cnn_matches_torch():
    """create_graph=True through conv, max and avg pooling, then backward again."""
    t, m = _cnn(torch.nn), _cnn(lnn)
    copy_weights(t, m)
    x = arr(2, 1, 8, 8, seed=5)
    res = []
    for T, net in ((torch, t), (lg, m)):
        xi = T.tensor(x, requires_grad=True)
        (g,) = T.autograd.grad(net(xi).pow(2).sum(), xi, create_graph=True)
        (g * g).sum().backward()
        res.append([p.grad.numpy() for p in net.parameters()])
    for a, b in zip(res[1], res[0]):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-6)


def test_backward_node_names_match_torch():
    x = arr(2, 2, 6, 6)
    w = arr(3, 2, 3, 3, seed=1)
    names = []
    for T in (torch, lg):
        F = T.nn.functional
        xi, wi = T.tensor(x, requires_grad=True), T.tensor(w, requires_grad=True)
        outs = [F.conv2d(xi, wi), F.max_pool2d(xi, 2), F.avg_pool2d(xi, 2),
                F.adaptive_avg_pool2d(xi, 2), F.conv2d(xi[0], wi)]
        seconds = [T.autograd.grad(o.sum() if k else o.pow(2).sum(), xi, create_graph=True)[0]
                   for k, o in enumerate(outs[:3])]
        names.append([type(o.grad_fn).__name__ for o in outs + seconds])
    assert names[1] == names[0]


@pytest.mark.parametrize("f", [
    lambda F, x, w: F.conv2d(x, w, stride=(2, 1), padding=1, dilation=(1, 2)),
    lambda F, x, w: F.conv2d(x, w[:, :1], padding="same", groups=2),
    lambda F, x, w: F.max_pool2d(x * w.sum(), 2, stride=1, padding=1),
    lambda F, x, w: F.avg_pool2d(x * w.sum(), 3, padding=1, count_include_pad=False),
])
def test_third_order_by_gradgradcheck(f):
    """gradgradcheck differentiates the recorded backward (second order) numerically,
    which needs the backward of the backward's backward."""
    x = lg.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 3)), requires_grad=True)
    w = lg.tensor(np.random.default_rng(1).standard_normal((2, 2, 2, 2)), requires_grad=True)
    fn = lambda a, b: f(lg.nn.functional, a, b)  # noqa: E731
    assert gradcheck(fn, (x, w))
    assert gradgradcheck(fn, (x, w), atol=1e-4)


def _raises_like_torch(fn):
    try:
        fn(torch)
    except Exception as e:
        cls = type(e)
    else:
        raise AssertionError("torch raised nothing")
    with pytest.raises(cls) as info:
        fn(lg)
    return str(info.value)


def test_wrong_channel_count_raises_like_torch_with_the_fix():
    msg = _raises_like_torch(lambda T: T.nn.Conv2d(3, 8, 3)(T.ones(2, 1, 8, 8)))
    assert "expected input[2, 1, 8, 8] to have 3 channels, but got 1" in msg
    assert "in_channels=1" in msg and "permute(0, 3, 1, 2)" in msg
    msg = _raises_like_torch(lambda T: T.nn.Conv2d(4, 8, 3, groups=2)(T.ones(2, 3, 8, 8)))
    assert "groups=2" in msg and "in_channels=3" in msg


def test_input_smaller_than_the_kernel_raises_like_torch_with_the_fix():
    msg = _raises_like_torch(lambda T: T.nn.Conv2d(1, 2, 5)(T.ones(1, 1, 3, 3)))
    assert "Kernel size: (5 x 5)" in msg and "padding" in msg
    msg = _raises_like_torch(lambda T: T.nn.MaxPool2d(4)(T.ones(1, 2, 3, 3)))
    assert "Output size is too small" in msg and "kernel_size" in msg
    _raises_like_torch(lambda T: T.nn.AvgPool2d(4)(T.ones(1, 2, 3, 3)))


@pytest.mark.parametrize("make", [
    lambda T: T.nn.Conv2d(3, 4, 3, groups=2),
    lambda T: T.nn.Conv2d(2, 4, 3, padding="full"),
    lambda T: T.nn.Conv2d(2, 4, 3, stride=2, padding="same"),
    lambda T: T.nn.Conv2d(2, 4, 3, padding_mode="mirror"),
    lambda T: T.nn.functional.conv2d(T.ones(1, 2, 5, 5), T.ones(3, 2, 3, 3), stride=0),
    lambda T: T.nn.functional.conv2d(T.ones(1, 2, 5, 5), T.ones(3, 2, 3)),
    lambda T: T.nn.functional.conv2d(T.ones(2, 5, 5, 5, 5), T.ones(3, 2, 3, 3)),
    lambda T: T.nn.functional.conv2d(T.ones(1, 2, 5, 5), T.ones(3, 2, 3, 3), T.ones(4)),
    lambda T: T.nn.functional.conv2d(T.ones(1, 2, 5, 5).double(), T.ones(3, 2, 3, 3)),
    lambda T: T.nn.functional.max_pool2d(T.ones(1, 2, 5, 5), 3, padding=2),
    lambda T: T.nn.functional.max_pool2d(T.ones(5, 5), 2),
    lambda T: T.nn.functional.adaptive_avg_pool2d(T.ones(1, 2, 5, 5), (1, 2, 3)),
    lambda T: T.nn.functional.adaptive_avg_pool2d(T.ones(1, 2, 5, 5, dtype=T.int64), 2),
])
def test_bad_arguments_raise_like_torch(make):
    _raises_like_torch(make)


@pytest.mark.parametrize("expr", ["Conv2d(2, 4, 3, padding=1, padding_mode='reflect')",
                                  "Conv2d(2, 4, (3, 2), padding=(1, 2), padding_mode='circular')",
                                  "Conv1d(2, 4, 4, padding='same', padding_mode='replicate')",
                                  "Conv3d(2, 2, 3, padding=1, padding_mode='reflect')"])
def test_other_padding_modes_match_torch(expr):
    t, m = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(m) == repr(t)
    copy_weights(t, m)
    nd = len(t.kernel_size)
    run_both(t, m, arr(2, 2, *([5] * nd)))


def test_float64_in_float64_out():
    conv = lnn.Conv2d(2, 3, 3).double()
    x = lg.ones(1, 2, 5, 5, dtype=lg.float64, requires_grad=True)
    y = lnn.MaxPool2d(2)(conv(x))
    y.sum().backward()
    assert y.dtype == x.grad.dtype == conv.weight.grad.dtype == lg.float64


def test_results_survive_later_calls():
    """Large temporaries are reused across calls: results still referenced must not be."""
    conv, pool = lnn.Conv2d(3, 8, 3, padding=1), lnn.MaxPool2d(2)
    x = lg.tensor(arr(16, 3, 32, 32), requires_grad=True)
    y = pool(conv(x))
    y.sum().backward()
    out, grad = y.detach().numpy().copy(), x.grad.numpy().copy()
    for scale in (2.0, 3.0):       # the same windows win: x.grad grows to 1 + 2 + 3 times
        pool(conv(x * scale)).sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), out)
    np.testing.assert_allclose(x.grad.numpy(), grad * 6, rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("always")
def test_same_padding_warns_like_torch():
    """PyTorch's text; PyTorch warns once per process (so only leafgrad is called here)."""
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths and odd "
                                         "dilation may require a zero-padded copy"):
        lg.nn.functional.conv2d(lg.ones(1, 1, 5, 5), lg.ones(1, 1, 2, 2), padding="same")


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "max_pool1d", "max_pool2d", "avg_pool1d",
                                  "adaptive_avg_pool1d"])
def test_top_level_names_as_torch(name):
    """torch.conv2d, torch.max_pool2d, ... exist at the top level too."""
    args = {"conv1d": ((2, 3, 7), (4, 3, 2)), "conv2d": ((2, 3, 6, 5), (4, 3, 2, 2))}.get(
        name, ((2, 3, 6),))
    extra = () if name.startswith("conv") else (2,)
    res = [getattr(T, name)(*[T.tensor(arr(*s, seed=i)) for i, s in enumerate(args)], *extra)
           for T in (torch, lg)]
    np.testing.assert_allclose(res[1].numpy(), res[0].numpy(), rtol=1e-5, atol=1e-6)
