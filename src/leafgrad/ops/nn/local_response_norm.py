"""``nn.functional.local_response_norm`` (built from differentiable ops) and the
computation of ``nn.CrossMapLRN2d`` (Lua Torch's SpatialCrossMapLRN, as PyTorch's
``nn/modules/_functions.py`` CrossMapLRN2d keeps it), not a public op.

Forward: ``y = x * scale ** -beta`` with ``scale = k + alpha / size * S``, S a running
sum of squares over the channels built the way PyTorch's Function builds it (the first
``(size - 1) // 2 + 1`` channels, then adding the next channel and removing the one
``pre_pad`` back, which keeps channel 0 in every later sum: PyTorch's quirk, kept so the
numbers are PyTorch's). Backward: PyTorch's own formula (``scale ** -beta * g`` minus
``2 alpha beta / size * x`` times a window sum of ``g y / scale``), which is not the
exact derivative of that forward; it is computed on arrays (no second order, as PyTorch's
Function, whose backward is not differentiable).
"""

import numpy as np

from ..._tensor.tensor import Tensor
from .._dispatch import record
from .._registry import functional_ops, node


def _scale(x, size, alpha, k):
    sq = x * x
    c = x.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    s = np.zeros_like(x)
    for ch in range(min(pre_pad, c)):
        s[:, 0] += sq[:, ch]
    for ch in range(1, c):
        s[:, ch] = s[:, ch - 1]
        if ch < c - pre_pad + 1:
            s[:, ch] += sq[:, ch + pre_pad - 1]
        if ch > pre_pad:
            s[:, ch] -= sq[:, ch - pre_pad]
    t = x.dtype.type
    return s * t(alpha / size) + t(k)


def _grad(x, y, scale, g, size, alpha, beta):
    t = x.dtype.type
    n, c = x.shape[:2]
    gi = scale ** t(-beta) * g
    pad = np.zeros((n, c + size - 1) + x.shape[2:], x.dtype)
    pre = int(size - (size - 1) / 2)
    pad[:, pre:pre + c] = g * y / scale
    acc = pad[:, :size - 1].sum(1)
    ratio = t(2 * alpha * beta / size)
    for ch in range(c):
        acc = acc + pad[:, ch + size - 1]
        gi[:, ch] -= ratio * x[:, ch] * acc
        acc = acc - pad[:, ch]
    return gi


def _backward(ctx, g):
    x, y, scale, size, alpha, beta = ctx.args
    return (Tensor._make_plain(_grad(x, y, scale, np.asarray(g._data), size, alpha, beta)),)


def _np_backward(ctx, g):
    x, y, scale, size, alpha, beta = ctx.args
    return (_grad(x, y, scale, np.asarray(g), size, alpha, beta),)


CrossMapLRN2dBackward = node("CrossMapLRN2dBackward", _backward, saves=False,
                             np_backward=_np_backward)


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    """``nn.CrossMapLRN2d``'s forward on (N, C, H, W), dtype kept.

    Raises:
        ValueError: input not 4-D (PyTorch's message).
    """
    if input.dim() != 4:
        raise ValueError("CrossMapLRN2d: Expected input to be 4D, got %dD instead. Fix: "
                         "(N, C, H, W)" % input.dim())
    x = np.asarray(input._data)
    scale = _scale(x, size, alpha, k)
    y = scale ** x.dtype.type(-beta) * x
    return record(CrossMapLRN2dBackward, y, (input,), args=(x, y, scale, size, alpha, beta))


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha / size * sum of x^2 over ``size`` neighbouring channels)^beta
    (Krizhevsky et al. 2012; PyTorch's formula: the channel window is zero-padded,
    size // 2 before and (size - 1) // 2 after).

    Raises:
        ValueError: an input under 3-D.
    """
    from .pooling import avg_pool2d
    from .padding import pad
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality input (got %d dimensions). Fix: "
                         "give (N, C, *spatial)." % dim)
    if input.numel() == 0:
        return input
    sizes = tuple(input.shape)
    div = (input * input).reshape(sizes[0], 1, sizes[1], -1)      # (N, 1, C, rest)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).squeeze(1).reshape(*sizes)
    return input / (div * alpha + k) ** beta
functional_ops(globals(), ("local_response_norm",))
