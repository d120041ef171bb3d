"""``CosineSimilarity`` and ``PairwiseDistance`` (as ``torch.nn``; constructor arguments
and reprs PyTorch's), thin modules over ``nn.functional.cosine_similarity`` and
``pairwise_distance``."""
from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


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
