"""``Flatten`` and ``Unflatten`` (as ``torch.nn``)."""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dims ``start_dim``..``end_dim`` into one: (N, *dims) -> (N, prod(dims)) by default."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim=%s, end_dim=%s" % (self.start_dim, self.end_dim)


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (a tuple/list of ints, one may be -1).

    Raises:
        TypeError: when ``unflattened_size`` is not a tuple or list of ints.
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be tuple of ints, but found type %s"
                            % type(unflattened_size).__name__)
        for i, v in enumerate(unflattened_size):
            if not isinstance(v, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                "type %s at pos %d" % (type(v).__name__, i))
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return "dim=%s, unflattened_size=%s" % (self.dim, self.unflattened_size)
