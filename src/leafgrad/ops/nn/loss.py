"""Losses (``mse_loss``, ``cross_entropy``, ``nll_loss``, ``binary_cross_entropy``,
``soft_margin_loss``, ``margin_ranking_loss``, ``hinge_embedding_loss``,
``cosine_embedding_loss``, ``linear_cross_entropy``, ...) and their vector-Jacobian
products, following PyTorch's definitions
(https://pytorch.org/docs/stable/nn.functional.html) including ``reduction``,
``weight``, ``ignore_index`` and ``label_smoothing``; cross-entropy works from
``log_softmax`` so it is stable for large logits. The margin losses built from other
ops are in ``loss_margin.py``, the likelihood ones in ``loss_likelihood.py``."""

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.graph import Node
from .. import elementwise as E
from .._dispatch import record, to_tensor
from .._named import _tname
from .._registry import defop, functional_ops, node
from .._trace import tape as _tape
from ..elementwise.pointwise import clamp
from .activation import log_softmax
from .loss_bce import (BinaryCrossEntropyBackward0, BinaryCrossEntropyWithLogitsBackward0,
                       np_log_sigmoid)
from .loss_smooth import fit_to_input, huber_loss_op, smooth_l1_loss_op

_min_reduce, _max_reduce, _add_reduce = np.minimum.reduce, np.maximum.reduce, np.add.reduce


# ------------------------------------------------------------------ losses
def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError("%s is not a valid value for reduction" % reduction)


def _legacy(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _same_shape(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        _errors.warn(
            "Using a target size (%s) that is different to the input size (%s). This will likely "
            "lead to incorrect results due to broadcasting. Please ensure they have the same size."
            % (target.shape, input.shape), UserWarning)


def _mse_backward(ctx, g):
    a, b = ctx._checked_saved
    reduction, n = ctx.args
    na, nb = ctx.needs_input_grad
    d = a - b
    if reduction == "mean":
        g = g * (2.0 / n)
    elif reduction == "sum":
        g = g * 2.0
    else:
        g = g * 2.0
    return (fit_to_input(g * d, a) if na else None), (fit_to_input(-(g * d), b) if nb else None)


MseLossBackward0 = node("MseLossBackward0", _mse_backward, saves=True)


def _mse_np(ctx, g):
    a, b = ctx.saved_arrays()
    reduction, n = ctx.args
    gd = (g * (2.0 / n) if reduction == "mean" else g * 2.0) * (a - b)
    na, nb = ctx.needs_input_grad
    return (fit_to_input(gd, a) if na else None), (fit_to_input(-gd, b) if nb else None)


MseLossBackward0.np_backward = _mse_np


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error: mean((input - target)^2) (``reduction`` 'mean' | 'sum' | 'none')."""
    reduction = _legacy(size_average, reduce, reduction)
    target = to_tensor(target)
    _same_shape(input, target, "mse_loss")
    x, y = input._data, target._data
    if x.dtype.kind not in "fc" and y.dtype.kind not in "fc":
        raise NotImplementedError("\"mse_cpu\" not implemented for '%s': mse_loss takes floats. "
                                  "Fix: convert with .float()" % _tname(x.dtype))
    if y.dtype != x.dtype:      # PyTorch's promotion: int targets take the input's float dtype
        from ..._core.dtype import result_type
        npd = result_type(input, target).np
        x, y = x.astype(npd, copy=False), y.astype(npd, copy=False)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    try:
        out = _mse_kernel(x, y, reduction)
    except ValueError:
        raise _errors.broadcast(tuple(input.shape), tuple(target.shape)) from None
    res = record(MseLossBackward0, out, (input, target), saved=(input, target),
                 args=(reduction, x.size if x.shape == y.shape else np.broadcast(x, y).size))
    if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
        _tape[0].op(_mse_kernel, (x, y, reduction), res)
    return res


def _mse_kernel(x, y, reduction):
    """mse_loss's NumPy kernel."""
    with _quiet():      # overflow and inf - inf are silent in PyTorch
        d = x - y
        sq = d * d
        out = sq if reduction == "none" else sq.sum()
        if reduction == "mean":
            out = out / sq.size if sq.size else np.float32("nan")
    return np.asarray(out, sq.dtype)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error."""
    reduction = _legacy(size_average, reduce, reduction)
    target = to_tensor(target)      # an array as mse_loss takes it (TypeError for strings)
    _same_shape(input, target, "l1_loss")
    return _reduce(E.abs(input - target), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target);
    SmoothL1LossBackward0 (ops/nn/loss_smooth.py). beta = 0 is l1_loss (as PyTorch).

    Raises:
        RuntimeError: for beta < 0 (PyTorch's message).
    """
    reduction = _legacy(size_average, reduce, reduction)
    _same_shape(input, target, "smooth_l1_loss")
    if beta < 0:
        raise _errors.loss_threshold("smooth_l1_loss", "beta", beta, False)
    if beta == 0:
        return _reduce(E.abs(input - target), reduction)
    return smooth_l1_loss_op(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (d = input - target);
    HuberLossBackward0 (ops/nn/loss_smooth.py).

    Raises:
        RuntimeError: for delta <= 0 (PyTorch's message).
    """
    _same_shape(input, target, "huber_loss")
    if delta <= 0:
        raise _errors.loss_threshold("huber_loss", "delta", delta, True)
    return huber_loss_op(input, target, reduction, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-w [y log p + (1 - y) log(1 - p)], logs clamped at -100 as PyTorch.

    Raises:
        ValueError: when target and input sizes differ.
        RuntimeError: when input values are outside [0, 1].
    """
    reduction = _legacy(size_average, reduce, reduction)
    target = to_tensor(target)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            "Using a target size (%s) that is different to the input size (%s) is deprecated. "
            "Please ensure they have the same size." % (target.shape, input.shape))
    if target._data.dtype != input._data.dtype:     # PyTorch's kernel takes one dtype
        raise RuntimeError("Found dtype %s but expected %s: binary_cross_entropy takes a "
                           "target of the input's dtype. Fix: target.to(input.dtype)"
                           % (_tname(target._data.dtype), _tname(input._data.dtype)))
    p, y = input._data, target._data.astype(input._data.dtype, copy=False)
    # min / max: two reductions instead of five passes (a nan propagates: refused too)
    if y.size and not (_min_reduce(y, axis=None) >= 0 and _max_reduce(y, axis=None) <= 1):
        raise RuntimeError("all elements of target should be between 0 and 1: targets of "
                           "binary_cross_entropy are probabilities (0 or 1 for labels).")
    if p.size and not (_min_reduce(p, axis=None) >= 0 and _max_reduce(p, axis=None) <= 1):
        raise RuntimeError(
            "all elements of input should be between 0 and 1: binary_cross_entropy takes "
            "probabilities. Fix: apply torch.sigmoid to the logits first, or use "
            "binary_cross_entropy_with_logits (BCEWithLogitsLoss), which is also more stable.")
    with _quiet():
        loss = -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log1p(-p), -100))
    w = None
    if weight is not None:
        w = _not_differentiable(weight, "binary_cross_entropy", "weight")
        loss = loss * w._data
    if reduction == "mean":
        out = loss.sum() / loss.size if loss.size else np.float32("nan")
    elif reduction == "sum":
        out = loss.sum()
    elif reduction == "none":
        out = loss
    else:
        raise ValueError("%s is not a valid value for reduction" % reduction)
    return record(BinaryCrossEntropyBackward0, np.asarray(out, p.dtype), (input, target),
                  saved=(input, target, w),
                  args=(reduction, loss.size if reduction == "mean" else 1))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """BCE on logits, stable: (1 - y) x + (1 + (pw - 1) y) softplus(-x).

    Raises:
        ValueError: when target and input sizes differ.
    """
    reduction = _legacy(size_average, reduce, reduction)
    target = to_tensor(target)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Target size (%s) must be the same as input size (%s)"
                         % (target.shape, input.shape))
    if target._data.dtype.kind not in "fc":
        raise RuntimeError("result type Float can't be cast to the desired output type %s: "
                           "binary_cross_entropy_with_logits takes float targets. Fix: "
                           "target.float()" % _tname(target._data.dtype))
    # PyTorch's forward (Loss.cpp): (1 - y) x - log_sigmoid(x) (1 + (pw - 1) y), times w
    # the result has the target's dtype, computed in the two's promoted dtype (PyTorch's
    # (1 - target).mul_(input)...: a float64 target makes a float32 input's loss float64)
    x, y = input._data, target._data
    if x.dtype != y.dtype:
        wide = np.promote_types(x.dtype, y.dtype)
        x, y = x.astype(wide), y.astype(wide)
    w = None if weight is None else _not_differentiable(weight, _BCEL, "weight")
    pw = None if pos_weight is None else _not_differentiable(pos_weight, _BCEL, "pos_weight")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    try:
        with _quiet():
            ls = np_log_sigmoid(x)
            if pw is not None:
                ls = ls * ((pw._data - 1) * y + 1)
            loss = (1 - y) * x - ls
            if w is not None:
                loss = loss * w._data
    except ValueError:
        raise _errors.broadcast(tuple(input.shape), tuple((weight if pw is None else
                                                           pos_weight).shape)) from None
    rdt = target._data.dtype
    loss = loss.astype(x.dtype, copy=False)
    with _quiet():
        if reduction == "none":
            out = loss
        elif reduction == "sum":
            out = loss.sum()
        else:
            out = loss.sum() / loss.size if loss.size else np.asarray(np.nan, x.dtype)
    return record(BinaryCrossEntropyWithLogitsBackward0, np.asarray(out, rdt),
                  (input, target), saved=(input, target, w, pw),
                  args=loss.size if reduction == "mean" else 1)


_BCEL = "binary_cross_entropy_with_logits"


def _not_differentiable(t, fn, arg):
    t = to_tensor(t)
    if t.requires_grad and is_grad_enabled():
        raise _errors.not_differentiable(fn, arg)
    return t


def _div_scalar_backward(ctx, g):
    return (g / ctx.args,)


# a tensor divided by a number inside an op (PyTorch's C++ div(Scalar)): DivBackward1
DivBackward1 = node("DivBackward1", _div_scalar_backward, saves=False)


def _div_scalar(t, number):
    with _quiet():
        out = np.asarray(t._data / number, dtype=t._data.dtype)
    return record(DivBackward1, out, (t,), args=number)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices given log-probabilities.

    Shapes: input (N, C) or (N, C, d1, ...) or (C,); target (N,) / (N, d1, ...) / ().

    Raises:
        IndexError: a target out of range [0, C) (other than ignore_index).
        RuntimeError: shape mismatch between input and target.
    """
    reduction = _legacy(size_average, reduce, reduction)
    x = input
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    if t.dtype.kind not in "iu":
        raise RuntimeError("expected scalar type Long but found %s. Fix: class-index targets "
                           "must be int64 (target.long())." % _tname(t.dtype))
    if x.dim() == 1:
        x = x.unsqueeze(0)
        t = t.reshape(1)
        squeeze = True
    else:
        squeeze = False
    C = x.shape[1]
    if x.dim() > 2 and reduction in ("mean", "sum", "none"):
        return _nll_nd(x, t, weight, ignore_index, reduction)
    if x.dim() > 2:   # (N, C, d...) -> (N*d, C)
        perm = [0] + list(range(2, x.dim())) + [1]
        x = x.permute(*perm).reshape(-1, C)
        tflat = t.reshape(-1)
    else:
        tflat = t
    if tflat.shape[0] != x.shape[0]:
        raise ValueError("Expected input batch_size (%d) to match target batch_size (%d)."
                         % (x.shape[0], tflat.shape[0]))
    if x.dim() == 2 and reduction in ("mean", "sum", "none"):
        out = _nll_2d(x, tflat, weight, ignore_index, reduction)
        shape = () if squeeze else t.shape
        return out.reshape(shape) if reduction == "none" and out.shape != shape else out
    valid = tflat != ignore_index
    bad = valid & ((tflat < 0) | (tflat >= C))
    if bad.any():
        raise IndexError("Target %d is out of bounds." % int(tflat[bad][0]))
    safe = np.where(valid, tflat, 0)
    picked = x[Tensor._make_plain(np.arange(x.shape[0])), Tensor._make_plain(safe)]
    w = np.ones(C, x._data.dtype) if weight is None else weight._data
    wt = (w[safe] * valid).astype(x._data.dtype)
    loss = -picked * Tensor._make_plain(wt)
    if reduction == "none":
        out = loss.reshape(t.shape) if not squeeze else loss.reshape(())
        return out
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / float(wt.sum())
    raise ValueError("%s is not a valid value for reduction" % reduction)


class NllLossBackward0(Node):
    """nll_loss of (N, C) log-probabilities: out = -sum_i w_i x[i, t_i] / denom
    (reduction mean/sum) or -w_i x[i, t_i] per row (none). Linear in x, so the
    rule saves no tensor: d/dx[i, t_i] = -w_i g (/ denom), written only for the
    rows not ignored (the others stay 0.0, as PyTorch); args = (those rows, or
    None for all, their targets, their weights or None for all ones, denom or
    None for reduction 'none', x's shape)."""

    __slots__ = ()
    saves = False

    def _onehot(ctx, v, dtype):
        """zeros of x's shape with v (a number, or one per row) times the row
        weights at [row, target] of the rows not ignored"""
        rows, cols, wt, denom, shape = ctx.args[:5]
        out = np.zeros(shape, dtype)
        if rows is None:
            rows = np.arange(shape[0])
        elif v.ndim:
            v = v[rows]
        out[rows, cols] = v if wt is None else v * wt
        return out

    def backward(ctx, g):
        # linear in g: -(one-hot of the weights) times g
        denom = ctx.args[3]
        w = Tensor._make_plain(ctx._onehot(np.asarray(-1.0, g._data.dtype), g._data.dtype))
        return (w * (g.unsqueeze(1) if denom is None else g / denom),)

    def np_backward(ctx, g):
        denom = ctx.args[3]
        return (ctx._onehot(-g if denom is None else -(g / denom), g.dtype),)


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss of (N, C, H, W) log-probabilities (PyTorch's nll_loss2d): the (N*H*W, C)
    rule of NllLossBackward0 on the channels-last rows, its gradient moved back to
    (N, C, H, W); args[5] = the input's shape."""

    __slots__ = ()

    def backward(ctx, g):
        shape = ctx.args[5]
        if ctx.args[3] is None:         # reduction 'none': g is (N, H, W)
            g = g.reshape(-1)
        (gx,) = NllLossBackward0.backward(ctx, g)
        return (gx.reshape(shape[:1] + shape[2:] + shape[1:2]).permute(0, 3, 1, 2),)

    def np_backward(ctx, g):
        shape = ctx.args[5]
        (gx,) = NllLossBackward0.np_backward(ctx, g.reshape(-1) if ctx.args[3] is None else g)
        return (np.moveaxis(gx.reshape(shape[:1] + shape[2:] + shape[1:2]), 3, 1),)


def _nll_nd(x, t, weight, ignore_index, reduction):
    """nll_loss of (N, C, d1, ...) inputs as PyTorch's graph: one NllLoss2DBackward0 node
    over (N, C, H, W); other ranks are viewed as (N, C, 1, -1) first, and 'none' results
    viewed back to the target's shape."""
    N, C = x.shape[:2]
    if tuple(t.shape) != (N,) + tuple(x.shape[2:]):
        raise RuntimeError("size mismatch (got input: %s, target: %s)"
                           % (list(x.shape), list(t.shape)))
    if x.dim() == 4:
        x4, t4 = x, t
    else:
        x4 = x.contiguous().view(N, C, 1, -1)
        t4 = t.reshape(N, 1, -1)
    rows = np.moveaxis(x4._data, 1, -1).reshape(-1, C)
    out = _nll_2d(x4, t4.reshape(-1), weight, ignore_index, reduction, rows,
                  NllLoss2DBackward0, t4.shape)
    if reduction == "none" and x.dim() != 4:
        out = out.view(t.shape)
    return out


def _nll_2d(input, t, weight, ignore_index, reduction, x=None, cls=None, out_shape=None):
    """nll_loss for (N, C) log-probabilities and (N,) class indices in one node
    (``x``, ``cls``, ``out_shape``: the rows of a 4-D input, its node, its result's shape
    for 'none': _nll_nd)."""
    if x is None:
        x = input._data
    out, args = _nll_np(x, t, None if weight is None else weight._data, ignore_index, reduction)
    if cls is None:
        res = record(NllLossBackward0, out, (input,), args=args)
        if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
            _tape[0].op(_nll_np, (x, t, None if weight is None else weight._data, ignore_index,
                                  reduction), res, True)
        return res
    denom = args[3]
    if denom is None:
        out = out.reshape(out_shape)
    return record(cls, out, (input,), args=args + (input._data.shape,))


def _nll_np(x, t, w, ignore_index, reduction):
    """nll_loss's NumPy kernel for (N, C) log-probabilities ``x``, (N,) class indices
    ``t`` and class weights ``w`` (or None): (the loss, NllLossBackward0's args)."""
    N, C = x.shape
    if t.shape != (N,):
        raise ValueError("Expected input batch_size (%d) to match target batch_size (%d)."
                         % (N, t.shape[0] if t.ndim else 1))
    # common case first: every target a class index, no weights, nothing ignored
    lo, hi = (int(_min_reduce(t)), int(_max_reduce(t))) if N else (0, -1)
    rows = None
    if w is None and 0 <= lo and hi < C and not (lo <= ignore_index <= hi
                                                         and (t == ignore_index).any()):
        safe, wt = t, None
        denom = float(N)
    else:
        valid = t != ignore_index
        bad = valid & ((t < 0) | (t >= C))
        if bad.any():
            raise IndexError("Target %d is out of bounds." % int(t[bad][0]))
        safe = np.where(valid, t, 0)
        w = np.ones(C, x.dtype) if w is None else w.astype(x.dtype)
        wt = w[safe] * valid
        denom = float(wt.sum())
        if not valid.all():
            rows = np.flatnonzero(valid)
    picked = x[np.arange(N), safe]
    if rows is not None:     # ignored rows are skipped (PyTorch's kernel), not weighted 0:
        picked = np.where(valid, picked, 0)     # an inf there must not give nan
    with _quiet():
        if reduction == "none":
            out = -picked if wt is None else -(picked * wt)
            denom = None
        else:
            total = -(_add_reduce(picked) if wt is None else (picked * wt).sum())
            if reduction == "mean":
                total = total / denom
            else:
                denom = 1.0
            # + 0.0 turns -0.0 (a perfectly fitted batch) into 0.0, as PyTorch prints it
            out = np.asarray(total + 0.0, x.dtype)
    args = ((None, safe, wt, denom, x.shape) if rows is None else
            (rows, safe[rows], None if wt is None else wt[rows], denom, x.shape))
    return out, args


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross-entropy of logits (N, C) against class indices (N,) or probabilities (N, C).

    Equals nll_loss(log_softmax(input, 1), target); computed from
    log-softmax, so stable for large logits. ``label_smoothing`` as in
    Szegedy et al. (2016), https://arxiv.org/abs/1512.00567.

    Raises:
        IndexError: class index out of range.
        RuntimeError: float targets whose shape differs from the input's.
    """
    reduction = _legacy(size_average, reduce, reduction)
    target = to_tensor(target)
    t = target._data
    x = input._data
    if x.dtype.kind not in "fc":
        raise NotImplementedError("\"log_softmax_lastdim_kernel_impl\" not implemented for '%s': "
                                  "cross_entropy takes float logits. Fix: input.float()"
                                  % _tname(x.dtype))
    if t.dtype.kind in "iub" and t.dtype not in (np.int64, np.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got %s. Fix: "
                           "target.long()" % _tname(t.dtype))
    if t.dtype.kind != "f" and x.ndim >= 1 and t.ndim == x.ndim and x.ndim > 1 and \
            t.shape[-1:] == (1,) and x.shape[-1] != 1 and x.ndim == 2:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported: the "
                           "target has shape %s. Fix: class indices go in a 1-D tensor of shape "
                           "(N,), e.g. target.squeeze(1) or target.view(-1)."
                           % (tuple(t.shape),))
    if t.dtype.kind != "f" and t.shape == x.shape:
        # PyTorch reads a target of the input's shape as class probabilities
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got %s: a target "
            "of the input's shape %s holds class probabilities. Fix: class indices have no "
            "class dim (shape %s), or pass probabilities as floats (target.float())."
            % (_tname(t.dtype), tuple(x.shape), tuple(x.shape[:1] + x.shape[2:])))
    if t.dtype.kind == "f":
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got %s: float "
                "targets are class probabilities and must have the input's shape %s (got %s). "
                "Fix: for class indices pass an int64 tensor (target.long())."
                % (_tname(t.dtype), tuple(input.shape), tuple(target.shape)))
        lsm = log_softmax(input, 1 if input.dim() > 1 else 0)
        C = x.shape[1] if x.ndim > 1 else x.shape[0]
        tgt = target
        if label_smoothing:
            tgt = tgt * (1 - label_smoothing) + label_smoothing / C
        prod = lsm * tgt
        if weight is not None:
            shape = [1] * x.ndim
            shape[1 if x.ndim > 1 else 0] = C
            prod = prod * weight.reshape(shape)
        if reduction not in ("mean", "sum"):
            return _reduce(-prod.sum(1 if input.dim() > 1 else 0), reduction)
        # PyTorch's graph: -(sum of all), divided (mean) by the number of positions (N and
        # any extra dims, not only N): DivBackward1 -> NegBackward0 -> SumBackward0
        total = -prod.sum()
        return _div_scalar(total, x.size / C if C else 0.0) if reduction == "mean" else total
    lsm = log_softmax(input, 1 if input.dim() > 1 else 0)
    if not label_smoothing:
        # PyTorch's graph: NllLossBackward0 -> LogSoftmaxBackward0 -> input
        return nll_loss(lsm, target, weight, ignore_index=ignore_index, reduction=reduction)
    C = x.shape[1] if x.ndim > 1 else x.shape[0]
    nll = nll_loss(lsm, target, weight, ignore_index=ignore_index, reduction=reduction)
    valid = Tensor._make_plain((t != ignore_index).astype(x.dtype))
    cdim = 1 if x.ndim > 1 else 0
    if weight is not None:
        shape = [1] * x.ndim
        shape[cdim] = C
        smooth = -(lsm * weight.reshape(shape)).sum(cdim)
    else:
        smooth = -lsm.sum(cdim)
    # PyTorch: smooth_loss.masked_fill_(ignore_mask, 0) (an inf logit there gives 0, not nan)
    smooth = smooth.masked_fill(Tensor._make_plain(np.asarray(t == ignore_index)), 0.0)
    if reduction == "mean":
        if weight is not None:
            safe = np.where(t != ignore_index, t, 0)
            denom = float((weight._data[safe] * (t != ignore_index)).sum())
        else:
            denom = float(valid._data.sum())
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / C)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """PyTorch's composite (ATen Loss.cpp): exp(t) (t - x) for a log target, else
    xlogy(t, t) - t x (so a 0 target gives a nan target gradient and an inf target a nan
    loss, as there)."""
    from ..elementwise.special_binary import xlogy
    reduction = _legacy(size_average, reduce, reduction)
    if log_target:
        loss = E.exp(target) * (target - input)
    else:
        loss = xlogy(target, target) - target * input
    if reduction == "batchmean":     # a 0-d input is its own batch (PyTorch: sum)
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction)


functional_ops(globals(), ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                           "binary_cross_entropy", "binary_cross_entropy_with_logits",
                           "nll_loss", "cross_entropy", "kl_div"))


# ------------------------------------------------------------------ linear_cross_entropy
@defop("linear_cross_entropy", function=False, method=False, functional=True)
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)`` (PyTorch
    2.13's fused op: same value; PyTorch's ``options`` select a memory-saving chunked
    evaluation, which changes nothing here but the rounding, and are accepted).

    Shapes: input (N, in) or (in,); linear_weight (C, *out_features, in); linear_bias
    (C, *out_features); logits (N, C, *out_features); target as cross_entropy's.
    ``ignore_index=None``: -100.

    Raises:
        RuntimeError: input not 1-D/2-D, linear_weight under 2-D, in_features or bias
            shape that do not fit, out_features with unbatched input, ignore_index with
            probability targets (PyTorch's messages).
    """
    from ..linalg.products import linear
    from .loss import cross_entropy
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError("expected input with dimensionality 1 or 2, got %d" % input.dim())
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got %d"
                           % linear_weight.dim())
    batch = tuple(input.shape[:-1])
    n_in = input.shape[-1]
    if n_in != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           "(in_features), got %d and %d, respectively"
                           % (n_in, linear_weight.shape[-1]))
    n_cls = linear_weight.shape[0]
    out_f = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (n_cls,) + out_f:
        raise RuntimeError("expected linear_bias shape %s, got %s"
                           % ((n_cls,) + out_f, tuple(linear_bias.shape)))
    if out_f and not batch:
        raise RuntimeError("K-dimensional loss defined by linear_weight shape %s requires "
                           "batched input, (N, %d), got unbatched input with shape %s"
                           % (tuple(linear_weight.shape), n_in, tuple(input.shape)))
    logits_shape = batch + (n_cls,) + out_f
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    if options is not None and (out_f or reduction not in ("mean", "sum", "none")
                                or label_smoothing != 0.0
                                or target._data.dtype != np.int64):
        _errors.warn("linear_cross_entropy: ``options`` ignored; chunked path needs "
                     "reduction in {'mean','sum','none'}, label_smoothing == 0, "
                     "target.dtype == int64, out_features == (). Got reduction=%r, "
                     "label_smoothing=%s, target.dtype=%s, out_features=%s, tracing=False, "
                     "linear_bias.shape=%s." % (reduction, label_smoothing, target.dtype,
                                                 out_f, None if linear_bias is None
                                                 else tuple(linear_bias.shape)),
                     UserWarning)
    w, b = linear_weight, linear_bias
    if out_f:
        rows = int(np.prod((n_cls,) + out_f))
        w = w.reshape(rows, n_in)
        b = None if b is None else b.reshape(rows)
    logits = linear(input, w, b).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)




def _soft_margin_backward(ctx, g):
    x, y = ctx._checked_saved
    # PyTorch's soft_margin_loss_backward: -y z / (1 + z), z = exp(-y x) (nan once z
    # overflows, as there)
    z = (-y * x).exp()
    gi = -y * z / (1 + z) * g
    return (gi / x.numel() if ctx.args == "mean" else gi), None


SoftMarginLossBackward0 = node("SoftMarginLossBackward0", _soft_margin_backward, saves=True)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """mean/sum/none of log(1 + exp(-target * input)); one node, as PyTorch."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    # PyTorch: not differentiable in target; the result has the input's dtype
    target = _not_differentiable(target, "soft_margin_loss", "target")
    if input.dtype != target.dtype:
        target = target.to(input.dtype)
    if input.shape != target.shape:
        return _reduce(E.log1p(E.exp(-(input * target))), reduction)
    z = input._data * target._data
    with _quiet():
        loss = np.log1p(np.exp(-z))     # PyTorch's formula: inf once exp overflows
    if reduction != "none":
        loss = np.asarray(loss.mean() if reduction == "mean" else loss.sum(), dtype=z.dtype)
    return record(SoftMarginLossBackward0, loss, (input, target), saved=(input, target),
                  args=reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean", **kw):
    """mean/sum/none of max(0, -target * (input1 - input2) + margin).

    Raises:
        RuntimeError: the three tensors differ in dimension (a 0-d and a (1,) input), as
        PyTorch's functional checks before broadcasting."""
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            "input1: %s, input2: %s, target: %s . Fix: reshape them to one number of "
            "dimensions (e.g. x.reshape(-1))" % (input1.size(), input2.size(), target.size()))
    return _reduce(clamp(-target * (input1 - input2) + margin, min=0.0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean", **kw):
    """PyTorch's composite (ATen Loss.cpp): where(t != 1, max(margin - x, 0), 0) +
    where(t != -1, x, 0), so a target other than +-1 takes both terms, as there."""
    zeros = Tensor._make_plain(np.zeros(input._data.shape, input._data.dtype))
    margin_clamp = clamp(margin - input, min=0.0)
    output_margin = E.where(target != 1, margin_clamp, zeros)
    output_self = E.where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean", **kw):
    """1 - cos where target is 1, max(0, cos - margin) where it is -1 (0 elsewhere).

    PyTorch's composite op for op (ATen Loss.cpp): cos = sum(x1 x2) / sqrt((|x1|^2 +
    1e-12)(|x2|^2 + 1e-12)), so the gradients at inf / 1e30 inputs are PyTorch's."""
    input2 = to_tensor(input2)
    d = input1.dim() - 1
    prod_sum = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + 1e-12
    mag2 = (input2 * input2).sum(d) + 1e-12
    cos = prod_sum / (mag1 * mag2).sqrt()
    pos = E.where(target == 1, 1 - cos, 0.0)
    neg = E.where(target == -1, clamp(cos - margin, min=0.0), 0.0)
    return _reduce(pos + neg, reduction)
functional_ops(globals(), ("soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss"))


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
