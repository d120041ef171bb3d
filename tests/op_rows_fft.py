"""Op-table rows (see tests/op_table.py) of torch.fft's transforms (ops/fft/transforms.py).

The table draws real inputs: the complex-input transforms get ``torch.complex(a, b)``,
and complex outputs are compared through ``view_as_real``. A square makes the second
order nonzero (the transforms are linear). tests/test_fft.py has the n/s/dim/norm sweep;
the stft/istft rows (ops/fft/spectral.py) are one setting each, tests/test_stft.py sweeps.
"""
from hypothesis import strategies as st

from op_table import Row, _same


def _out(T, y):
    return T.view_as_real(y.resolve_conj()) if y.is_complex() else y


def _c(name, **kw):
    return Row(name, lambda T, a, b: _out(T, getattr(T.fft, name[4:])(
        T.complex(a, b) ** 2, **kw)), ("real", "real"),
        gen=_same(2, min_dims=2), covers=("fft." + name[4:],))


def _r(name, **kw):
    return Row(name, lambda T, a: _out(T, getattr(T.fft, name[4:])(a * a, **kw)), ("real",),
               gen=_same(1, min_dims=2), covers=("fft." + name[4:],))


ROWS = [
    _c("fft_fft"), _c("fft_ifft", norm="ortho"), _c("fft_fft2"), _c("fft_ifft2", norm="forward"),
    _c("fft_fftn"), _c("fft_ifftn"), _r("fft_rfft", n=5), _c("fft_irfft"), _r("fft_rfft2"),
    _c("fft_irfft2", norm="ortho"), _r("fft_rfftn"), _c("fft_irfftn"), _c("fft_hfft", n=4),
    _r("fft_ihfft"), _c("fft_hfft2"), _r("fft_ihfft2", norm="forward"), _c("fft_hfftn"),
    _r("fft_ihfftn"),
]


def _signal(windowed):
    # a (L,) or (B, L) signal, L >= 3 (reflect padding by n_fft // 2 = 2); the window an input
    return st.tuples(st.integers(3, 7), st.sampled_from([(), (2,)])).map(
        lambda t: ((t[1] + (t[0],),) + (((4,),) if windowed else ()), {}))


def _spectrum():
    # stft(n_fft=4)'s (3, n_frames) or (B, 3, n_frames); two frames at least, so the
    # trimmed overlap-add of the window is nonzero
    return st.tuples(st.integers(2, 5), st.sampled_from([(), (2,)])).map(
        lambda t: ((t[1] + (3, t[0]),) * 2, {}))


# tanh bounds the inputs (and makes the second order nonzero): the transforms' own
# nan / inf placement at inf and 1e30 inputs is the fft_* rows' (known_mismatches
# FINDINGS); these rows check what stft/istft add (padding, frames, window, overlap-add).
ROWS += [
    Row("stft", lambda T, a: _out(T, T.stft(T.tanh(a), 4, hop_length=1, return_complex=True,
                                            window=T.hann_window(4, dtype=a.dtype))),
        ("real",), gen=_signal(False)),
    Row("stft:window", lambda T, a, w: _out(T, T.stft(
        T.tanh(a) * T.tanh(w).sum(), 4, window=T.tanh(w) ** 2 + 0.25, hop_length=2,
        normalized=True, return_complex=True, pad_mode="constant")),
        ("real", "real"), gen=_signal(True)),
    Row("istft", lambda T, a, b: T.istft(T.complex(T.tanh(a), T.tanh(b)) ** 2, 4, hop_length=1,
                                         window=T.hann_window(4, dtype=a.dtype)),
        ("real", "real"), gen=_spectrum()),
]
