"""``ChannelShuffle`` (as ``torch.nn``); the computation is ``nn.functional.channel_shuffle``
(``leafgrad.ops.nn.channel_shuffle``)."""
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Channels of (N, C, *) split into ``groups`` and interleaved (ShuffleNet); shape
    kept. Raises as ``F.channel_shuffle``."""

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return "groups=%s" % self.groups
