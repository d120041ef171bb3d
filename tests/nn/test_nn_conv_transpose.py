"""conv_transpose1d/2d/3d, conv3d and their modules against real PyTorch 2.13: values,
gradients (input, weight, bias), second order, reprs, state_dict, output_size, errors."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.nn.functional as LF
from leafgrad.autograd import gradcheck, gradgradcheck


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def close(l, t, rtol=1e-4, atol=1e-4):
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


CASES = [
    ("conv_transpose2d", (2, 4, 5, 6), (4, 3, 3, 3), {}),
    ("conv_transpose2d", (2, 4, 5, 6), (4, 3, 3, 2), {"stride": 2, "padding": 1,
                                                      "output_padding": 1}),
    ("conv_transpose2d", (2, 4, 5, 6), (4, 2, 3, 3), {"stride": (2, 3), "padding": (1, 0),
                                                      "output_padding": (1, 2), "groups": 2,
                                                      "dilation": (1, 2)}),
    ("conv_transpose2d", (2, 4, 5, 6), (4, 2, 3, 3), {"dilation": 2, "output_padding": 1}),
    ("conv_transpose2d", (4, 5, 6), (4, 2, 2, 2), {"stride": 2}),                # unbatched
    ("conv_transpose2d", (1, 2, 3, 3), (2, 1, 4, 4), {"stride": 1, "padding": 2}),
    ("conv_transpose1d", (2, 4, 7), (4, 3, 3), {"stride": 3, "padding": 2, "output_padding": 1}),
    ("conv_transpose1d", (4, 7), (4, 3, 3), {"stride": 2}),
    ("conv_transpose1d", (2, 6, 7), (6, 1, 3), {"groups": 6}),
    ("conv_transpose3d", (2, 4, 3, 4, 5), (4, 2, 2, 3, 2), {"stride": 2, "padding": 1}),
    ("conv3d", (2, 4, 5, 6, 7), (4, 2, 3, 2, 3), {"stride": (1, 2, 1), "padding": 1,
                                                  "groups": 2, "dilation": (1, 1, 2)}),
    ("conv3d", (3, 5, 6, 7), (2, 3, 3, 3, 3), {"padding": "same"}),
]


@pytest.mark.parametrize("fn,xs,ws,kw", CASES)
@pytest.mark.parametrize("with_bias", [True, False])
def test_functional_matches_torch(fn, xs, ws, kw, with_bias):
    x, w = arr(*xs, seed=1), arr(*ws, seed=2)
    cout = ws[0] if fn == "conv3d" else ws[1] * kw.get("groups", 1)
    b = arr(cout, seed=3)
    t = [torch.tensor(v, requires_grad=True) for v in (x, w, b)]
    l = [lg.tensor(v, requires_grad=True) for v in (x, w, b)]
    tout = getattr(TF, fn)(t[0], t[1], t[2] if with_bias else None, **kw)
    lout = getattr(LF, fn)(l[0], l[1], l[2] if with_bias else None, **kw)
    close(lout, tout)
    assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = arr(*tout.shape, seed=4)
    (tout * torch.tensor(g)).sum().backward()
    (lout * lg.tensor(g)).sum().backward()
    for tt, ll in zip(t, l):
        if tt.grad is None:
            assert ll.grad is None
        else:
            close(ll.grad, tt.grad, 1e-3, 1e-3)


@pytest.mark.parametrize("kw", [{"stride": 2, "padding": 1, "output_padding": 1},
                                {"groups": 2, "dilation": 2, "output_padding": 1}])
def test_second_order(kw):
    rng = np.random.default_rng(0)
    x = lg.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    w = lg.tensor(rng.standard_normal((2, 2, 2, 3)), requires_grad=True)
    b = lg.tensor(rng.standard_normal(2 * kw.get("groups", 1)), requires_grad=True)
    f = lambda x, w, b: LF.conv_transpose2d(x, w, b, **kw)  # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    # against torch's double backward
    tx, tw = (torch.tensor(v.detach().numpy(), requires_grad=True) for v in (x, w))
    out = TF.conv_transpose2d(tx, tw, None, **kw)
    gx, = torch.autograd.grad((out ** 2).sum(), tx, create_graph=True)
    gx.sum().backward()
    lx, lw = (lg.tensor(v.detach().numpy(), requires_grad=True) for v in (x, w))
    out = LF.conv_transpose2d(lx, lw, None, **kw)
    lgx, = lg.autograd.grad((out ** 2).sum(), lx, create_graph=True)
    lgx.sum().backward()
    close(lgx, gx, 1e-6, 1e-8), close(lw.grad, tw.grad, 1e-6, 1e-8)


REPRS = [
    "ConvTranspose2d(4, 3, 3)", "ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1, "
    "output_padding=1, groups=2, bias=False, dilation=2)", "ConvTranspose1d(2, 3, 4, 2)",
    "ConvTranspose3d(2, 4, 3, stride=(1, 2, 2))", "Conv3d(2, 4, 3)",
    "Conv3d(4, 4, (1, 3, 3), padding=(0, 1, 1), groups=4)",
]


@pytest.mark.parametrize("expr", REPRS)
def test_repr_state_dict_and_forward_match_torch(expr):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in l.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    nd = len(t.kernel_size)
    x = arr(2, t.in_channels, *([6] * nd))
    close(l(lg.tensor(x)), t(torch.tensor(x)))


def test_default_init_bounds():
    lg.manual_seed(0)
    m = lnn.ConvTranspose2d(6, 40, (3, 5), groups=2)
    bound = 1 / math.sqrt(20 * 15)            # fan_in = out_channels / groups * kH * kW
    w = m.weight.detach().numpy()
    assert w.shape == (6, 20, 3, 5)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound


@pytest.mark.parametrize("size", [(11, 13), (12, 14), [2, 3, 11, 13]])
def test_output_size(size):
    t, l = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), \
        lnn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = arr(2, 3, 6, 7)
    close(l(lg.tensor(x), output_size=size), t(torch.tensor(x), output_size=size))


def test_output_size_out_of_range_is_value_error():
    t, l = torch.nn.ConvTranspose2d(3, 2, 3, stride=2), lnn.ConvTranspose2d(3, 2, 3, stride=2)
    with pytest.raises(ValueError):
        t(torch.randn(1, 3, 4, 4), output_size=(20, 20))
    with pytest.raises(ValueError, match="Fix:"):
        l(lg.randn(1, 3, 4, 4), output_size=(20, 20))
    with pytest.raises(ValueError):
        lnn.ConvTranspose2d(3, 2, 3, padding_mode="reflect")


@pytest.mark.parametrize("call", [
    lambda F, lib: F.conv_transpose2d(lib.randn(1, 3, 4, 4), lib.randn(4, 2, 3, 3)),
    lambda F, lib: F.conv_transpose2d(lib.randn(1, 4, 4, 4), lib.randn(4, 2, 3, 3),
                                      output_padding=1),
    lambda F, lib: F.conv_transpose2d(lib.randn(1, 4, 2, 2), lib.randn(4, 2, 1, 1),
                                      padding=3),
    lambda F, lib: F.conv_transpose2d(lib.randn(1, 4, 4, 4), lib.randn(4, 2, 3, 3),
                                      lib.randn(3)),
    lambda F, lib: F.conv_transpose2d(lib.randn(1, 4, 4), lib.randn(4, 2, 3, 3).double()),
    lambda F, lib: F.conv3d(lib.randn(1, 4, 4, 4, 4), lib.randn(2, 3, 3, 3, 3)),
])
def test_errors_as_torch(call):
    with pytest.raises(RuntimeError):
        call(TF, torch)
    with pytest.raises(RuntimeError):
        call(LF, lg)


def test_autoencoder_trains_like_torch():
    """A conv / conv-transpose autoencoder, 3 SGD steps, same weights: same losses."""
    def build(nn):
        return nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(),
                             nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1))
    torch.manual_seed(0)
    tm, lm = build(torch.nn), build(lnn)
    lm.load_state_dict({k: lg.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    topt = torch.optim.SGD(tm.parameters(), lr=0.1)
    lopt = lg.optim.SGD(lm.parameters(), lr=0.1)
    x = arr(4, 1, 8, 8)
    for _ in range(3):
        tl = ((tm(torch.tensor(x)) - torch.tensor(x)) ** 2).mean()
        ll = ((lm(lg.tensor(x)) - lg.tensor(x)) ** 2).mean()
        np.testing.assert_allclose(ll.item(), tl.item(), rtol=1e-5)
        topt.zero_grad(), lopt.zero_grad()
        tl.backward(), ll.backward()
        topt.step(), lopt.step()
