"""Quantiles and second moments: quantile, nanquantile, cov, corrcoef.

All are compositions of recorded ops, following PyTorch's own definitions
(aten/src/ATen/native/Sorting.cpp ``quantile_compute``, Correlation.cpp), so values,
gradients and second order are PyTorch's: ``quantile`` sorts along the dim, gathers the
values at the ranks below and above ``q * (n - 1)`` and interpolates between them
(the gradient goes to those sorted positions; among equal values the receiving
position is not specified); ``cov`` centres by the (weighted) mean and divides
``X W X^T`` by the degrees of freedom; ``corrcoef`` scales ``cov`` by the standard
deviations and clamps to [-1, 1].
"""
import warnings

import numpy as np

from ..._core import dtype as _dtype, errors as _errors
from ..._tensor.tensor import Tensor, _wrap_dim
from ...autograd.grad_mode import mode as _grad_mode
from .._dispatch import to_tensor
from ..elementwise.special_binary import lerp
from .._out import write
from .._registry import defop
from .._named import grad_fn_named

def _recorded_out(name, fn, args, kwargs, out):
    """``out=`` of a composite op, as PyTorch's: with an input that requires grad the
    result is copied into ``out`` by a recorded ``copy_`` (CopyBackwards), not refused."""
    res = fn(*args, **kwargs)
    if not res.requires_grad:
        return write(out, res, name)
    if tuple(out.shape) != tuple(res.shape):
        write(out, res.detach(), name)      # resized as PyTorch (warns when not empty)
    return out.copy_(res)


_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    x = input._data
    if x.dtype.kind != "f":
        raise RuntimeError("%s() input tensor must be either float or double dtype. Fix: "
                           "x.float()" % name)
    if interpolation not in _MODES:
        raise RuntimeError("%s() interpolation must be one of linear, lower, higher, midpoint "
                           "or nearest. Got %s. Fix: one of those" % (name, interpolation))
    if x.size == 0:
        raise RuntimeError("%s() input tensor must be non-empty. Fix: check the input"
                           % name)
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError("%s() q must be a scalar or 1D tensor. Fix: q.flatten()" % name)
        if q._data.dtype != x.dtype:
            raise RuntimeError("%s() q tensor must be same dtype as the input tensor. Fix: "
                               "q.to(x.dtype)" % name)
        qa, q0 = q._data.astype(x.dtype), q.dim() == 0
    else:
        qa, q0 = np.asarray(q, x.dtype), True
    if qa.size and (qa.min() < 0 or qa.max() > 1):
        raise RuntimeError("%s() q values must be in the range [0, 1]. Fix: q in [0, 1] "
                           "(a percentile p is p / 100)" % name)
    qa = qa.reshape(-1)
    # the values as rows along the last dim, sorted (NaN last)
    if dim is None:
        rows = input.reshape(-1)
        kshape = (1,) * x.ndim if keepdim else ()
    else:
        d = _wrap_dim(dim, max(x.ndim, 1))
        rows = input.movedim(d, -1) if x.ndim else input.reshape(1)
        kshape = tuple(1 if i == d else s for i, s in enumerate(x.shape)) if keepdim else \
            tuple(s for i, s in enumerate(x.shape) if i != d)
    srt = rows.sort(-1)[0]
    sd = srt._data
    n = sd.shape[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nan = np.isnan(sd)
        if ignore_nan:
            ranks = qa * (np.sum(~nan, -1, keepdims=True) - 1).astype(x.dtype)
            ranks = np.where(ranks < 0, 0, ranks)
        else:
            ranks = np.where(nan.any(-1, keepdims=True), n - 1, qa * (n - 1)).astype(x.dtype)
        ranks = np.broadcast_to(ranks, sd.shape[:-1] + (qa.size,))
        if interpolation == "lower":
            ranks = np.floor(ranks)
        elif interpolation == "higher":
            ranks = np.ceil(ranks)
        elif interpolation == "nearest":
            ranks = np.round(ranks)      # half to even, as PyTorch's round
    below = np.floor(ranks).astype(np.int64)
    out = srt.gather(-1, Tensor._make_plain(np.ascontiguousarray(below)))
    if interpolation in ("linear", "midpoint"):
        w = np.full(ranks.shape, 0.5, x.dtype) if interpolation == "midpoint" else \
            (ranks - below).astype(x.dtype)
        above = srt.gather(-1, Tensor._make_plain(np.ceil(ranks).astype(np.int64)))
        # PyTorch's values_below.lerp_(values_above, weights): lerp's two-sided formula,
        # so an infinite end point gives +-inf where below + w * (above - below) is nan
        out = lerp(out, above, Tensor._make_plain(w))
    out = out.movedim(-1, 0).reshape((qa.size,) + kshape)
    return out.reshape(kshape) if q0 else out


@defop("quantile", out=True)
@grad_fn_named("SqueezeBackward4")   # PyTorch's (its last step)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-quantiles (a number or 1-D tensor in [0, 1]) of ``input`` over ``dim``
    (all elements when None). A tensor ``q`` puts its dim first in the result. NaN in a
    slice gives NaN. ``interpolation``: linear, lower, higher, midpoint or nearest
    (PyTorch's Sorting.cpp).

    Raises:
        RuntimeError: a non-float or empty input, q outside [0, 1] or of another dtype,
        an unknown interpolation.
    """
    if out is not None:
        return _recorded_out("quantile", quantile, (input, q, dim, keepdim),
                             {"interpolation": interpolation}, out)
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@defop("nanquantile", out=True)
@grad_fn_named("SqueezeBackward4")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaN (NaN only where a slice is all NaN)."""
    if out is not None:
        return _recorded_out("nanquantile", nanquantile, (input, q, dim, keepdim),
                             {"interpolation": interpolation}, out)
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


@defop("cov")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of ``input`` (observations in the
    columns; a 1-D input is one variable): (V, V), or 0-d for one variable. ``fweights``
    (integer frequencies) and ``aweights`` (observation weights) as NumPy's ``cov``.
    Formula (PyTorch's Correlation.cpp): ``(X - avg) W (X - avg)^T / (sum(w) -
    correction * sum(w * aweights) / sum(w))``; with no degrees of freedom left the
    divisor is 0 (a warning, inf/NaN entries), as PyTorch.

    Raises:
        RuntimeError: an input of more than 2 dims, weights of the wrong shape or kind,
        negative weights, or weights that sum to zero.
    """
    from ..linalg.products import mm
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           "input with %d dimensions. Fix: reshape to (variables, "
                           "observations)" % input.dim())
    x = input.reshape(1, -1) if input.dim() < 2 else input
    nobs = x.shape[1]
    w = None
    for wname, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        wt = to_tensor(wt)
        if wt.dim() > 1:
            raise RuntimeError("cov(): expected %s to have one or fewer dimensions but got %s "
                               "with %d dimensions. Fix: a vector of weights" % (
                                   wname, wname, wt.dim()))
        if wt.numel() != nobs:
            raise RuntimeError("cov(): expected %s to have the same numel as there are "
                               "observations in the input but got %d != %d. Fix: one weight "
                               "per observation (column)" % (wname, wt.numel(), nobs))
        if wname == "fweights" and wt._data.dtype.kind not in "iu":
            raise RuntimeError("cov(): expected fweights to have integral dtype but got "
                               "fweights with %s dtype. Fix: fweights.long()"
                               % _errors.type_name(wt._data.dtype))
        if wname == "aweights" and wt._data.dtype.kind != "f":
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               "aweights with %s dtype. Fix: aweights.float()"
                               % _errors.type_name(wt._data.dtype))
        if (wt._data < 0).any():
            raise RuntimeError("cov(): %s cannot be negative. Fix: non-negative weights"
                               % wname)
        w = wt if w is None else w * wt
    if (fweights is None) != (aweights is None) and nobs == 1 and input._requires_grad \
            and input._grad_fn is None and _grad_mode.enabled:
        # one kind of weights and one observation: PyTorch's kernel then changes its input
        # in place (Correlation.cpp), refused there (with both kinds it does not)
        raise RuntimeError("a %sleaf Variable that requires grad is being used in an in-place "
                           "operation. Fix (as in PyTorch): torch.cov with weights and one "
                           "observation needs an input that is not a leaf requiring grad "
                           "(x.clone())" % ("view of a " if input.dim() < 2 else ""))
    if w is None:
        w_sum = Tensor._make_plain(np.asarray(nobs, np.int64))
        avg = x.sum(1) / w_sum
    else:
        w_sum = w.sum()
        if not w_sum._data.any():
            raise RuntimeError("cov(): weights sum to zero, can't be normalized. Fix: give at "
                               "least one observation a non-zero weight")
        avg = (x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * to_tensor(aweights)).sum() / w_sum
    else:
        norm = w_sum - correction
    if float(norm._data) <= 0:
        _errors.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                     "than the number of observations.", UserWarning)
        # PyTorch zeroes it in place (norm_factor.zero_()): +0, so c / 0 keeps c's sign,
        # and its gradient is 0 (norm * 0 would be -0 for a negative norm)
        from .._select import select
        norm = select(False, norm)
    xc = x - avg.unsqueeze(1)
    c = mm(xc, (xc * w if w is not None else xc).t())
    if c._data.dtype.kind != "f":
        c = c.to(_dtype.get_default_dtype())
    return (c / norm).squeeze()


@defop("corrcoef")
def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input`` (as ``cov``): (V, V)
    clamped to [-1, 1], or ``c / c`` for one variable (1, or NaN for a constant one)."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    sd = c.diagonal().sqrt()
    c = c / sd.reshape(-1, 1)
    c = c / sd.reshape(1, -1)
    return c.clamp(-1, 1)
