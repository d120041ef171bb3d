"""interpolate / Upsample, pixel_shuffle / pixel_unshuffle, unfold / fold and their
modules against real PyTorch 2.13: values, gradients, grad_fn names, second order,
reprs and error classes; hypothesis over sizes and scale factors for the index rules."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, strategies as st

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.nn.functional as LF
from leafgrad.autograd import gradcheck, gradgradcheck


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def both(tfn, lfn, x, *args, **kw):
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    tout, lout = tfn(tx, *args, **kw), lfn(lx, *args, **kw)
    assert tuple(lout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-5,
                               atol=3e-6)
    assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = arr(*tout.shape, seed=5)
    (tout * torch.tensor(g)).sum().backward()
    (lout * lg.tensor(g)).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)


INTERP = [
    ((2, 3, 5), dict(size=8, mode="nearest")),
    ((2, 3, 5), dict(scale_factor=1.7, mode="nearest")),
    ((2, 3, 10), dict(size=3, mode="nearest")),
    ((2, 3, 5, 7), dict(size=(3, 11), mode="nearest-exact")),
    ((2, 3, 5, 7), dict(scale_factor=(2.3, 0.6), mode="bilinear")),
    ((2, 3, 5, 7), dict(size=(9, 4), mode="bilinear", align_corners=True)),
    ((2, 3, 5, 7), dict(size=(1, 1), mode="bilinear", align_corners=True)),
    ((2, 3, 5, 7), dict(size=(9, 13), mode="bicubic")),
    ((2, 3, 5, 7), dict(scale_factor=2, mode="bicubic", align_corners=True)),
    ((2, 3, 6, 6), dict(size=(4, 3), mode="bicubic")),
    ((2, 3, 5), dict(scale_factor=2.5, mode="linear", recompute_scale_factor=True)),
    ((2, 3, 5), dict(scale_factor=2.5, mode="linear")),
    ((1, 2, 3, 4, 5), dict(size=(5, 3, 7), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 6, 8), dict(size=(4, 3), mode="area")),
    ((2, 3, 8), dict(size=3, mode="area")),
    ((2, 3, 5, 7), dict(scale_factor=3, mode="nearest")),
]


@pytest.mark.parametrize("shape,kw", INTERP)
def test_interpolate_matches_torch(shape, kw):
    both(TF.interpolate, LF.interpolate, arr(*shape), **kw)


@given(st.integers(1, 9), st.integers(1, 9), st.sampled_from(["nearest", "nearest-exact",
                                                            "bilinear", "bicubic"]),
       st.one_of(st.none(), st.floats(0.3, 3.7)), st.booleans())
def test_interpolate_sizes_and_scales(n_in, n_out, mode, scale, corners):
    x = arr(1, 2, n_in, n_in + 1)
    kw = dict(mode=mode)
    if scale is None:
        kw["size"] = (n_out, n_out + 2)
    else:
        kw["scale_factor"] = scale
        if np.floor(n_in * scale) < 1:
            return
    if mode in ("bilinear", "bicubic"):
        kw["align_corners"] = corners
    both(TF.interpolate, LF.interpolate, x, **kw)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
def test_interpolate_second_order(mode):
    x = lg.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4)), requires_grad=True)
    f = lambda t: LF.interpolate(t, size=(5, 3), mode=mode) ** 2  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("call,exc", [
    (lambda F, x: F.interpolate(x), ValueError),
    (lambda F, x: F.interpolate(x, size=3, scale_factor=2), ValueError),
    (lambda F, x: F.interpolate(x, size=3, align_corners=True), ValueError),
    (lambda F, x: F.interpolate(x, size=(3, 4, 5)), ValueError),
    (lambda F, x: F.interpolate(x, size=3, mode="linear"), NotImplementedError),
    (lambda F, x: F.interpolate(x, size=3, mode="cubic"), NotImplementedError),
    (lambda F, x: F.interpolate(x[0, 0], size=3), NotImplementedError),
])
def test_interpolate_errors_as_torch(call, exc):
    with pytest.raises(exc):
        call(TF, torch.randn(1, 2, 4, 4))
    with pytest.raises(exc):
        call(LF, lg.randn(1, 2, 4, 4))


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((9, 2, 3), 3), ((2, 1, 4, 2, 3), 1)])
def test_pixel_shuffle_matches_torch(shape, r):
    x = arr(*shape)
    both(TF.pixel_shuffle, LF.pixel_shuffle, x, r)
    y = LF.pixel_shuffle(lg.tensor(x), r)
    both(TF.pixel_unshuffle, LF.pixel_unshuffle, y.numpy(), r)
    np.testing.assert_array_equal(LF.pixel_unshuffle(y, r).numpy(), x)


@pytest.mark.parametrize("call", [
    lambda F, lib: F.pixel_shuffle(lib.randn(1, 5, 2, 2), 2),
    lambda F, lib: F.pixel_unshuffle(lib.randn(1, 5, 3, 2), 2),
    lambda F, lib: F.pixel_shuffle(lib.randn(4, 2), 2),
])
def test_pixel_shuffle_errors_as_torch(call):
    with pytest.raises(RuntimeError):
        call(TF, torch)
    with pytest.raises(RuntimeError):
        call(LF, lg)


FOLD = [
    ((2, 3, 7, 8), dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))),
    ((2, 3, 6, 6), dict(kernel_size=3)),
    ((3, 5, 5), dict(kernel_size=2, stride=2)),           # unbatched, uncovered border
]


@pytest.mark.parametrize("shape,kw", FOLD)
def test_unfold_fold_match_torch(shape, kw):
    x = arr(*shape)
    both(TF.unfold, LF.unfold, x, **kw)
    cols = TF.unfold(torch.tensor(x), **kw).numpy()
    both(TF.fold, LF.fold, cols, shape[-2:], **kw)


def test_unfold_fold_second_order_and_errors():
    x = lg.tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 4)), requires_grad=True)
    assert gradgradcheck(lambda t: LF.unfold(t, 2, padding=1) ** 2, (x,))
    with pytest.raises(RuntimeError):
        TF.fold(torch.randn(1, 5, 4), (3, 3), 2)
    with pytest.raises(RuntimeError, match="Fix:"):
        LF.fold(lg.randn(1, 5, 4), (3, 3), 2)
    with pytest.raises(RuntimeError):
        TF.fold(torch.randn(1, 8, 5), (3, 3), 2)
    with pytest.raises(RuntimeError, match="Fix:"):
        LF.fold(lg.randn(1, 8, 5), (3, 3), 2)
    with pytest.raises(IndexError):
        TF.unfold(torch.randn(4, 4), 2)
    with pytest.raises(IndexError):
        LF.unfold(lg.randn(4, 4), 2)
    with pytest.raises(RuntimeError):
        TF.fold(torch.randn(1, 1, 4, 4), (3, 3), 2)
    with pytest.raises(RuntimeError):
        LF.fold(lg.randn(1, 1, 4, 4), (3, 3), 2)


MODULES = [
    ("Upsample(scale_factor=2)", (1, 2, 3, 4)),
    ("Upsample(size=(3, 5), mode='bilinear')", (1, 2, 3, 4)),
    ("Upsample(scale_factor=(1.5, 2), mode='bicubic', align_corners=True)", (1, 2, 3, 4)),
    ("Upsample(size=7, mode='linear')", (1, 2, 3)),
    ("UpsamplingNearest2d(scale_factor=2)", (1, 2, 3, 4)),
    ("UpsamplingBilinear2d(size=(5, 6))", (1, 2, 3, 4)),
    ("PixelShuffle(2)", (1, 8, 3, 4)), ("PixelUnshuffle(2)", (1, 2, 4, 6)),
    ("Unfold(kernel_size=(2, 3), padding=1)", (2, 3, 5, 5)),
    ("Fold(output_size=(4, 5), kernel_size=(2, 2))", (2, 8, 12)),
]


@pytest.mark.parametrize("expr,shape", MODULES)
def test_modules_match_torch(expr, shape):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t)
    x = arr(*shape)
    np.testing.assert_allclose(l(lg.tensor(x)).numpy(), t(torch.tensor(x)).numpy(), rtol=1e-5,
                               atol=1e-6)
