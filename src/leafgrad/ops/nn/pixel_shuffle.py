"""``pixel_shuffle`` / ``pixel_unshuffle``: reshape and permute (no rule of their own: the
recorded view ops differentiate them; grad_fn names PyTorch's via ``_named``)."""
from ..._tensor.tensor import Tensor
from .._named import _named
from .._registry import functional_ops


def _shuffle_input(fn, input, factor, name):
    if not isinstance(input, Tensor):
        raise TypeError("%s(): argument 'input' must be Tensor, not %s"
                        % (fn, type(input).__name__))
    if input.dim() < 3:
        raise RuntimeError("%s expects input to have at least 3 dimensions, but got input with "
                           "%d dimension(s). Fix: give it (*, C, H, W)." % (fn, input.dim()))
    if not isinstance(factor, int) or isinstance(factor, bool) or factor <= 0:
        raise RuntimeError("%s expects %s to be greater than 0, but got: %s"
                           % (fn, name, factor))


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): channel c r^2 + i r + j goes to pixel
    (h r + i, w r + j) of channel c (Shi et al. 2016, PyTorch's layout).

    Raises:
        RuntimeError: fewer than 3 dims, a channel count not divisible by r^2.
    """
    r = upscale_factor
    _shuffle_input("pixel_shuffle", input, r, "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            "of upscale_factor, but input.size(-3)=%d is not divisible by %d. Fix: use a channel "
            "count that is a multiple of upscale_factor ** 2." % (c, r * r))
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return _named(x.reshape(*lead, c // (r * r), h * r, w * r), "PixelShuffleBackward0")


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W): the inverse of ``pixel_shuffle``.

    Raises:
        RuntimeError: fewer than 3 dims, H or W not divisible by r.
    """
    r = downscale_factor
    _shuffle_input("pixel_unshuffle", input, r, "downscale_factor")
    *lead, c, h, w = input.shape
    for name, v, i in (("height", h, -2), ("width", w, -1)):
        if v % r:
            raise RuntimeError(
                "pixel_unshuffle expects %s to be divisible by downscale_factor, but input.size("
                "%d)=%d is not divisible by %d. Fix: crop or pad the image to a multiple of %d."
                % (name, i, v, r, r))
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return _named(x.reshape(*lead, c * r * r, h // r, w // r), "PixelUnshuffleBackward0")


functional_ops(globals(), ("pixel_shuffle", "pixel_unshuffle"), function=True)
