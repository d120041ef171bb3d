"""Distances and normalisation along a dim (``normalize``, ``cosine_similarity``,
``pairwise_distance``, ``pdist``), built from recorded ops."""

import numpy as np

from ..._tensor.tensor import Tensor
from .._named import grad_fn_named, _named, _tname
from .._out import with_out
from .._registry import add_form, defop, functional_ops


@with_out("normalize")
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """x / max(||x||_p, eps) along ``dim``."""
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps), dim), after broadcasting.

    PyTorch's formula (ATen ``cosine_similarity``): each norm is clamped to
    ``eps`` on its own, and the clamp is invisible to autograd (done in place
    under no_grad there), so at a zero vector the gradient is x2-hat / eps,
    not 0.

    Raises:
        RuntimeError: when neither input is floating point.
    """
    from ..._core import dtype as _dtype
    from ..shape.views import broadcast_tensors
    common = _dtype.result_type(x1, x2)
    if common._category < 2:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is %s: "
                           "convert the inputs first, e.g. x.float()" % _tname(common.np))
    x1, x2 = (x if x.is_floating_point() else x.to(common) for x in (x1, x2))
    if x1.shape != x2.shape:
        x1, x2 = broadcast_tensors(x1, x2)
    n1, n2 = (_named(x.norm(2, dim, keepdim=True), "CloneBackward0",
                     data=lambda n: np.maximum(n, np.asarray(eps, n.dtype)))
              for x in (x1, x2))
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _named((x1 - x2 + eps).norm(p, -1, keepdim=keepdim), "NormBackward1")


functional_ops(globals(), ("normalize",))
functional_ops(globals(), ("cosine_similarity", "pairwise_distance"), function=True)


@defop("pdist", method=False)
@grad_fn_named("PdistBackward0")
def pdist(input, p=2):
    """The ``p``-norm distances between the rows of the 2-D ``input`` (N, M), for each
    pair i < j in row-major order: a vector of N (N - 1) / 2.

    Raises:
        RuntimeError: ``input`` not 2-D, or a negative ``p``.
    """
    if input.dim() != 2:
        raise RuntimeError("pdist only supports 2D tensors, got: %dD. Fix: x.reshape(N, -1)"
                           % input.dim())
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values. Fix: p >= 0")
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    if not i.size:
        return Tensor._make_plain(np.zeros(0, input._data.dtype)) + input.sum() * 0
    diff = input[Tensor._make_plain(i.astype(np.int64))] - input[Tensor._make_plain(
        j.astype(np.int64))]
    return diff.norm(p, 1)


# ------------------------------------------------------------------ pdist
# torch.pdist is also F.pdist in PyTorch
add_form("pdist", functional=True)
