"""``torch.fft``: the discrete Fourier transforms (declared ops, ``ops/fft/transforms.py``:
their dtypes, normalisations and derivative rules) and the helpers ``fftfreq``,
``rfftfreq``, ``fftshift``, ``ifftshift``."""
import numpy as np

from .._core import dtype as _dtype
from ..ops._forms import function_form as _function_form
from ..ops._registry import OPS

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

for _n in __all__[:18]:
    globals()[_n] = _function_form(OPS["fft_" + _n])


def _freq(values, dtype, requires_grad):
    import leafgrad
    d = dtype if dtype is not None else _dtype.get_default_dtype()
    return leafgrad.tensor(values, dtype=d, requires_grad=requires_grad)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point fft with spacing ``d``:
    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n)``, default dtype."""
    r = _freq(np.fft.fftfreq(n, d), dtype, requires_grad)
    return r if out is None else out.copy_(r)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point rfft: ``[0, ..., n // 2] / (d n)``."""
    r = _freq(np.fft.rfftfreq(n, d), dtype, requires_grad)
    return r if out is None else out.copy_(r)


def _shift(input, dim, sign):
    dims = list(range(input.dim())) if dim is None else (
        [dim] if isinstance(dim, int) else list(dim))
    shifts = [sign * (input.shape[d] // 2) if sign > 0 else -(input.shape[d] // 2)
              for d in dims]
    return input.roll(shifts, dims)


def fftshift(input, dim=None):
    """The zero frequency moved to the centre: a roll by n // 2 over ``dim`` (all dims)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of fftshift: a roll by -(n // 2)."""
    return _shift(input, dim, -1)
