"""More losses, built from differentiable ops (re-exported by ``leafgrad.nn.functional``):
``poisson_nll_loss``, ``gaussian_nll_loss``, ``triplet_margin_loss``,
``triplet_margin_with_distance_loss``, ``multi_margin_loss``, ``multilabel_margin_loss``,
``multilabel_soft_margin_loss``. Formulas from PyTorch's docs of the matching ``nn``
loss classes (and its ``torch/nn/functional.py`` for gaussian_nll_loss's checks).
"""
import math

import numpy as np

from ..._tensor.tensor import Tensor
from .. import elementwise as E
from .._named import _named
from .._registry import functional_ops
from .distance import pairwise_distance
from .loss import _legacy, _reduce


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log likelihood: exp(input) - target input (``log_input``), else
    input - target log(input + eps); ``full`` adds Stirling's term target log target -
    target + log(2 pi target) / 2 where target > 1."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:      # as PyTorch: the whole term, then zeroed where target <= 1
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + E.where((target <= 1)._data, 0.0, stirling)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood: (log(max(var, eps)) + (input - target)^2 /
    max(var, eps)) / 2 (+ log(2 pi) / 2 with ``full``). ``var``: input's shape, one dim
    fewer, or one dim of size 1 (broadcast); a float is a constant variance. The clamp is
    not differentiated (PyTorch clamps a copy under no_grad).

    Raises:
        ValueError: a negative variance, a var of another size, an unknown reduction.
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = Tensor._make_plain(np.full(input._data.shape, var, input._data.dtype))
    elif (var._data < 0).any():
        raise ValueError("var has negative entry/entries. Fix: pass variances (>= 0), e.g. "
                         "softplus of the network's output.")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(
                b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size. Fix: give var the input's shape, or that "
                             "shape without (or with 1 in) one dim.")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = _named(var.clone(), "CloneBackward0", data=lambda a: np.maximum(a, eps).astype(a.dtype))
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


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
    z = (margin - xy + x).clamp_min(0.0)
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
    hinge = (1 - xj.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0.0)     # (N, j, i)
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


def _lengths(v, n, name):
    a = v._data if isinstance(v, Tensor) else np.asarray(v)
    a = a.reshape(-1).astype(np.int64)
    if a.size != n:
        raise RuntimeError("%s must be of size batch_size (%d), but got %d. Fix: one length per "
                           "sample." % (name, n, a.size))
    return a


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss (Graves et al. 2006): -log of the total
    probability of the alignments of each target, by the forward (alpha) recursion in
    log space over the extended target (blank, l1, blank, l2, ..., blank).

    Shapes: log_probs (T, N, C) (log-softmax outputs) or (T, C); targets (N, S) padded or
    the targets concatenated (sum(target_lengths),); input_lengths, target_lengths (N,).
    'mean' divides each loss by its target length (at least 1), then averages; an
    impossible alignment gives inf (0, and no gradient, with ``zero_infinity``).

    The recursion runs over time (one step per frame, all samples and positions at once)
    with differentiable ops, so the gradient is the recursion's own; -inf is held as a
    large negative number so that log-sum-exp of unreachable states has no NaN gradient.

    Raises:
        RuntimeError: lengths that do not match the batch, targets longer than given.
    """
    from ..shape.joins import stack
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    T, n, c = log_probs.shape
    in_len = _lengths(input_lengths, n, "input_lengths")
    tg_len = _lengths(target_lengths, n, "target_lengths")
    tg = targets._data.astype(np.int64)
    if unbatched:
        tg = tg.reshape(1, -1)
    if tg.ndim == 1:                      # concatenated targets -> (N, longest), padded
        starts = np.cumsum(tg_len) - tg_len
        padded = np.full((n, int(tg_len.max()) if n else 0), blank, np.int64)
        rows = np.repeat(np.arange(n), tg_len)
        cols = np.arange(int(tg_len.sum())) - np.repeat(starts, tg_len)
        padded[rows, cols] = tg[:int(tg_len.sum())]
        tg = padded
    if (tg_len > tg.shape[1]).any() or (in_len > T).any():
        raise RuntimeError("Expected tensor to have size at least %d at dimension 1, but got "
                           "size %d for targets; or input_lengths over %d. Fix: lengths within "
                           "the tensors." % (int(tg_len.max()), tg.shape[1], T))
    L = 2 * tg.shape[1] + 1
    ext = np.full((n, L), blank, np.int64)
    ext[:, 1::2] = tg
    dt = log_probs._data.dtype
    neg = dt.type(-1e30 if dt == np.float32 else -1e300)
    pos = np.arange(L)
    reach = pos[None, :] < (2 * tg_len + 1)[:, None]
    skip = np.zeros((n, L), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    lp = log_probs.gather(2, Tensor._make_plain(np.broadcast_to(ext, (T, n, L)).copy()))
    alpha = E.where((pos < 2)[None, :] & reach, lp[0], neg)
    pad1 = Tensor._make_plain(np.full((n, 1), neg, dt))
    pad2 = Tensor._make_plain(np.full((n, 2), neg, dt))
    from ..shape.joins import cat
    for t in range(1, T):
        a1 = cat([pad1, alpha[:, :-1]], 1)
        a2 = E.where(skip, cat([pad2, alpha[:, :-2]], 1), neg)
        new = stack([alpha, a1, a2], -1).logsumexp(-1) + lp[t]
        new = E.where(reach, new, neg)
        alpha = E.where((t < in_len)[:, None], new, alpha)
    last = 2 * tg_len
    f1 = alpha.gather(1, Tensor._make_plain(last[:, None]))
    f2 = E.where((last >= 1)[:, None], alpha.gather(1, Tensor._make_plain(
        np.maximum(last - 1, 0)[:, None])), neg)
    loss = -stack([f1, f2], -1).logsumexp(-1).squeeze(1)
    impossible = (loss._data > -neg / 10) | (in_len == 0) & (tg_len > 0)
    if impossible.any():
        loss = E.where(impossible, 0.0 if zero_infinity else float("inf"), loss)
    if reduction == "mean":
        loss = (loss / Tensor._make_plain(np.maximum(tg_len, 1).astype(dt))).mean()
    elif reduction == "sum":
        loss = loss.sum()
    elif reduction != "none":
        raise ValueError("%s is not a valid value for reduction" % reduction)
    elif unbatched:
        loss = loss.squeeze(0)
    return loss


functional_ops(globals(), ("poisson_nll_loss", "gaussian_nll_loss", "triplet_margin_loss",
                          "triplet_margin_with_distance_loss", "multi_margin_loss",
                          "multilabel_margin_loss", "multilabel_soft_margin_loss", "ctc_loss"))
