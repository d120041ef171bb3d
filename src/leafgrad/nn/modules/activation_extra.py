"""``Softshrink``, ``Hardshrink``, ``RReLU``, ``Softmax2d``, ``CosineSimilarity``,
``PairwiseDistance`` (as ``torch.nn``; constructor arguments and reprs PyTorch's)."""
from .. import functional as F
from .module import Module

__all__ = ["Softshrink", "Hardshrink", "RReLU", "Softmax2d", "CosineSimilarity",
           "PairwiseDistance"]


class Softshrink(Module):
    """x - lambd / x + lambd outside [-lambd, lambd], 0 inside (``F.softshrink``)."""

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    """x outside [-lambd, lambd], 0 inside (``F.hardshrink``)."""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class RReLU(Module):
    """Randomized leaky ReLU (``F.rrelu``): slope U(lower, upper) in training, their mean
    in eval."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        s = "lower=%s, upper=%s" % (self.lower, self.upper)
        return s + (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channel dim (-3) of (N, C, H, W) or (C, H, W).

    Raises:
        ValueError: an input that is not 3-D or 4-D.
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError("Softmax2d: expected input to be 3D or 4D, got %dD instead. Fix: "
                             "give (N, C, H, W) or (C, H, W)." % input.dim())
        return F.softmax(input, -3, _stacklevel=5)


class CosineSimilarity(Module):
    """Cosine similarity of x1 and x2 along ``dim`` (``F.cosine_similarity``)."""

    __constants__ = ["dim", "eps"]

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """p-norm of x1 - x2 + eps along the last dim (``F.pairwise_distance``)."""

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
