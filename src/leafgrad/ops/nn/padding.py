"""``pad`` with PyTorch's four modes (re-exported by ``leafgrad.nn.functional``).

'constant' is ``Tensor.pad_nd``. 'reflect', 'replicate' and 'circular' pick, per padded
dim, the source index of every output position, then gather it (``index_select``, whose
derivative adds the gradient back to the source: so padded copies accumulate into the
border elements, as PyTorch's ReflectionPad/ReplicationPad backward do). For an output
position i in [-left, n + right) of a dim of size n:

    reflect:   i < 0: -i;  i >= n: 2 (n - 1) - i      (the edge is not repeated)
    replicate: clamp(i, 0, n - 1)
    circular:  i mod n

Negative pads crop, as PyTorch's.
"""
import numpy as np

from ..._tensor.tensor import Tensor
from .._named import _named
from .._registry import functional_ops

_NAMES = {"reflect": "ReflectionPad%dDBackward0", "replicate": "ReplicationPad%dDBackward0"}


def _source(n, lo, hi, mode):
    i = np.arange(-lo, n + hi)
    if mode == "reflect":
        i = np.abs(i)
        i = np.where(i >= n, 2 * (n - 1) - i, i)
    elif mode == "replicate":
        i = np.clip(i, 0, n - 1)
    else:        # wraps around what is left after cropping (PyTorch's _pad_circular)
        start, stop = max(-lo, 0), n - max(-hi, 0)
        i = start + np.mod(np.arange(-max(lo, 0), stop - start + max(hi, 0)), stop - start)
    return i


def _constant(input, pad, value):
    n = len(pad) // 2
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(n)][::-1]
    x = input
    if any(p < 0 for p in pad):          # negative pads crop first
        x = x[(Ellipsis,) + tuple(slice(max(-a, 0), x.shape[x.dim() - n + k] - max(-b, 0))
                                  for k, (a, b) in enumerate(pairs))]
    widths = [(0, 0)] * (input.dim() - n) + [(max(a, 0), max(b, 0)) for a, b in pairs]
    if any(w != (0, 0) for w in widths):
        x = x.pad_nd(widths, 0.0 if value is None else value)
    return _named(x, "ConstantPadNdBackward0") if x is not input else x


def _unsupported(size, dim):
    return NotImplementedError(
        "Padding size %d is not supported for %dD input tensor.\nSupported combinations for "
        "non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - "
        "3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding "
        "size = 6 (pads last 3 dimensions)\nFix: pad only the last 1, 2 or 3 dims of a batched or "
        "unbatched input." % (size, dim))


def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims: ``pad`` = (left, right, top, bottom, front,
    back), the last dim first (negative values crop).

    Modes: 'constant' (``value``, default 0), 'reflect' (mirror without repeating the
    edge; each pad < that dim's size), 'replicate' (repeat the edge), 'circular' (wrap
    around; each pad <= that dim's size). The non-constant modes pad the last 1, 2 or 3
    dims of a 2-D/3-D, 3-D/4-D or 4-D/5-D input.

    Raises:
        RuntimeError: an odd ``pad`` length, ``value`` with a non-constant mode, a reflect
            pad not below the dim's size, a circular pad that wraps more than once.
        NotImplementedError: an unknown mode, a non-constant pad of other dims.
    """
    if not isinstance(input, Tensor):
        raise TypeError("pad(): argument 'input' (position 1) must be Tensor, not %s"
                        % type(input).__name__)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2. Fix: give (left, right) pairs, "
                           "last dim first.")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length %d and input of dimension %d"
                           % (len(pad), input.dim()))
    if mode == "constant":
        return _constant(input, pad, value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError("Unrecognised padding mode %s. Fix: use 'constant', 'reflect', "
                                  "'replicate' or 'circular'." % mode)
    if value is not None and value != 0:
        raise RuntimeError('Padding mode "%s" doesn\'t take in value argument. Fix: drop value= '
                           "(it is for mode='constant')." % mode)
    nd = len(pad) // 2
    if nd not in (1, 2, 3) or input.dim() not in (nd + 1, nd + 2):
        raise _unsupported(len(pad), input.dim())
    x = input
    for k in range(nd):
        dim = input.dim() - 1 - k
        n, lo, hi = input.shape[dim], pad[2 * k], pad[2 * k + 1]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                "Argument #4: Padding size should be less than the corresponding input dimension, "
                "but got: padding (%d, %d) at dimension %d of input %s. Fix: use a smaller pad or "
                "mode='replicate'." % (lo, hi, dim, list(input.shape)))
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once. Fix: pad at "
                               "most the dim's size (%d)." % n)
        if lo or hi:
            x = x.index_select(dim, Tensor._make_plain(_source(n, lo, hi, mode)))
    return _named(x, _NAMES[mode] % nd if mode in _NAMES else "CopySlices")


functional_ops(globals(), ("pad",))
