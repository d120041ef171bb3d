"""Gradient clipping, as ``torch.nn.utils.clip_grad_norm_`` / ``clip_grad_value_``.

Formula (PyTorch): total = ||(||g_1||_p, ..., ||g_n||_p)||_p over the gradients that
exist; clip_coef = max_norm / (total + 1e-6), clamped to at most 1.0, multiplies every
gradient in place. Parameters whose ``.grad`` is None are skipped.
"""
import math

import numpy as np

from ..._tensor.tensor import Tensor
from ..._core import errors as _errors

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _as_list(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _vector_norm(arr, p):
    a = np.abs(arr.astype(np.float64, copy=False).ravel())
    if p == math.inf:
        return float(a.max()) if a.size else 0.0
    if p == -math.inf:
        return float(a.min()) if a.size else math.inf
    if p == 0:
        return float(np.count_nonzero(a))
    if p == 1:
        return float(a.sum())
    if p == 2:
        return float(np.sqrt(np.dot(a, a)))
    return float(np.sum(a ** p) ** (1.0 / p))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of the norms of ``tensors`` (a tensor or an iterable), as a
    0-dim tensor of their dtype (``tensor(0.)`` when there are none).

    Raises:
        RuntimeError: with ``error_if_nonfinite=True`` when the norm is nan or inf.
    """
    tensors = [t for t in _as_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._make_plain(np.asarray(0.0, dtype=np.float32))
    dtype = np.result_type(*[t._data.dtype for t in tensors])
    with np.errstate(all="ignore"):
        norms = np.array([_vector_norm(t._data, norm_type) for t in tensors])
        total = _vector_norm(norms, norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            "The total norm of order %s for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite "
            "norm anyway, set `error_if_nonfinite=False`" % norm_type)
    return Tensor._make_plain(np.asarray(total, dtype=dtype))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Multiply each existing gradient in place by min(1, max_norm / (total_norm + 1e-6))."""
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    if not grads:
        return
    tn = total_norm._data if isinstance(total_norm, Tensor) else np.asarray(total_norm)
    with np.errstate(all="ignore"):
        coef = np.minimum(np.asarray(float(max_norm), tn.dtype) / (tn + np.asarray(1e-6, tn.dtype)),
                          np.asarray(1.0, tn.dtype))
    if coef == 1.0:
        return
    with np.errstate(all="ignore"):      # a nan/inf norm spreads nan, as in PyTorch
        for g in grads:
            g._data *= coef.astype(g._data.dtype)
            g._bump_version()


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients of ``parameters`` in place so that their total norm is at most
    ``max_norm``.

    Args:
        parameters: a tensor or an iterable (a generator is fine) of tensors.
        max_norm: the largest total norm allowed.
        norm_type: p of the p-norm (``float('inf')`` for the max norm).
        error_if_nonfinite: raise instead of scaling by a nan/inf norm.

    Returns:
        The total norm of the gradients before clipping (a 0-dim tensor).

    Raises:
        RuntimeError: with ``error_if_nonfinite=True`` when the norm is nan or inf;
            no gradient is changed then.
    """
    parameters = _as_list(parameters)
    grads = [p._grad for p in parameters if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_`."""
    _errors.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                 "`torch.nn.utils.clip_grad_norm_`.", FutureWarning)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every existing gradient in place to [-clip_value, clip_value]; returns None."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        g = p._grad
        if g is not None:
            np.clip(g._data, -clip_value, clip_value, out=g._data)
            g._bump_version()
