"""The gradients of ``prod`` and ``cumprod`` as PyTorch computes them (FunctionsManual.cpp
prod_backward, prod_safe_zeros_backward, cumprod_backward), including which formula
runs when: PyTorch picks by the zeros of the input and by whether the backward pass is
itself recorded (``create_graph=True``), and the formulas differ at inf / nan inputs:

- no zero in the input: ``g * result / x`` (prod), ``reversed_cumsum(result * g) / x``
  (cumprod);
- zeros, first order only (not recorded): prod over all elements with two or more zeros
  gives exact zeros; cumprod takes its O(n) masked formula;
- otherwise (one zero, a prod over a dim, or create_graph): products of the other
  elements (prod_safe_zeros_backward: exclusive cumprods from both ends) / cumprod's O(n^2)
  loop of omitted products, written with ops so it is differentiable again.

Every rule takes tensors (``g``, ``x``, ``result``) and returns a tensor.
"""
import numpy as np

from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import mode

__all__ = ["prod_backward", "cumprod_backward"]


def _plain(a):
    return Tensor._make_plain(a)


def _prod_safe_zeros(g, x, d):
    # g * (exclusive cumprod from the front * exclusive cumprod from the back)
    from ..shape.joins import cat
    n = x.shape[d]
    if x.numel() == 0:
        return g.expand(tuple(x.shape))
    ones_shape = list(x.shape)
    ones_shape[d] = 1
    ones = _plain(np.ones(ones_shape, x._data.dtype))
    front = cat([ones, x.narrow(d, 0, n - 1)], d).cumprod(d)
    back = cat([ones, x.narrow(d, 1, n - 1).flip(d)], d).cumprod(d).flip(d)
    return g * (front * back)


def prod_backward(g, x, result, dim, keepdim):
    """The gradient of ``prod(x)`` (``dim`` None) or ``prod(x, dim, keepdim)``."""
    if x._data.ndim == 0:
        return g
    zeros = int(np.count_nonzero(x._data == 0))
    if dim is None:
        if zeros == 0:
            return g * (result / x)
        if not mode.enabled and zeros > 1:
            return _plain(np.zeros(x._data.shape, g._data.dtype))
        return _prod_safe_zeros(g, x.reshape(-1), 0).reshape(tuple(x.shape))
    if not keepdim:
        g, result = g.unsqueeze(dim), result.unsqueeze(dim)
    if zeros == 0:
        return g * (result / x)
    return _prod_safe_zeros(g, x, dim)


def _reversed_cumsum(w, d):
    return w.flip(d).cumsum(d).flip(d)


def cumprod_backward(g, x, out, d):
    """The gradient of ``cumprod(x, d)`` (``out`` its result)."""
    xd = x._data
    if xd.size <= 1 or xd.shape[d] == 1:
        return g
    w = out * g
    is_zero = xd == 0
    if not is_zero.any():
        return _reversed_cumsum(w, d) / x
    if not mode.enabled:
        return _plain(_cumprod_backward_zeros_np(g._data, xd, w._data, is_zero, d))
    return _cumprod_backward_loop(g, x, d)


def _cumprod_backward_zeros_np(g, x, w, is_zero, d):
    # the O(n) rule (not differentiable): before the first zero z1 the no-zero formula;
    # at z1 sum_{z1 <= j < z2} g_j prod_{i <= j, i != z1} x_i (z2 the second zero); 0 after
    cs = np.cumsum(is_zero, axis=d)
    before = cs == 0
    with np.errstate(all="ignore"):
        out = np.zeros(x.shape, np.result_type(g, x))
        rc = np.flip(np.cumsum(np.flip(np.where(before, w, 0), d), d), d)
        out = np.where(before, rc / np.where(before, x, 1), out)
        upto = cs == 1
        first = upto & (np.cumsum(upto, axis=d) == 1)
        between = upto & ~first
        # prod_{i < z1} x_i: the product of the elements before the first zero
        lead = np.prod(np.where(before, x, 1), axis=d, keepdims=True)
        tail = np.cumprod(np.where(between, x, 1), axis=d)
        at_first = lead * np.sum(np.where(upto, g, 0) * tail, axis=d, keepdims=True)
        out = np.where(first, at_first, out)
    return out.astype(np.result_type(g, x), copy=False)


def _cumprod_backward_loop(g, x, d):
    # create_graph: for each k, sum_j>=k g_j * prod_{i <= j, i != k} x_i, from prods and
    # cumprods of slices (differentiable: PyTorch's O(n^2) loop)
    from ..shape.joins import cat
    n = x.shape[d]
    ones_shape = list(x.shape)
    ones_shape[d] = 1
    ones = _plain(np.ones(ones_shape, x._data.dtype))
    parts = []
    for k in range(n):
        if k == 0:
            omitted = cat([ones, x.narrow(d, 1, n - 1).cumprod(d)], d)
        elif k == n - 1:
            omitted = x.narrow(d, 0, k).prod(d, keepdim=True)
        else:
            until = x.narrow(d, 0, k).prod(d, keepdim=True)
            after = x.narrow(d, k + 1, n - k - 1).cumprod(d)
            omitted = cat([until, until.expand(tuple(after.shape)) * after], d)
        parts.append((g.narrow(d, k, n - k) * omitted).sum(d, keepdim=True))
    return cat(parts, d)
