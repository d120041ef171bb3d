"""Helpers of torch.distributions.utils: broadcasting parameters, probs <-> logits, lazy_property.

Formulas as torch/distributions/utils.py (PyTorch 2.13).
"""
from numbers import Number

import numpy as np

import leafgrad as _t

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060


def finfo(dtype):
    """NumPy's finfo of a leafgrad floating dtype (eps, tiny, min, max as PyTorch's finfo)."""
    return np.finfo(dtype.np)


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape (numbers take the first tensor's dtype,
    else the default dtype).

    Raises:
        ValueError: an argument that is neither a number nor a tensor.
    """
    from ._messages import BROADCAST_TYPES
    if not all(isinstance(v, (_t.Tensor, Number)) for v in values):
        raise ValueError(BROADCAST_TYPES)
    if not all(isinstance(v, _t.Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, _t.Tensor)), _t.get_default_dtype())
        values = [v if isinstance(v, _t.Tensor) else _t.tensor(v, dtype=dtype) for v in values]
    return _t.broadcast_tensors(*values)


def _set_params(dist, **params):
    """Broadcast the parameters (numbers or tensors) onto ``dist``'s attributes; return the
    batch shape: () when all were numbers, else their broadcast shape (PyTorch's rule)."""
    tensors = broadcast_all(*params.values())
    for name, value in zip(params, tensors):
        setattr(dist, name, value)
    if all(isinstance(v, Number) for v in params.values()):
        return _t.Size()
    return tensors[0].size()


def _standard_normal(shape, dtype, device=None):
    return _t.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dims of ``value`` (nothing for dim 0)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """sigmoid(logits) for binary, softmax over the last dim otherwise."""
    if is_binary:
        return _t.sigmoid(logits)
    return _t.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Probabilities clamped to [eps, 1 - eps] of their dtype (finite logits)."""
    eps = float(finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """log(p) - log1p(-p) for binary, log(p) otherwise (p clamped first)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return _t.log(ps_clamped) - _t.log1p(-ps_clamped)
    return _t.log(ps_clamped)


class lazy_property:
    """A property computed on first access (with grad enabled) and cached in the instance's
    ``__dict__`` (so it shows in the distribution's repr from then on, as in PyTorch)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _LazyPropertyAndProperty(self.wrapped)
        with _t.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _LazyPropertyAndProperty(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)
        lazy_property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (from diagonal ``diag``) of the last two dims, row by row."""
    n = mat.shape[-1]
    rows, cols = np.tril_indices(n, k=diag)
    return mat[..., _t.tensor(rows), _t.tensor(cols)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of :func:`tril_matrix_to_vec` (zeros above diagonal ``diag``)."""
    n = int((-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    rows, cols = np.tril_indices(n, k=diag)
    mat[..., _t.tensor(rows), _t.tensor(cols)] = vec
    return mat
