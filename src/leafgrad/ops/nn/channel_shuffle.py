"""``nn.functional.channel_shuffle`` and ``native_channel_shuffle`` (as PyTorch's
``torch/nn/modules/channelshuffle.py``): the channels, in ``groups`` groups, interleaved;
a reshape-transpose-reshape, so the gradient is those views'. ``native_channel_shuffle``
has no derivative in PyTorch (its backward raises, kept). ``pixel_shuffle``:
``pixel_shuffle.py``.
"""

from .._dispatch import record
from .._named import _named
from .._registry import defop, node
from .normalization import _sizes


# ------------------------------------------------------------------ channel_shuffle
def _check_shuffle(name, input, groups):
    if input.dim() <= 2:
        raise RuntimeError("%s expects input with > 2 dims, but got input with sizes %s. "
                           "Fix: input is (N, C, *)" % (name, _sizes(input.shape)))
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           "groups:%d. Fix: groups >= 1" % groups)
    c = input.shape[1]
    if c % groups:
        raise RuntimeError("Number of channels must be divisible by groups. Got %d channels and "
                           "%d groups. Fix: a groups that divides C" % (c, groups))


def _shuffled(input, groups):
    n, c = input.shape[:2]
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape(
        (n, c) + rest)


@defop("channel_shuffle", method=False, functional=True)
def channel_shuffle(input, groups):
    """Channels (N, C, *) regrouped: C = g x (C/g) -> (C/g) x g (Zhang et al. 2017,
    ShuffleNet; PyTorch's ``channel_shuffle``). Shape and dtype as input.

    Raises:
        RuntimeError: fewer than 3 dims, ``groups <= 0``, or C not divisible by groups.
    """
    _check_shuffle("channel_shuffle", input, groups)
    return _named(_shuffled(input, groups), "ChannelShuffleBackward0")


def _no_derivative(ctx, g):
    raise RuntimeError("the derivative for 'native_channel_shuffle' is not implemented. Fix: "
                       "use torch.nn.functional.channel_shuffle, which has one")


_NativeShuffle = node("NotImplemented", _no_derivative, saves=False)


@defop("native_channel_shuffle", method=False, functional=True)
def native_channel_shuffle(input, groups):
    """``channel_shuffle``'s values; as in PyTorch it has no derivative (its node,
    ``NotImplemented``, raises RuntimeError in backward)."""
    _check_shuffle("channel_shuffle", input, groups)
    out = _shuffled(input.detach(), groups)
    if not input._requires_grad:
        return out
    return record(_NativeShuffle, out._data, (input,))
