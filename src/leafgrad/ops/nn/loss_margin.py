"""Margin losses built from differentiable ops (no rule of their own):
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``, ``multi_margin_loss``,
``multilabel_margin_loss``, ``multilabel_soft_margin_loss``. Formulas from PyTorch's
docs of the matching ``nn`` loss classes; the margin losses with their own rules
(``soft_margin_loss``, ``margin_ranking_loss``, ...) are in ``loss.py``."""

import numpy as np

from ..._tensor.tensor import Tensor
from .. import elementwise as E
from .._named import _named
from .._registry import functional_ops
from .distance import pairwise_distance
from .loss import _check_reduction, _legacy, _reduce


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with d the p-norm pairwise distance (+ eps);
    ``swap``: d(a, n) replaced by min(d(a, n), d(p, n)) (Balntas et al. 2016).

    Raises:
        RuntimeError: anchor, positive and negative of different ranks.
    """
    reduction = _legacy(size_average, reduce, reduction)
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            "dimensions, but got: anchor %dD, positive %dD, and negative %dD inputs. Fix: give "
            "them one shape." % dims)
    return _triplet(anchor, positive, negative, margin, swap, reduction,
                    lambda a, b: pairwise_distance(a, b, p, eps))


def _triplet(anchor, positive, negative, margin, swap, reduction, dist):
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = E.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0.0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``triplet_margin_loss`` with any ``distance_function(x1, x2)`` (default: the
    2-norm pairwise distance).

    Raises:
        ValueError: margin <= 0.
    """
    if margin <= 0:
        raise ValueError("TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                         "%s instead" % margin)
    _check_reduction(reduction)
    dist = distance_function if distance_function is not None else pairwise_distance
    return _triplet(anchor, positive, negative, margin, swap, reduction, dist)


def _class_targets(fn, input, target):
    if input.dim() not in (1, 2):
        raise RuntimeError("%s: Expected non-empty vector or matrix with optional 0-dim batch "
                           "size, but got: %s. Fix: give (N, C) or (C,)." % (fn, list(input.shape)))
    x = input if input.dim() == 2 else input.unsqueeze(0)
    want = x.shape[0] if fn == "multi_margin_loss" else x.shape[0] * x.shape[1]
    if target._data.size != want or (fn != "multi_margin_loss" and
                                     tuple(target.shape) != tuple(input.shape)):
        raise RuntimeError("inconsistent target size: %s for input of size: %s. Fix: one class "
                           "per sample (multi_margin_loss), the input's shape (multilabel)."
                           % (list(target.shape), list(input.shape)))
    return x, target._data.reshape(x.shape[0], -1)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i])^p (times weight[y]) / C, per sample.

    Shapes: input (N, C) or (C,), target (N,) or () int64.

    Raises:
        ValueError: p other than 1 or 2.
        RuntimeError: a target outside [0, C).
    """
    reduction = _legacy(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x, t = _class_targets("multi_margin_loss", input, target)
    n, c = x.shape
    t = t.reshape(n).astype(np.int64)
    if ((t < 0) | (t >= c)).any():
        raise RuntimeError("target out of range. Fix: targets are class indices in [0, %d)." % c)
    xy = x.gather(1, Tensor._make_plain(t[:, None]))
    z = (margin - xy + x).relu()     # PyTorch's "if (z > 0)": no gradient at a zero margin
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, Tensor._make_plain(t)).unsqueeze(1)
    others = np.ones((n, c), x._data.dtype)
    others[np.arange(n), t] = 0
    loss = (z * Tensor._make_plain(others)).sum(1) / c
    if input.dim() == 1:
        loss = loss.squeeze(0)
    return _named(_reduce(loss, reduction), "MultiMarginLossBackward0")


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])) / C,
    per sample; ``target`` (N, C) int64 lists the target classes, ended by the first -1.

    Raises:
        RuntimeError: a target of another shape, or a class outside [-1, C).
    """
    reduction = _legacy(size_average, reduce, reduction)
    x, t = _class_targets("multilabel_margin_loss", input, target)
    n, c = x.shape
    if ((t < -1) | (t >= c)).any():
        raise RuntimeError("target out of range. Fix: classes in [0, %d), ended by -1." % c)
    valid = np.cumprod(t >= 0, axis=1).astype(bool)            # before the first -1
    is_target = np.zeros((n, c), bool)
    rows = np.repeat(np.arange(n), c)[valid.reshape(-1)]
    is_target[rows, t[valid]] = True
    xj = x.gather(1, Tensor._make_plain(np.where(valid, t, 0).astype(np.int64)))
    # (N, j, i); relu, not clamp_min: PyTorch's "if (z > 0)" gives no gradient at z == 0
    hinge = (1 - xj.unsqueeze(2) + x.unsqueeze(1)).relu()
    mask = (valid[:, :, None] & ~is_target[:, None, :]).astype(x._data.dtype)
    loss = (hinge * Tensor._make_plain(mask)).sum((1, 2)) / c
    if input.dim() == 1:
        loss = loss.squeeze(0)
    return _named(_reduce(loss, reduction), "MultilabelMarginLossBackward0")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)) (times weight), averaged over the
    classes (last dim), per sample."""
    from .activation import logsigmoid
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.shape[-1]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not a valid value for reduction")


functional_ops(globals(), ("triplet_margin_loss", "triplet_margin_with_distance_loss",
                           "multi_margin_loss", "multilabel_margin_loss",
                           "multilabel_soft_margin_loss"))


