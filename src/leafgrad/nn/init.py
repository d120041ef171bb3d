"""``nn.init``: fill tensors in place with initial values, as ``torch.nn.init``.

Formulas from https://pytorch.org/docs/stable/nn.init.html (Glorot & Bengio 2010,
He et al. 2015, Saxe et al. 2013). Every function works under ``no_grad``, writes
into the tensor's memory (keeping its dtype), bumps its version and returns it.
Random numbers are drawn as PyTorch 2.13 draws them (same kernels, same order of
draws on the same generator), so a seeded script gets PyTorch's initial values:
exactly for the uniform-based functions, to float32 rounding where a float
transform (erfinv, QR) sits between the draws and the result.
"""
import math

import numpy as np

from .._random import sampling as _R
from ..autograd.grad_mode import no_grad
from .._core import errors as _errors

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_"]


def _fill(tensor, values):
    arr = tensor._data
    np.copyto(arr, values, casting="unsafe")
    tensor._bump_version()
    return tensor


def calculate_gain(nonlinearity, param=None):
    """Recommended gain for a non-linearity: 1 (linear, conv, sigmoid), 5/3 (tanh),
    sqrt(2) (relu), sqrt(2 / (1 + slope^2)) (leaky_relu, slope default 0.01), 3/4 (selu).

    Raises:
        ValueError: for an unknown nonlinearity or a non-number slope.
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError("negative_slope %s not a valid number" % (param,))
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError("Unsupported nonlinearity %s" % (nonlinearity,))


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b) (``Tensor.uniform_``: PyTorch's stream)."""
    with no_grad():
        return _R.uniform_(tensor, a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2) (``Tensor.normal_``: PyTorch's stream)."""
    with no_grad():
        return _R.normal_(tensor, mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) truncated to [a, b], as PyTorch 2.13: when more than 30%
    of the mass lies inside, normal draws redrawn (whole tensor) where outside; else
    uniform proposals on [a, b] accepted by log(u) <= log pdf - log peak."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        _errors.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                     "The distribution of values may be incorrect.")

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    arr = tensor._data
    dt = arr.dtype.type
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = dt(a), dt(b)
            _R.normal_(tensor, mean, std, generator=generator)
            result = arr.copy()
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                fresh = np.empty_like(result)
                _R.normal_(_plain(fresh), mean, std, generator=generator)
                result = np.where(mask, fresh, result)
            return _fill(tensor, result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_pdf(c):
            c = (c - dt(mean)) / dt(std)
            return (c * c) * dt(-0.5) - dt(log_peak)

        def accept(cand):
            u = _R.uniform_(_plain(np.empty_like(arr)), generator=generator)._data
            with np.errstate(divide="ignore"):
                return np.log(u) > log_pdf(cand)

        _R.uniform_(tensor, a, b, generator=generator)
        result = arr.copy()
        pending = accept(result)
        while pending.any():
            cand = _R.uniform_(_plain(np.empty_like(arr)), a, b, generator=generator)._data
            result = np.where(pending, cand, result)
            pending = np.where(pending, accept(cand), pending)
        return _fill(tensor, result)


def _plain(arr):
    from .._tensor.tensor import Tensor
    return Tensor._make_plain(arr)


def constant_(tensor, val):
    """Fill with ``val``."""
    return _fill(tensor, val)


def ones_(tensor):
    return _fill(tensor, 1)


def zeros_(tensor):
    return _fill(tensor, 0)


def eye_(tensor):
    """Fill a 2-D tensor with the identity.

    Raises:
        ValueError: unless the tensor has 2 dimensions.
    """
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor._data.shape))


def dirac_(tensor, groups=1):
    """Dirac delta for {3,4,5}-D conv weights (identity on channels)."""
    dims = tensor.ndimension()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor._data.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out = np.zeros(sizes)
    per = sizes[0] // groups
    for g in range(groups):
        for d in range(min(per, sizes[1])):
            out[(g * per + d, d) + tuple(s // 2 for s in sizes[2:])] = 1
    return _fill(tensor, out)


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) = (size(1), size(0)) times the receptive field (dims 2+).

    Raises:
        ValueError: for tensors with fewer than 2 dimensions.
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    shape = tensor.shape
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError("Mode %s not supported, please use one of %s" % (mode, valid))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound), bound = gain * sqrt(3 / fan_mode) (He et al., 2015).

    ``Linear``'s default ``kaiming_uniform_(w, a=sqrt(5))`` gives U(-1/sqrt(in), 1/sqrt(in)).
    """
    if 0 in tensor.shape:
        _errors.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std          # PyTorch's order of float operations
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2), std = gain / sqrt(fan_mode) (He et al., 2015)."""
    if 0 in tensor.shape:
        _errors.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal matrix (Saxe et al.),
    tensors with more than 2 dims flattened to (size(0), rest). The normal matrix is
    PyTorch's draw; Q comes from NumPy's LAPACK (equal to float rounding, signs fixed
    by diag(R) as PyTorch).

    Raises:
        ValueError: for tensors with fewer than 2 dimensions.
    """
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _R.normal_(_plain(np.empty((rows, cols), tensor._data.dtype)), 0.0, 1.0,
                      generator=generator)._data
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (q * tensor._data.dtype.type(gain)).reshape(tensor._data.shape))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """2-D tensor: N(0, std^2) (from ``generator``) with ceil(sparsity * rows) entries
    of each column zeroed, rows chosen by ``torch.randperm(rows)`` from the default
    generator (as PyTorch, which does not pass ``generator`` there)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    nz = int(math.ceil(sparsity * rows))
    with no_grad():
        normal_(tensor, 0, std, generator)
        out = tensor._data.copy()
        for c in range(cols):
            out[_R.randperm(rows)._data[:nz], c] = 0
    return _fill(tensor, out)


# old names (deprecated in PyTorch, still present)
uniform, normal, constant = uniform_, normal_, constant_
xavier_uniform, xavier_normal = xavier_uniform_, xavier_normal_
kaiming_uniform, kaiming_normal = kaiming_uniform_, kaiming_normal_
orthogonal = orthogonal_
