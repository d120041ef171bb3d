"""Op-table rows (see tests/op_table.py) of torch.fft's transforms (ops/fft/transforms.py).

The table draws real inputs: the complex-input transforms get ``torch.complex(a, b)``,
and complex outputs are compared through ``view_as_real``. A square makes the second
order nonzero (the transforms are linear). tests/test_fft.py has the n/s/dim/norm sweep.
"""
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
