"""torch.stft / torch.istft (and the Tensor methods) against PyTorch 2.13: values, dtypes,
shapes and first-order gradients (signal and window) on hypothesis-drawn signals, n_fft,
hop/win lengths, windows, center/pad_mode/normalized/onesided/align_to_window/length,
real and complex, float32 and float64; PyTorch's errors (classes) and its once-per-process
warnings; the round trip istft(stft(x)) == x."""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import event, given, settings, strategies as st

import leafgrad
from leafgrad.ops.fft import spectral


def _np(t):
    return None if t is None else t.detach().resolve_conj().numpy()


def _weights(y):
    yr = y.resolve_conj()
    shape = tuple(yr.shape) + ((2,) if y.is_complex() else ())
    return np.random.default_rng(3).uniform(0.5, 1.5, shape)


def _loss(T, y):
    yr = T.view_as_real(y.resolve_conj()) if y.is_complex() else y
    return (yr * T.tensor(_weights(y), dtype=yr.dtype)).sum()


@st.composite
def _stft_case(draw):
    n_fft = draw(st.integers(1, 12))
    win = draw(st.integers(1, n_fft)) if draw(st.booleans()) else None
    kw = {"n_fft": n_fft, "center": draw(st.booleans()), "normalized": draw(st.booleans())}
    if win is not None:
        kw["win_length"] = win
    if n_fft < 4 or draw(st.booleans()):     # the default n_fft // 4 is 0 below 4
        kw["hop_length"] = draw(st.integers(1, n_fft + 2))
    if kw["center"]:
        kw["pad_mode"] = draw(st.sampled_from(["reflect", "constant", "replicate", "circular"]))
    elif win is not None and draw(st.booleans()):
        kw["align_to_window"] = draw(st.booleans())
    cplx = draw(st.booleans())
    kw["onesided"] = draw(st.sampled_from([None, False] if cplx else [None, True, False]))
    kw["return_complex"] = draw(st.sampled_from([True, True, False]))
    length = draw(st.integers(max(n_fft // 2 + 1, n_fft if not kw["center"] else 1), 30))
    shape = (length,) if draw(st.booleans()) else (draw(st.integers(1, 3)), length)
    window = draw(st.sampled_from(["none", "hann", "random"]))
    return shape, kw, cplx, window, draw(st.sampled_from([np.float32, np.float64])), \
        draw(st.integers(0, 2 ** 31))


def _run(fn, T, x, w, kw):
    """T.stft or T.istft (``fn``) of ``x`` with window ``w``: the result and the
    gradients of the signal and the window."""
    xi = T.tensor(x, requires_grad=True)
    wi = None if w is None else T.tensor(w, requires_grad=True)
    y = getattr(T, fn)(xi, window=wi, **kw)
    _loss(T, y).backward()
    return y, xi.grad, None if wi is None else wi.grad


def _run_stft(T, x, w, kw):
    return _run("stft", T, x, w, kw)


def _window(kind, n, dtype, rng):
    if kind == "none":
        return None
    return (np.hanning(n + 2)[1:-1] if kind == "hann" else rng.uniform(0.2, 1.5, n)).astype(dtype)


@settings(max_examples=150, deadline=None)
@given(case=_stft_case())
def test_stft_matches_torch(case):
    shape, kw, cplx, wkind, dtype, seed = case
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape).astype(dtype)
    if cplx:
        x = x + 1j * rng.normal(size=shape).astype(dtype)
    w = _window(wkind, kw.get("win_length", kw["n_fft"]), dtype, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = _run_stft(torch, x, w, kw)
        except Exception as e:      # an invalid combination: the same class
            event("both raise %s" % type(e).__name__)
            with pytest.raises(type(e)):
                _run_stft(leafgrad, x, w, kw)
            return
        got = _run_stft(leafgrad, x, w, kw)
    tol = 1e-9 if dtype == np.float64 else 2e-4
    for g, t in zip(got, want):
        assert (g is None) == (t is None)
        if t is not None:
            assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
            np.testing.assert_allclose(_np(g), _np(t), rtol=tol, atol=tol)


@st.composite
def _istft_case(draw):
    n_fft = draw(st.integers(2, 12))
    win = draw(st.integers(1, n_fft)) if draw(st.booleans()) else n_fft
    hop = draw(st.integers(1, win))
    center = draw(st.booleans())
    frames = draw(st.integers(1, 6))
    cplx = draw(st.booleans())
    onesided = not cplx and draw(st.booleans())
    kw = {"n_fft": n_fft, "hop_length": hop, "win_length": win, "center": center,
          "normalized": draw(st.booleans()), "return_complex": cplx}
    if draw(st.booleans()):
        kw["onesided"] = onesided
    if draw(st.booleans()):
        kw["length"] = draw(st.integers(1, 40))
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 3)),)
    freq = n_fft // 2 + 1 if onesided else n_fft
    window = draw(st.sampled_from(["none", "hann", "random"]))
    return batch + (freq, frames), kw, window, draw(st.sampled_from([np.float32, np.float64])), \
        draw(st.integers(0, 2 ** 31))


def _run_istft(T, s, w, kw):
    return _run("istft", T, s, w, kw)


@settings(max_examples=150, deadline=None)
@given(case=_istft_case())
def test_istft_matches_torch(case):
    shape, kw, wkind, dtype, seed = case
    rng = np.random.default_rng(seed)
    s = (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(
        np.complex64 if dtype == np.float32 else np.complex128)
    w = _window(wkind, kw["win_length"], dtype, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = _run_istft(torch, s, w, kw)
        except Exception as e:
            event("both raise %s" % type(e).__name__)
            with pytest.raises(type(e)):
                _run_istft(leafgrad, s, w, kw)
            return
        got = _run_istft(leafgrad, s, w, kw)
    for g, t in zip(got, want):
        assert (g is None) == (t is None)
        if t is not None:
            assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
            # the overlap-add divides by the squared window's sum: relative tolerance
            scale = max(1.0, float(np.abs(_np(t)).max(initial=0)))
            tol = 1e-9 if dtype == np.float64 else 1e-4
            np.testing.assert_allclose(_np(g), _np(t), rtol=tol, atol=tol * scale)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(4, 10), batch=st.sampled_from([(), (2,)]), seed=st.integers(0, 2 ** 31))
def test_round_trip_recovers_the_signal(n, batch, seed):
    x = np.random.default_rng(seed).normal(size=batch + (3 * n,))
    w = leafgrad.hann_window(n, dtype=leafgrad.float64)
    s = leafgrad.tensor(x).stft(n, window=w, return_complex=True)
    np.testing.assert_allclose(s.istft(n, window=w, length=3 * n).numpy(), x, atol=1e-12)


def test_stft_errors_match_torch():
    x = np.random.default_rng(0).normal(size=20)
    cases = [({"n_fft": 8}, {}), ({"n_fft": 21, "center": False, "return_complex": True}, {}),
             ({"n_fft": 8, "hop_length": 0, "return_complex": True}, {}),
             ({"n_fft": 8, "win_length": 9, "return_complex": True}, {}),
             ({"n_fft": 8, "window": "ones7", "return_complex": True}, {}),
             ({"n_fft": 8, "return_complex": True}, {"dtype": "int64"}),
             ({"n_fft": 8, "align_to_window": True, "return_complex": True}, {}),
             ({"n_fft": 8, "pad_mode": "bad", "return_complex": True}, {}),
             ({"n_fft": 30, "return_complex": True}, {"shape": (2, 2, 5)}),
             ({"n_fft": 16, "return_complex": True}, {"slice": 5}),
             ({"n_fft": 8, "onesided": True}, {"dtype": "complex128"}),
             ({"n_fft": 0, "return_complex": True}, {}),
             ({"n_fft": 8, "return_complex": True}, {"dtype": "float16"})]
    for kw, how in cases:
        errs = []
        for T in (torch, leafgrad):
            t = T.tensor(x[:how.get("slice", 20)])
            if "shape" in how:
                t = T.tensor(np.random.default_rng(1).normal(size=how["shape"]))
            if "dtype" in how:
                t = t.to(getattr(T, how["dtype"]))
            k = dict(kw)
            if k.get("window") == "ones7":
                k["window"] = T.ones(7)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(Exception) as e:
                    T.stft(t, **k)
            errs.append(e.type)
        assert errs[0] is errs[1], (kw, how, errs)


def test_istft_errors_match_torch():
    x = np.random.default_rng(0).normal(size=20)
    cases = [{"real": True}, {"center": False}, {"return_complex": True}, {"onesided": False},
             {"n_fft": 6}, {"hop_length": 9}, {"win_length": 9, "window": None},
             {"window": "short"}, {"empty": True}, {"one_d": True}, {"rank5": True},
             {"window": "zeros"}, {"window": "complex"}, {"length": 0}]
    for case in cases:
        errs = []
        for T in (torch, leafgrad):
            w = T.hann_window(8, dtype=T.float64)
            s = T.stft(T.tensor(x), 8, window=w, return_complex=True)
            kw = {"n_fft": 8, "window": w}
            kw.update({k: v for k, v in case.items()
                       if k not in ("real", "empty", "one_d", "rank5")})
            if case.get("window") == "short":
                kw["window"] = w[:7]
            elif case.get("window") == "zeros":
                kw["window"] = T.zeros(8, dtype=T.float64)
            elif case.get("window") == "complex":
                kw["window"] = w.to(T.complex128)
            s = T.view_as_real(s) if "real" in case else s[:, :0] if "empty" in case else \
                s[0] if "one_d" in case else s[None, None] if "rank5" in case else s
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(Exception) as e:
                    T.istft(s, **kw)
            errs.append(e.type)
        assert errs[0] is errs[1], (case, errs)


def test_warnings_as_torch_once_per_process():
    spectral._WARNED.clear()
    x = leafgrad.tensor(np.random.default_rng(0).normal(size=20))
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        leafgrad.stft(x, 8, return_complex=False)
        s = leafgrad.stft(x, 8, return_complex=False)
        leafgrad.istft(leafgrad.view_as_complex(s), 8, length=30)
        leafgrad.istft(leafgrad.view_as_complex(s), 8, length=30)
    msgs = [str(w.message) for w in got]
    assert len(msgs) == 4 and all(w.category is UserWarning for w in got), msgs
    assert msgs[0].startswith("A window was not provided. A rectangular window will be applied,")
    assert msgs[1].startswith("stft with return_complex=False is deprecated.")
    assert msgs[2].startswith("A window was not provided. A rectangular window will be applied.P")
    assert msgs[3].startswith("The length of signal is shorter than the length parameter.")
    assert tuple(s.shape) == (5, 11, 2) and s.dtype == leafgrad.float64


def test_forms():
    assert leafgrad.functional.stft is leafgrad.stft and leafgrad.functional.istft is \
        leafgrad.istft
    x = leafgrad.tensor(np.arange(16.0))
    w = leafgrad.ones(4, dtype=leafgrad.float64)
    np.testing.assert_allclose(x.stft(4, window=w, return_complex=True).numpy(),
                               torch.tensor(np.arange(16.0)).stft(
                                   4, window=torch.ones(4, dtype=torch.float64),
                                   return_complex=True).numpy())


def test_complex_window_gives_a_twosided_complex_transform():
    rng = np.random.default_rng(5)
    x, w = rng.normal(size=(2, 19)), rng.normal(size=6) + 1j * rng.normal(size=6)
    out = []
    for T in (torch, leafgrad):
        xi, wi = T.tensor(x, requires_grad=True), T.tensor(w, requires_grad=True)
        y = T.stft(xi, 8, hop_length=3, win_length=6, window=wi)
        _loss(T, y).backward()
        out.append((y, xi.grad, wi.grad))
    for g, t in zip(*reversed(out)):
        assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(_np(g), _np(t), rtol=1e-10, atol=1e-10)
    with pytest.raises(RuntimeError):
        leafgrad.stft(leafgrad.tensor(x), 8, window=leafgrad.tensor(w[:1].repeat(8)),
                      onesided=True)
