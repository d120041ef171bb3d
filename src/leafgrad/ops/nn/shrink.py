"""Activations built from differentiable ops: ``softshrink``, ``hardshrink``, ``rrelu``,
``prelu`` (no rule of their own: the recorded ops differentiate them; ``_named`` gives
the result PyTorch's grad_fn name). Formulas from PyTorch's docs of ``torch.nn.Softshrink``,
``Hardshrink``, ``RReLU``, ``PReLU``.
"""
import numpy as np

from ..._tensor.tensor import Tensor
from .. import elementwise as E
from .._named import _named
from .._registry import functional_ops


def _lambd(lambd, name):
    if lambd < 0:
        raise RuntimeError("lambda must be greater or equal to 0, but found to be %s. Fix: use "
                           "%s(lambd >= 0)." % (lambd, name))


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0. Raises RuntimeError
    for lambd < 0."""
    _lambd(lambd, "softshrink")
    # nan is outside [-lambd, lambd] in PyTorch's rule: it stays nan, with gradient 1
    inside = (input >= -lambd)._data & (input <= lambd)._data
    out = E.where((input > lambd)._data, input - lambd,
                  E.where((input < -lambd)._data, input + lambd, E.where(inside, 0.0, input)))
    return _named(out, "SoftshrinkBackward0")


def hardshrink(input, lambd=0.5):
    """x where it is outside [-lambd, lambd] (nan included, as PyTorch), else 0."""
    keep = ~((input >= -lambd)._data & (input <= lambd)._data)
    return _named(E.where(keep, input, 0.0), "HardshrinkBackward0")


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: x where x >= 0, else a x with a ~ U(lower, upper) per element
    in training and a = (lower + upper) / 2 in eval (Xu et al. 2015, PyTorch's RReLU)."""
    if training:
        # PyTorch's _rrelu_with_noise_train: one uniform_real_distribution<double> draw
        # per element <= 0, in order, u * (upper - lower) + lower in double (not fused
        # there) with the bounds first rounded to the op's math type, then cast
        from ..._random import generator as _random
        x = input._data
        neg = x <= 0
        u = _random.uniform01(_random.default_generator, int(neg.sum()), np.float64)
        math_t = np.float64 if x.dtype == np.float64 else np.float32
        lo, hi = float(math_t(lower)), float(math_t(upper))
        a = np.ones(x.shape, x.dtype)
        a[neg] = (u * (hi - lo) + lo).astype(x.dtype)
        slope = Tensor._make_plain(a)
    else:
        # eval: leaky_relu's rule, slope where x <= 0 (x = 0 included: its gradient there)
        slope = (lower + upper) / 2
        slope = Tensor._make_plain(np.where(input._data > 0, 1, slope).astype(
            input._data.dtype))
    if inplace:
        from ..inplace import arithmetic as _ip
        return _ip.apply(input, "rrelu_", lambda t: t * slope)
    return _named(input * slope, "RreluWithNoiseBackward0")


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight (1,) or (C,) broadcast over dim 1.

    Raises:
        RuntimeError: a weight with more than one element that is not the channel count.
    """
    w = weight
    if weight.numel() > 1:
        c = input.shape[1] if input.dim() >= 2 else input.shape[0] if input.dim() else 1
        if weight.numel() != c:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                "%d and channel size = %d. Fix: PReLU(num_parameters) must be 1 or the input's "
                "dim 1." % (weight.numel(), c))
        if input.dim() >= 2:
            w = weight.reshape((-1,) + (1,) * (input.dim() - 2))
    return _named(input.clamp_min(0.0) + w * input.clamp_max(0.0), "PreluKernelBackward0")


# torch.rrelu is ATen's form: its fifth argument is generator=, F.rrelu's is inplace=
functional_ops(globals(), ("softshrink", "rrelu"))
functional_ops(globals(), ("hardshrink",), function=True, method=True, out=True)
functional_ops(globals(), ("prelu",), function=True, method=True)
