"""torch.fft against PyTorch: every transform on hypothesis-drawn shapes, n/s/dim/norm,
real and complex float64 inputs: values, dtypes, gradients and second-order gradients
(through a nonlinearity, as the transforms are linear); float32 values within PyTorch's
float32 spread; gradcheck in complex128; freq/shift helpers; errors."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

C2C = ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn")
R2C = ("rfft", "rfft2", "rfftn", "ihfft", "ihfft2", "ihfftn")
C2R = ("irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn")
ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
TWO_D = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return np.asarray(t.detach().resolve_conj()._data)


@st.composite
def _case(draw, name):
    nd = draw(st.integers(1 if name in ONE_D or name.endswith("n") else 2, 3))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=nd, max_size=nd)))
    kw = {"norm": draw(st.sampled_from([None, "backward", "ortho", "forward"]))}
    if name in ONE_D:
        kw["dim"] = draw(st.integers(-nd, nd - 1))
        if draw(st.booleans()):
            kw["n"] = draw(st.integers(1, 7))
    else:
        k = 2 if name in TWO_D else draw(st.integers(1, nd))
        dims = draw(st.permutations(range(nd)))[:k]
        if name in TWO_D and draw(st.booleans()):
            dims = [-2, -1]
        if name not in TWO_D and draw(st.booleans()):
            kw["dim"] = tuple(dims)
        elif name in TWO_D:
            kw["dim"] = tuple(dims)
        if draw(st.booleans()):
            kw["s"] = tuple(draw(st.integers(1, 6)) for _ in range(len(kw.get("dim", dims))))
    cplx = name not in R2C and draw(st.booleans()) or name in C2R
    return shape, kw, cplx, draw(st.integers(0, 2 ** 31))


def _run(T, name, x, kw):
    xi = T.tensor(x, requires_grad=True)
    y = getattr(T.fft, name)(xi * xi, **kw)      # a nonlinearity: second order is nonzero
    yr = T.view_as_real(y.resolve_conj()) if y.is_complex() else y
    w = T.tensor(np.random.default_rng(1).uniform(0.5, 1.5, tuple(yr.shape)))
    g, = T.autograd.grad((yr * w).sum(), xi, create_graph=True)
    gr = T.view_as_real(g.resolve_conj()) if g.is_complex() else g
    gg, = T.autograd.grad((gr * gr).sum(), xi)
    return y, g, gg


@pytest.mark.parametrize("name", C2C + R2C + C2R)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_transform_matches_torch(name, data):
    shape, kw, cplx, seed = data.draw(_case(name))
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) + (1j * rng.normal(size=shape) if cplx else 0)
    try:
        ty, tg, tgg = _run(torch, name, x, kw)
    except Exception as e:      # an invalid n/s: the same class
        with pytest.raises(type(e)):
            _run(leafgrad, name, x, kw)
        return
    ly, lg, lgg = _run(leafgrad, name, x, kw)
    assert str(ly.dtype) == str(ty.dtype) and tuple(ly.shape) == tuple(ty.shape)
    for a, b in ((ly, ty), (lg, tg), (lgg, tgg)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9, atol=1e-9)
    # float32: the dtype and PyTorch's float32 spread
    x32 = x.astype(np.complex64 if cplx else np.float32)
    t32 = getattr(torch.fft, name)(torch.tensor(x32), **kw)
    l32 = getattr(leafgrad.fft, name)(leafgrad.tensor(x32), **kw)
    assert str(l32.dtype) == str(t32.dtype)
    np.testing.assert_allclose(_np(l32), _np(t32), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", C2C + R2C + C2R)
def test_gradcheck(name):
    rng = np.random.default_rng(3)
    shape = (3, 4)
    x = rng.normal(size=shape) + (1j * rng.normal(size=shape) if name not in R2C else 0)
    xi = leafgrad.tensor(x, requires_grad=True)
    f = getattr(leafgrad.fft, name)
    assert leafgrad.autograd.gradcheck(lambda v: f(v * v, norm="ortho"), (xi,))
    assert leafgrad.autograd.gradgradcheck(lambda v: f(v * v), (xi,))


@pytest.mark.parametrize("expr", [
    "T.fft.fftfreq(5)", "T.fft.fftfreq(6, 0.1, dtype=T.float64)", "T.fft.rfftfreq(7, 2.0)",
    "T.fft.fftshift(T.arange(10).reshape(2, 5))", "T.fft.ifftshift(T.arange(10).reshape(2, 5))",
    "T.fft.fftshift(T.arange(10).reshape(2, 5), dim=1)", "T.fft.ifftshift(T.arange(7), dim=(0,))",
    "T.fft.fft(T.arange(4)).dtype", "T.fft.rfft(T.ones(4, dtype=T.float64)).dtype",
    "T.fft.irfft(T.ones(3, dtype=T.complex64)).dtype", "T.fft.hfft(T.ones(3)).dtype",
])
def test_helpers_and_dtypes_match_torch(expr):
    assert str(eval(expr, {"T": leafgrad})) == str(eval(expr, {"T": torch}))


@pytest.mark.parametrize("expr", [
    "T.fft.rfft(T.ones(3, dtype=T.complex64))", "T.fft.fft(T.ones(3), norm='bad')",
    "T.fft.fft(T.ones(3), dim=2)", "T.fft.fft(T.ones(3), n=0)", "T.fft.fftn(T.ones(3, 3), s=(2,), dim=(0, 1))",
    "T.fft.fftn(T.ones(3, 3), dim=(0, 0))", "T.fft.irfft(T.ones(1, dtype=T.complex64))",
])
def test_errors_match_torch(expr):
    with pytest.raises(Exception) as te:
        eval(expr, {"T": torch})
    with pytest.raises(type(te.value)):
        eval(expr, {"T": leafgrad})
