"""Negative log-likelihood losses built from differentiable ops (no rule of their own):
``poisson_nll_loss``, ``gaussian_nll_loss`` and ``ctc_loss`` (the CTC forward recursion
in log space). Formulas from PyTorch's docs of the matching ``nn`` loss classes (and its
``torch/nn/functional.py`` for gaussian_nll_loss's checks). ``nll_loss`` and
``cross_entropy``, with their own rules, are in ``loss.py``.
"""

import math

import numpy as np

from ..._tensor.tensor import Tensor
from .. import elementwise as E
from .._named import _named
from .._registry import functional_ops
from .loss import _check_reduction, _legacy, _reduce


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
functional_ops(globals(), ("poisson_nll_loss", "gaussian_nll_loss", "ctc_loss"))
