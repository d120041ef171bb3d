"""Distances and normalisation along a dim (``normalize``, ``cosine_similarity``,
``pairwise_distance``, ``pdist``), built from recorded ops."""

import numpy as np

from .._dispatch import record, to_tensor
from .._named import _named, _tname
from ..linalg.products import _distance_backward_np, _distance_np, _no_double_backward
from .._out import with_out
from .._registry import add_form, defop, functional_ops, node


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
    return _named((x1 - to_tensor(x2) + eps).norm(p, -1, keepdim=keepdim), "NormBackward1")


functional_ops(globals(), ("normalize",))
functional_ops(globals(), ("cosine_similarity", "pairwise_distance"), function=True)


def _pdist_backward(ctx, g):
    (x,) = ctx._checked_saved
    p, i, j = ctx.args
    xd = x._data
    w = _distance_backward_np(xd[i] - xd[j], ctx.result_array(), g._data, p)
    out = np.zeros_like(xd)
    np.add.at(out, i, w)
    np.subtract.at(out, j, w)
    return (_no_double_backward(out, (g, x), "_pdist_backward"),)


PdistBackward0 = node("PdistBackward0", _pdist_backward, saves=True)


@defop("pdist", method=False)
def pdist(input, p=2):
    """The ``p``-norm distances between the rows of the 2-D ``input`` (N, M), for each
    pair i < j in row-major order: a vector of N (N - 1) / 2. Gradient: PyTorch's
    _pdist_backward (the distance kernels' rules, ``_distance_backward_np``: 0 at a zero
    distance, at a zero coordinate difference for p < 1, the full g to every coordinate
    attaining the max for p = inf); not differentiable twice (NotImplementedError).

    Raises:
        RuntimeError: ``input`` not 2-D, or a negative ``p``.
    """
    if input.dim() != 2:
        raise RuntimeError("pdist only supports 2D tensors, got: %dD. Fix: x.reshape(N, -1)"
                           % input.dim())
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values. Fix: p >= 0")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    i, j = np.triu_indices(input.shape[0], 1)
    xd = input._data
    out = _distance_np(xd[i] - xd[j], p)
    return record(PdistBackward0, out, (input,), saved=(input,), save_result=True,
                  args=(p, i, j))


# ------------------------------------------------------------------ pdist
# torch.pdist is also F.pdist in PyTorch
add_form("pdist", functional=True)
