"""``torch.fft``'s transforms: fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2,
irfft2, rfftn, irfftn, hfft, ihfft, hfft2, ihfft2, hfftn, ihfftn.

Each is a resize of the input along the transformed dims (``n``/``s``: trimmed or
zero-padded, recorded with ``narrow``/``cat`` so it differentiates) and one of three
kernels, as ATen's ``_fft_c2c``/``_fft_r2c``/``_fft_c2r``. The kernels' rules are
derivatives.yaml's (fft_c2c: the transform in the other direction with the adjoint's
normalisation; fft_r2c_backward: the gradient zero-padded to the full length, inverse
c2c, real part; fft_c2r_backward: r2c of the gradient with the mirrored bins doubled),
written with the kernels themselves, so they differentiate again.

``norm``: "backward" (default; the inverse scales by 1/n), "ortho" (1/sqrt(n) both
ways) or "forward" (the forward scales by 1/n). dtypes as PyTorch: float32 and
complex64 give complex64 (c2r: float32), float64 and complex128 give complex128,
integers and bool the default dtype's. float32/complex64 inputs go to NumPy's pocketfft
as they are; with NumPy 2.4 its float32 results are exactly the float64 transform rounded
to float32 (checked for n = 7 ... 4096), so "float32 pocketfft" and "float64 rounded
down" are the same numbers here. They differ from PyTorch's float32 pocketfft by
PyTorch's own float32 rounding (its error against the exact float64 transform is 2-5x
ours); tests/test_fft.py bounds the difference.
"""
import numpy as np

from ..._core import dtype as _dtype, errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from .._dispatch import record
from .._registry import defop, node

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_C = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in _SWAP:
        raise RuntimeError('Invalid normalization mode: "%s". Fix: use "forward", '
                           '"backward" or "ortho"' % norm)
    return norm


# -- kernels -----------------------------------------------------------------------
def _c2c_backward(ctx, g):
    dims, norm, forward = ctx.args
    return (_c2c(g, dims, _SWAP[norm], not forward),)


FftC2CBackward0 = node("FftC2CBackward0", _c2c_backward, saves=False)


def _c2c(x, dims, norm, forward):
    """The complex DFT of complex ``x`` over ``dims`` (no resizing)."""
    f = np.fft.fftn if forward else np.fft.ifftn
    a = x._data
    with _quiet():      # nan and inf propagate silently, as in PyTorch
        out = f(a, axes=dims, norm=norm).astype(a.dtype, copy=False) if dims else a.copy()
    return record(FftC2CBackward0, out, (x,), args=(dims, norm, forward))


def _r2c_backward(ctx, g):
    dims, norm, n = ctx.args
    last = dims[-1]
    pad = n - g.shape[last]
    if pad > 0:
        shape = list(g.shape)
        shape[last] = pad
        g = _cat(g, Tensor._make_plain(np.zeros(shape, g._data.dtype)), last)
    return (_c2c(g, dims, _SWAP[norm], False).real,)


FftR2CBackward0 = node("FftR2CBackward0", _r2c_backward, saves=False)


def _r2c(x, dims, norm):
    """The onesided DFT of real ``x`` over ``dims`` (last dim halved: n//2 + 1)."""
    a = x._data
    with _quiet():
        out = np.fft.rfftn(a, axes=dims, norm=norm).astype(_C[a.dtype], copy=False)
    return record(FftR2CBackward0, out, (x,), args=(dims, norm, a.shape[dims[-1]]))


def _c2r_backward(ctx, g):
    dims, norm = ctx.args
    gi = _r2c(g, dims, _SWAP[norm])
    last = dims[-1]
    double = g.shape[last] - gi.shape[last]
    if double > 0:
        n = gi.shape[last]
        gi = _cat(_cat(gi.narrow(last, 0, 1), gi.narrow(last, 1, double) * 2, last),
                  gi.narrow(last, 1 + double, n - 1 - double), last)
    return (gi,)


FftC2RBackward0 = node("FftC2RBackward0", _c2r_backward, saves=False)


def _c2r(x, dims, norm, n):
    """The real inverse of a onesided spectrum ``x`` over ``dims``, last dim of length n."""
    a = x._data
    s = [a.shape[d] for d in dims[:-1]] + [n]
    with _quiet():
        out = np.fft.irfftn(a, s=s, axes=dims, norm=norm).astype(a.real.dtype, copy=False)
    return record(FftC2RBackward0, out, (x,), args=(dims, norm))


def _cat(a, b, dim):
    from ..shape.joins import cat
    return cat([a, b], dim)


# -- argument handling -----------------------------------------------------------------
def _float_input(x, complex_=False):
    """``x`` promoted as PyTorch's FFTs do: integers/bool to the default float dtype,
    and (``complex_``) real to complex of the same precision."""
    d = x._data.dtype
    if d.kind in "iub":
        x = x.to(_dtype.get_default_dtype())
        d = x._data.dtype
    if d == np.float16 or d.kind not in "fc":
        raise RuntimeError("Unsupported dtype %s. Fix: convert to float32 or float64" % x.dtype)
    if complex_ and d.kind == "f":
        x = x.to(_dtype.from_numpy_dtype(_C[d]))
    return x


def _resize(x, dims, sizes):
    """``x`` trimmed or zero-padded to ``sizes`` along ``dims`` (recorded)."""
    for d, n in zip(dims, sizes):
        m = x.shape[d]
        if n < 1:
            raise RuntimeError("Invalid number of data points (%d) specified. Fix: pass n >= 1"
                               % n)
        if n < m:
            x = x.narrow(d, 0, n)
        elif n > m:
            shape = list(x.shape)
            shape[d] = n - m
            x = _cat(x, Tensor._make_plain(np.zeros(shape, x._data.dtype)), d)
    return x


def _dims_sizes(x, s, dim, default_all):
    """PyTorch's (s, dim) rules: the transformed dims (wrapped) and their sizes."""
    nd = x.dim()
    if dim is None:
        dims = (list(range(nd)) if s is None else list(range(nd - len(s), nd))) \
            if default_all else [nd - 2, nd - 1]
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [d + nd if d < 0 else d for d in dims]
    if any(d < 0 or d >= nd for d in dims):
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but "
                         "got %s)" % (-nd, nd - 1, dim))
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        sizes = [x.shape[d] for d in dims]
    return tuple(dims), sizes


# -- the public transforms -------------------------------------------------------------
def _cfft(input, s, dim, norm, forward, default_all=True):
    x = _float_input(input, True)
    dims, sizes = _dims_sizes(x, s, dim, default_all)
    return _c2c(_resize(x, dims, sizes), dims, _norm(norm), forward)


def _rfft(input, s, dim, norm, default_all=True):
    x = _float_input(input)
    if x.is_complex():
        raise RuntimeError("rfft expects a real input tensor, but got %s. Fix: use fft for "
                           "complex input" % _errors.type_name(x._data.dtype))
    dims, sizes = _dims_sizes(x, s, dim, default_all)
    return _r2c(_resize(x, dims, sizes), dims, _norm(norm))


def _irfft(input, s, dim, norm, default_all=True):
    x = _float_input(input, True)
    dims, sizes = _dims_sizes(x, s, dim, default_all)
    n = sizes[-1] if s is not None and list(s)[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
    if n < 1:
        raise RuntimeError("Invalid number of data points (%d) specified" % n)
    sizes = sizes[:-1] + [n // 2 + 1]
    return _c2r(_resize(x, dims, sizes), dims, _norm(norm), n)


def _one(n):
    return None if n is None else [n]


@defop("fft_fft", function=False, method=False, out=True)
def fft(input, n=None, dim=-1, norm=None):
    """1-D DFT over ``dim`` (``n``: trim or zero-pad first). complex out."""
    return _cfft(input, _one(n), dim, norm, True)


@defop("fft_ifft", function=False, method=False, out=True)
def ifft(input, n=None, dim=-1, norm=None):
    """1-D inverse DFT over ``dim``. complex out."""
    return _cfft(input, _one(n), dim, norm, False)


@defop("fft_fft2", function=False, method=False, out=True)
def fft2(input, s=None, dim=(-2, -1), norm=None):
    """2-D DFT over ``dim`` (the last two by default)."""
    return _cfft(input, s, dim, norm, True)


@defop("fft_ifft2", function=False, method=False, out=True)
def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """2-D inverse DFT."""
    return _cfft(input, s, dim, norm, False)


@defop("fft_fftn", function=False, method=False, out=True)
def fftn(input, s=None, dim=None, norm=None):
    """N-D DFT over ``dim`` (all dims, or the last len(s), by default)."""
    return _cfft(input, s, dim, norm, True)


@defop("fft_ifftn", function=False, method=False, out=True)
def ifftn(input, s=None, dim=None, norm=None):
    """N-D inverse DFT."""
    return _cfft(input, s, dim, norm, False)


@defop("fft_rfft", function=False, method=False, out=True)
def rfft(input, n=None, dim=-1, norm=None):
    """1-D DFT of a real signal, onesided (n//2 + 1 bins).

    Raises:
        RuntimeError: complex input, as PyTorch.
    """
    return _rfft(input, _one(n), dim, norm)


@defop("fft_irfft", function=False, method=False, out=True)
def irfft(input, n=None, dim=-1, norm=None):
    """Inverse of rfft: a real signal of length ``n`` (default 2 (m - 1))."""
    return _irfft(input, _one(n), dim, norm)


@defop("fft_rfft2", function=False, method=False, out=True)
def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """2-D rfft (the last dim onesided)."""
    return _rfft(input, s, dim, norm)


@defop("fft_irfft2", function=False, method=False, out=True)
def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """2-D irfft."""
    return _irfft(input, s, dim, norm)


@defop("fft_rfftn", function=False, method=False, out=True)
def rfftn(input, s=None, dim=None, norm=None):
    """N-D rfft."""
    return _rfft(input, s, dim, norm)


@defop("fft_irfftn", function=False, method=False, out=True)
def irfftn(input, s=None, dim=None, norm=None):
    """N-D irfft."""
    return _irfft(input, s, dim, norm)


# Hermitian transforms: hfft is irfft of the conjugate with the adjoint normalisation,
# ihfft the conjugate of rfft with it (PyTorch's fft_hfftn / fft_ihfftn)
def _hfft(input, s, dim, norm):
    x = _float_input(input, True)
    return _irfft(x.conj(), s, dim, _SWAP[_norm(norm)])


def _ihfft(input, s, dim, norm):
    return _rfft(input, s, dim, _SWAP[_norm(norm)]).conj()


@defop("fft_hfft", function=False, method=False, out=True)
def hfft(input, n=None, dim=-1, norm=None):
    """1-D DFT of a Hermitian-symmetric signal given by its onesided half: real out."""
    return _hfft(input, _one(n), dim, norm)


@defop("fft_ihfft", function=False, method=False, out=True)
def ihfft(input, n=None, dim=-1, norm=None):
    """Inverse of hfft: the onesided inverse DFT of a real signal."""
    return _ihfft(input, _one(n), dim, norm)


@defop("fft_hfft2", function=False, method=False, out=True)
def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """2-D hfft."""
    return _hfft(input, s, dim, norm)


@defop("fft_ihfft2", function=False, method=False, out=True)
def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """2-D ihfft."""
    return _ihfft(input, s, dim, norm)


@defop("fft_hfftn", function=False, method=False, out=True)
def hfftn(input, s=None, dim=None, norm=None):
    """N-D hfft."""
    return _hfft(input, s, dim, norm)


@defop("fft_ihfftn", function=False, method=False, out=True)
def ihfftn(input, s=None, dim=None, norm=None):
    """N-D ihfft."""
    return _ihfft(input, s, dim, norm)
