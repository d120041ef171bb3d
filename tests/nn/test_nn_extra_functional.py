"""Issue 13's nn.functional / nn extras against PyTorch: the modules (LPPool1d/2d/3d,
MaxUnpool1d/2d/3d, ChannelShuffle; RMSNorm and Bilinear through F.rms_norm and
F.bilinear): outputs, gradients, state_dict, repr; the functions' errors (same class as
PyTorch's); native_channel_shuffle's refusing backward; the in-place activations'
leaf refusal and version bump. Values and gradients of the functions themselves are
rows of tests/op_rows_nn.py.
"""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
import leafgrad.nn.functional as LF
import torch.nn.functional as TF


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return leafgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check_module(lm, tm, *shapes, extra=None):
    assert repr(lm) == repr(tm)
    sd = {k: v.shape for k, v in tm.state_dict().items()}
    assert {k: tuple(v.shape) for k, v in lm.state_dict().items()} == {
        k: tuple(v) for k, v in sd.items()}
    lm.load_state_dict({k: leafgrad.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})
    ins = [_pair(s, i) for i, s in enumerate(shapes)]
    lo = lm(*[a for a, _ in ins], *(extra[0] if extra else ()))
    to = tm(*[b for _, b in ins], *(extra[1] if extra else ()))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    w = np.random.default_rng(9).standard_normal(tuple(to.shape)).astype(np.float32)
    (lo * leafgrad.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    for (a, b) in ins:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (n, p), (_, q) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=n)


@pytest.mark.parametrize("name, args, shape", [
    ("LPPool1d", (2, 3), (2, 3, 8)), ("LPPool1d", (1.5, 2, 1, True), (3, 7)),
    ("LPPool2d", (2, 2), (2, 3, 4, 5)), ("LPPool2d", (3, (2, 1), (1, 2)), (3, 5, 5)),
    ("LPPool3d", (2, 2), (1, 2, 4, 4, 5)), ("LPPool2d", (float("inf"), 2), (2, 3, 4, 4)),
    ("ChannelShuffle", (2,), (2, 4, 3, 3)), ("ChannelShuffle", (3,), (1, 6, 5)),
    ("RMSNorm", (5,), (2, 3, 5)), ("RMSNorm", ([3, 5], 1e-3), (2, 3, 5)),
    ("RMSNorm", (5, None, False), (4, 5)),
])
def test_modules_match_torch(name, args, shape):
    lm, tm = getattr(leafgrad.nn, name)(*args), getattr(torch.nn, name)(*args)
    if name.startswith("LPPool"):
        # positive inputs: x ** p of a fractional p is NaN below 0 in both
        a = np.random.default_rng(0).uniform(0.2, 2, shape).astype(np.float32)
        la, ta = leafgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        assert repr(lm) == repr(tm)
        lo, to = lm(la), tm(ta)
        np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5)
        lo.sum().backward()
        to.sum().backward()
        np.testing.assert_allclose(la.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-6)
        return
    _check_module(lm, tm, shape)


def test_bilinear_module_matches_torch():
    tm = torch.nn.Bilinear(3, 4, 5)
    _check_module(leafgrad.nn.Bilinear(3, 4, 5), tm, (2, 6, 3), (2, 6, 4))
    tm = torch.nn.Bilinear(3, 4, 2, bias=False)
    _check_module(leafgrad.nn.Bilinear(3, 4, 2, bias=False), tm, (3,), (4,))


@pytest.mark.parametrize("nd, args, shape", [
    (1, (2,), (2, 3, 8)), (1, (3, 2, 1), (2, 9)), (2, (2,), (2, 3, 4, 6)),
    (2, ((2, 3), (2, 1)), (1, 2, 5, 7)), (3, (2,), (1, 2, 4, 4, 6)),
])
def test_max_unpool_modules_match_torch(nd, args, shape):
    lm = getattr(leafgrad.nn, "MaxUnpool%dd" % nd)(*args)
    tm = getattr(torch.nn, "MaxUnpool%dd" % nd)(*args)
    assert repr(lm) == repr(tm)
    assert (lm.kernel_size, lm.stride, lm.padding) == (tm.kernel_size, tm.stride, tm.padding)
    la, ta = _pair(shape)
    kw = dict(zip(("kernel_size", "stride", "padding"), args))
    lp = getattr(leafgrad.nn, "MaxPool%dd" % nd)(**kw, return_indices=True)
    tp = getattr(torch.nn, "MaxPool%dd" % nd)(**kw, return_indices=True)
    size = list(shape[-nd:])
    lo, to = lm(*lp(la), output_size=size), tm(*tp(ta), output_size=size)
    assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__
    np.testing.assert_array_equal(lo.detach().numpy(), to.detach().numpy())
    w = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    (lo * leafgrad.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(la.grad.numpy(), ta.grad.numpy())


def test_max_unpool_second_order_matches_torch():
    la, ta = _pair((2, 2, 4, 4))
    outs = []
    for T, F, x in ((leafgrad, LF, la), (torch, TF, ta)):
        o, i = F.max_pool2d(x, 2, return_indices=True)
        y = F.max_unpool2d(o * o, i, 2)
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        outs.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def _raises_like(f):
    """f(T, F) raises the same exception class under torch and leafgrad."""
    try:
        f(torch, TF)
    except Exception as e:      # noqa: BLE001 (any class: leafgrad's must be the same)
        with pytest.raises(type(e)):
            f(leafgrad, LF)
        return
    raise AssertionError("torch did not raise")


@pytest.mark.parametrize("call", [
    lambda T, F: F.rms_norm(T.ones(2, 3), (4,)),
    lambda T, F: F.rms_norm(T.ones(2, 3), (3,), T.ones(2)),
    lambda T, F: F.bilinear(T.ones(3, 4), T.ones(2, 5), T.ones(2, 4, 5)),
    lambda T, F: F.bilinear(T.ones(3, 4), T.ones(3, 5), T.ones(2, 4, 6)),
    lambda T, F: F.bilinear(T.ones(3, 4), T.ones(3, 5), T.ones(2, 4, 5), T.ones(3)),
    lambda T, F: F.bilinear(T.ones(3, 4), T.ones(3, 1, 5), T.ones(2, 4, 5)),
    lambda T, F: F.channel_shuffle(T.ones(2, 5, 3), 2),
    lambda T, F: F.channel_shuffle(T.ones(2, 4, 3), 0),
    lambda T, F: F.channel_shuffle(T.ones(2, 4), 2),
    lambda T, F: F.max_unpool2d(T.ones(1, 1, 2, 2), T.full((1, 1, 2, 2), 16), 2),
    lambda T, F: F.max_unpool2d(T.ones(1, 1, 2, 2), T.full((1, 1, 2, 2), -1), 2),
    lambda T, F: F.max_unpool2d(T.ones(1, 1, 2, 2), T.zeros(1, 1, 2, 2), 2),
    lambda T, F: F.max_unpool2d(T.ones(1, 1, 2, 2), T.zeros(1, 1, 2, 1).long(), 2),
    lambda T, F: F.max_unpool2d(T.ones(1, 1, 2, 2), T.zeros(1, 1, 2, 2).long(), 2,
                                output_size=(7, 7)),
    lambda T, F: F.max_unpool2d(T.ones(1, 1, 2, 2), T.zeros(1, 1, 2, 2).long(), 2,
                                output_size=(4,)),
    lambda T, F: F.max_unpool2d(T.ones(1, 1, 2, 2).int(), T.zeros(1, 1, 2, 2).long(), 2),
    lambda T, F: F.lp_pool2d(T.ones(1, 2, 4, 4), 0, 2),
    lambda T, F: F.lp_pool1d(T.ones(1, 2, 4), 2, (2,)),
    lambda T, F: F.elu_(T.ones(3, requires_grad=True)),
    lambda T, F: T.threshold_(T.ones(3, requires_grad=True), 0.5, 1.0),
])
def test_errors_match_torch(call):
    _raises_like(call)


def test_native_channel_shuffle_values_and_refusing_backward():
    la, ta = _pair((2, 6, 3))
    lo, to = leafgrad.native_channel_shuffle(la, 3), torch.native_channel_shuffle(ta, 3)
    np.testing.assert_array_equal(lo.detach().numpy(), to.detach().numpy())
    np.testing.assert_array_equal(LF.native_channel_shuffle(la, 2).detach().numpy(),
                                  TF.native_channel_shuffle(ta, 2).detach().numpy())
    assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="not implemented"):
        torch.autograd.grad(to.sum(), ta)
    with pytest.raises(RuntimeError, match="not implemented"):
        leafgrad.autograd.grad(lo.sum(), la)


@pytest.mark.parametrize("name, args", [("elu_", ()), ("celu_", (0.5,)), ("selu_", ()),
                                        ("leaky_relu_", (0.1,)), ("hardtanh_", ()),
                                        ("threshold_", (0.0, -3.0))])
def test_inplace_activations_write_in_place(name, args):
    a = np.array([-1.5, -0.2, 0.3, 2.0], np.float32)
    lx, tx = leafgrad.tensor(a), torch.tensor(a)
    lv = lx._version
    lr, tr = getattr(LF, name)(lx, *args), getattr(TF, name)(tx, *args)
    assert lr is lx and tr is tx
    assert lx._version == lv + 1
    np.testing.assert_allclose(lx.numpy(), tx.numpy(), rtol=1e-6)
    # on a non-leaf: recorded with PyTorch's node name, grads as torch
    la, ta = _pair((5,))
    lo, to = getattr(LF, name)(la * 1, *args), getattr(TF, name)(ta * 1, *args)
    assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__
    lo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(la.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_gumbel_softmax_stream_and_eps_warning():
    a = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    leafgrad.manual_seed(11)
    torch.manual_seed(11)
    for hard in (False, True, False):
        lo = LF.gumbel_softmax(leafgrad.tensor(a), tau=0.7, hard=hard)
        to = TF.gumbel_softmax(torch.tensor(a), tau=0.7, hard=hard)
        np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        LF.gumbel_softmax(leafgrad.tensor(a), eps=1e-3)
    assert any("deprecated" in str(x.message) for x in w)


def test_with_indices_always_return_pairs():
    la, ta = _pair((2, 3, 6))
    for name, args in (("max_pool1d_with_indices", (2,)),
                       ("adaptive_max_pool1d_with_indices", (3,))):
        lo, li = getattr(LF, name)(la, *args, return_indices=False)
        to, ti = getattr(TF, name)(ta, *args, return_indices=False)
        np.testing.assert_array_equal(li.numpy(), ti.numpy())
        np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy())


@pytest.mark.parametrize("call", [
    lambda T, F: F.grid_sample(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 2), mode="area",
                               align_corners=False),
    lambda T, F: F.grid_sample(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 2), padding_mode="wrap",
                               align_corners=False),
    lambda T, F: F.grid_sample(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 2).double(),
                               align_corners=False),
    lambda T, F: F.grid_sample(T.ones(1, 1, 2, 2), T.zeros(1, 1, 2), align_corners=False),
    lambda T, F: F.grid_sample(T.ones(2, 1, 2, 2), T.zeros(1, 1, 1, 2), align_corners=False),
    lambda T, F: F.grid_sample(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 3), align_corners=False),
    lambda T, F: F.grid_sample(T.ones(1, 1, 0, 2), T.zeros(1, 1, 1, 2), align_corners=False),
    lambda T, F: F.grid_sample(T.ones(1, 1, 2, 2, 2), T.zeros(1, 1, 1, 1, 3), mode="bicubic",
                               align_corners=False),
    lambda T, F: F.affine_grid(T.ones(1, 2, 3).long(), (1, 1, 2, 2), align_corners=False),
    lambda T, F: F.affine_grid(T.ones(1, 2, 3), (1, 1, 2, 2, 2), align_corners=False),
    lambda T, F: F.affine_grid(T.ones(1, 2, 3), (1, 1, 2), align_corners=False),
    lambda T, F: F.affine_grid(T.ones(1, 2, 3), (1, 1, 0, 2), align_corners=False),
])
def test_grid_errors_match_torch(call):
    _raises_like(call)


def test_grid_sample_default_align_corners_warns_as_torch():
    for T, F in ((torch, TF), (leafgrad, LF)):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            F.grid_sample(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 2))
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            F.affine_grid(T.ones(1, 2, 3), (1, 1, 2, 2))


def test_spatial_transformer_gradients_match_torch():
    # affine_grid -> grid_sample, the grid exactly on the border pixels (identity theta,
    # align_corners=True): PyTorch counts the borders as outside for the grid's gradient
    a = np.random.default_rng(2).standard_normal((2, 3, 5, 4)).astype(np.float32)
    th = np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (2, 1, 1))
    res = []
    for T, F in ((torch, TF), (leafgrad, LF)):
        x, t = T.tensor(a, requires_grad=True), T.tensor(th, requires_grad=True)
        for pad in ("zeros", "border", "reflection"):
            g = F.affine_grid(t, (2, 3, 5, 4), align_corners=True)
            y = F.grid_sample(x, g, padding_mode=pad, align_corners=True)
            (y * y).sum().backward()
        res.append((x.grad.numpy(), t.grad.numpy()))
    for u, v in zip(*res):
        np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_training_draws_as_torch(dtype):
    # one double draw per element <= 0, the bounds rounded to the math type (PyTorch's
    # _rrelu_with_noise_train); F.rrelu, nn.RReLU, torch.rrelu_ and F.rrelu_ share it
    a = np.random.default_rng(0).standard_normal(500)
    a[:5] = 0.0
    outs = []
    for T, F in ((torch, TF), (leafgrad, LF)):
        T.manual_seed(5)
        x = T.tensor(a, dtype=getattr(T, dtype))
        r = [F.rrelu(x * 1, 0.2, 0.5, True), T.nn.RReLU(0.1, 0.3)(x * 1),
             T.rrelu_(x * 1, training=True), F.rrelu_(x * 1, 0.3, 0.4, True)]
        outs.append([v.numpy() for v in r])
    for u, v in zip(*outs):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, groups=2),
                                dict(dilation=2, padding=2)])
def test_nn_grad_convolution_gradients_match_torch(nd, kw):
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 4) + (6,) * nd).astype(np.float32)
    w = rng.standard_normal((6, 4 // kw.get("groups", 1)) + (3,) * nd).astype(np.float32)
    out = getattr(TF, "conv%dd" % nd)(torch.tensor(x), torch.tensor(w), **kw)
    g = rng.standard_normal(tuple(out.shape)).astype(np.float32)
    res = []
    for T, F in ((torch, TF), (leafgrad, LF)):
        assert F.grad is T.nn.grad
        res.append((getattr(F.grad, "conv%dd_input" % nd)(x.shape, T.tensor(w), T.tensor(g),
                                                          **kw).numpy(),
                    getattr(F.grad, "conv%dd_weight" % nd)(T.tensor(x), w.shape, T.tensor(g),
                                                           **kw).numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    assert LF.GRID_SAMPLE_INTERPOLATION_MODES == TF.GRID_SAMPLE_INTERPOLATION_MODES
    assert LF.GRID_SAMPLE_PADDING_MODES == TF.GRID_SAMPLE_PADDING_MODES


@pytest.mark.parametrize("which", ["input", "weight"])
@pytest.mark.parametrize("grads", [(True, False), (False, True), (False, False)])
def test_nn_grad_results_are_differentiable_as_torch(which, grads):
    """nn.grad's results carry a graph (ConvolutionBackwardBackward0) when the other
    argument or grad_output requires grad, and second-order gradients match torch."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((3, 2, 3, 3))
    g = rng.standard_normal((1, 3, 3, 3))
    got = []
    for T in (torch, leafgrad):
        other = T.tensor(w if which == "input" else x, requires_grad=grads[0])
        go = T.tensor(g, requires_grad=grads[1])
        if which == "input":
            r = T.nn.grad.conv2d_input(x.shape, other, go)
        else:
            r = T.nn.grad.conv2d_weight(other, w.shape, go)
        names = None if r.grad_fn is None else type(r.grad_fn).__name__
        row = [r.requires_grad, names]
        if r.requires_grad:
            leaf = other if grads[0] else go
            row.append(T.autograd.grad((r * r).sum(), leaf)[0].numpy())
        got.append(row)
    assert got[0][:2] == got[1][:2]
    if len(got[0]) > 2:
        np.testing.assert_allclose(got[1][2], got[0][2], rtol=1e-10, atol=1e-10)
