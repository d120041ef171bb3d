"""``torch.stft`` and ``torch.istft`` (and ``Tensor.stft``/``istft``), as PyTorch 2.13's
``torch/functional.py`` and ATen's ``SpectralOps.cpp``.

Both are built from recorded ops, so they differentiate (to any order) through the FFT
kernels' rules (``transforms.py``) and the complex autograd: stft pads the signal
(``center``: ``n_fft // 2`` each side in ``pad_mode``), cuts it into frames
(``unfold``, ATen's ``as_strided``), multiplies by the window (zero-padded to ``n_fft``,
centred) and takes the DFT of each frame (onesided for real input and window); istft
inverts each frame, multiplies by the window and overlap-adds (``index_add``, ATen's
``unfold_backward``), divides by the overlap-added squared window and trims the
``center`` padding (``length``: trim or zero-pad to that length). PyTorch's checks in its
order and its once-per-process warnings (no window; ``return_complex=False``'s
deprecation; a ``length`` beyond the signal).
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.creation import zeros
from ..._tensor.tensor import Tensor
from .._registry import defop
from ..elementwise.complex import view_as_real
from ..nn.padding import pad
from . import transforms as _T

_WARNED = set()
_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known "
              "to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
              "device=<device>)`.")
_NO_WINDOW_INV = ("A window was not provided. A rectangular window will be applied.Please "
                  "provide the same window used by stft to make the inversion lossless.To "
                  "suppress this warning and use a rectangular window, explicitly set "
                  "`window=torch.ones(n_fft, device=<device>)`.")
_REAL_OUT = ("stft with return_complex=False is deprecated. In a future pytorch release, stft "
             "will return complex tensors for all inputs, and return_complex=False will raise "
             "an error.\nNote: you can still call torch.view_as_real on the complex output to "
             "recover the old return format.")
_SHORT = ("The length of signal is shorter than the length parameter. Result is being padded "
          "with zeros in the tail. Please check your center and hop_length settings.")


def _warn_once(message):
    if message not in _WARNED:      # TORCH_WARN_ONCE: once per process and message
        _WARNED.add(message)
        _errors.warn(message)


def _repr(name, x, fields):
    """ATen's REPR: the call as text, for the messages."""
    win = fields.get("window")
    fields["window"] = "None" if win is None else "%s{%s}" % (win.type(), list(win.shape))
    body = ", ".join("%s=%s" % (k, int(v) if isinstance(v, bool) else v)
                     for k, v in fields.items())
    return "%s(%s%s, %s) " % (name, x.type(), list(x.shape), body)


def _centred(w, n_fft):
    """A window of length < n_fft zero-padded on both sides to n_fft (ATen's narrow+copy)."""
    left = (n_fft - w.shape[0]) // 2
    return pad(w, (left, n_fft - w.shape[0] - left))


def _ones(n, dtype):
    return Tensor._make_plain(np.ones(n, dtype))


def _stft_checks(x, n_fft, hop, win, window, where):
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(where + ": expected a tensor of floating point or complex values. "
                           "Fix: convert the signal, e.g. x.float()")
    if x.dim() not in (1, 2):
        raise RuntimeError(where + ": expected a 1D or 2D tensor. Fix: pass (L,) or (B, L)")
    n = x.shape[-1]
    if n_fft <= 0 or n_fft > n:
        raise RuntimeError(where + ": expected 0 < n_fft < %d, but got n_fft=%d. Fix: a signal "
                           "at least n_fft long (or center=True)" % (n, n_fft))
    if hop <= 0:
        raise RuntimeError(where + ": expected hop_length > 0, but got hop_length=%d" % hop)
    if win <= 0 or win > n_fft:
        raise RuntimeError(where + ": expected 0 < win_length <= n_fft, but got win_length=%d"
                           % win)
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(where + ": expected a 1D window tensor of size equal to win_length="
                           "%d, but got window with size %s" % (win, list(window.shape)))


def _aligned(x, n_fft, hop, win):
    """align_to_window: ATen pads ``(n_fft - win) // 2`` zeros on both sides and takes
    ``1 + (L - win) // hop`` frames; with an odd ``n_fft - win`` the last frame can run one
    element past the end, where ATen's as_strided fails (RuntimeError, as here)."""
    left = (n_fft - win) // 2
    n = x.shape[-1]
    frames = 1 + (n - win) // hop
    if (frames - 1) * hop + n_fft > n + 2 * left:
        raise RuntimeError("setStorage: the %d frames of align_to_window=True run past the end "
                           "of the padded signal (%d elements). Fix: an even n_fft - win_length,"
                           " or a hop_length that does not divide L - win_length"
                           % (frames, n + 2 * left))
    return pad(x, (left, n_fft - win - left))


def _center_pad(input, n_fft, pad_mode):
    """torch/functional.py's padding: as a 3-D tensor, ``n_fft // 2`` on each side."""
    nd = input.dim()
    x = input.reshape([1] * (3 - nd) + list(input.shape))
    p = int(n_fft // 2)
    x = pad(x, [p, p], pad_mode)
    return x.reshape(tuple(x.shape[-nd:]) if nd else ())


@defop("stft")
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """Short-time Fourier transform of a (L,) or (B, L) signal: (B,) n_freq x n_frames,
    complex (``return_complex=False``: deprecated, the real view with a last dim of 2).
    ``hop_length`` n_fft // 4, ``win_length`` n_fft, window ones (with a warning).

    Raises:
        RuntimeError: no ``return_complex`` for a real input and window, a signal shorter
            than ``n_fft``, bad hop/win lengths or window shape, a onesided complex
            transform, ``align_to_window`` with ``center``; PyTorch's messages.
    """
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        input = _center_pad(input, n_fft, pad_mode)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    where = _repr("stft", input, {"n_fft": n_fft, "hop_length": hop, "win_length": win,
                                  "window": window, "normalized": normalized,
                                  "onesided": onesided, "return_complex": return_complex,
                                  "align_to_window": align_to_window})
    if window is None:
        _warn_once(_NO_WINDOW)
    rc = return_complex if return_complex is not None else (
        input.is_complex() or (window is not None and window.is_complex()))
    if not rc:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        _warn_once(_REAL_OUT)
    _stft_checks(input, n_fft, hop, win, window, where)
    x = input.unsqueeze(0) if input.dim() == 1 else input
    w = window
    if win < n_fft:
        w = _centred(window if window is not None else _ones(win, x._data.dtype), n_fft)
        if align_to_window:
            x = _aligned(x, n_fft, hop, win)
    frames = x.unfold(-1, n_fft, hop)
    if w is not None:
        frames = frames * w
    complex_fft = frames.is_complex()
    one = (not complex_fft) if onesided is None else onesided
    norm = "ortho" if normalized else "backward"
    if complex_fft:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _T.fft(frames, norm=norm)
    else:
        out = _T.rfft(frames, norm=norm) if one else _T.fft(frames, norm=norm)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    if rc:
        return out
    return view_as_real(out)


def _istft_checks(input, n_fft, hop, win, window, where, onesided):
    if input.numel() == 0:
        raise RuntimeError(where + ": input tensor cannot be empty.")
    if input.dim() not in (2, 3):
        raise RuntimeError(where + ": expected a tensor with 3 or 4 dimensions, but got %d. "
                           "Fix: pass stft's (n_freq, n_frames) or (B, n_freq, n_frames)"
                           % (input.dim() + 1))
    fft_size = input.shape[-2]
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(where + ": expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft / 2 + 1 when onesided=True, but got %d"
                           % fft_size)
    if not onesided and n_fft != fft_size:
        raise RuntimeError(where + ": expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft when onesided=False, but got %d"
                           % fft_size)
    if not 0 < hop <= win:
        raise RuntimeError("istft expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError("istft expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(where + ": Invalid window shape. window has to be 1D and length of "
                           "`win_length`")


def _overlap_add(frames, hop, total):
    """ATen's unfold_backward over dim 1: (B, n_frames, n) frames ``hop`` apart, summed
    into (B, total)."""
    b, nf, n = frames.shape
    idx = (np.arange(nf)[:, None] * hop + np.arange(n)[None, :]).reshape(-1)
    z = zeros((b, total), dtype=frames.dtype)
    return z.index_add(1, Tensor._make_plain(idx), frames.reshape(b, nf * n))


def _istft_frames(input, n_fft, normalized, onesided, return_complex, window):
    """Each frame's inverse DFT: (B, n_frames, n_fft)."""
    x = input.transpose(1, 2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        return _T.ifft(x, norm=norm)
    if window is not None and window.is_complex():
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    if not onesided:
        x = x.narrow(-1, 0, n_fft // 2 + 1)
    return _T.irfft(x, n=n_fft, norm=norm)


@defop("istft")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """Inverse of stft: a complex (n_freq, n_frames) or (B, n_freq, n_frames) spectrum to
    the (B,) signal, by overlap-add divided by the window's squared overlap-add.

    Raises:
        RuntimeError: a real input, an empty input, mismatched n_fft/onesided, bad
            hop/win lengths or window, a window whose overlap-add vanishes (PyTorch's
            "window overlap add min"), onesided with ``return_complex``.
    """
    if window is None:
        _warn_once(_NO_WINDOW_INV)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    where = _repr("istft", input, {"n_fft": n_fft, "hop_length": hop, "win_length": win,
                                   "window": window, "center": center,
                                   "normalized": normalized, "onesided": onesided,
                                   "length": length, "return_complex": return_complex})
    if input.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got "
                         "-3)" % (-input.dim() - 1, input.dim()))
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    one = fft_size != n_fft if onesided is None else onesided
    _istft_checks(input, n_fft, hop, win, window, where, one)
    real = input._data.real.dtype
    w = window if window is not None else _ones(win, real)
    if win != n_fft:
        w = _centred(w, n_fft)
    x = input.unsqueeze(0) if input.dim() == 2 else input
    frames = _istft_frames(x.resolve_conj(), n_fft, normalized, one, return_complex, window)
    total = n_fft + hop * (n_frames - 1)
    y = _overlap_add(frames * w.reshape(1, 1, n_fft), hop, total)
    env = _overlap_add((w * w).expand(1, n_frames, n_fft), hop, total)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else total)
    y, env = y[:, start:end], env[:, start:end]
    if env.numel() == 0:
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() == "
                           "0. Specify the reduction dim with the 'dim' argument.")
    if bool((np.abs(env._data) < 1e-11).any()):
        raise RuntimeError(where + "window overlap add min: 1. Fix: a window whose squared "
                           "overlap-add is nonzero everywhere (hop_length <= win_length, no "
                           "zero at the signal's ends: center=True)")
    y = y / env
    if input.dim() == 2:
        y = y.squeeze(0)
    if end > total:
        _warn_once(_SHORT)
        y = pad(y, (0, end - total))
    return y
