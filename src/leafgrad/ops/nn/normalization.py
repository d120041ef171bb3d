"""Normalisation ops (``layer_norm``, ``group_norm``, ``batch_norm``, ``rms_norm``) and
their vector-Jacobian products (``instance_norm``: ``instancenorm.py``,
``local_response_norm``: ``local_response_norm.py``).

Formulas from the PyTorch docs: y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta with the
biased variance; batch_norm's running variance is updated with the unbiased one:
running = (1 - momentum) * running + momentum * batch_stat. The modules (``nn.LayerNorm``,
``nn.BatchNorm1d``, ...) are in ``nn.modules.normalization``.
"""

import numbers

import numpy as np

from ..._core.quiet import quiet as _quiet
from ...autograd.grad_mode import mode
from ...autograd.graph import Node
from .._dispatch import record
from .._named import _named
from .._registry import defop, functional_ops
from .._trace import tape as _tape

_TORCH_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool"}


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalisation (composite of differentiable ops: mean and biased variance per
    sample and group, then the per-channel affine).

    Raises:
        RuntimeError: an input of fewer than 2 dims, channels not divisible by
            ``num_groups``, or a weight/bias of another size than the channels.
        ValueError: a single value per group (PyTorch's message).
    """
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received %d"
                           % input.dim())
    shape = tuple(input.shape)
    size = [shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:])
    n = size[0]
    for d in size[2:]:
        n *= d
    if n == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         "size %s" % size)
    c = shape[1]
    if c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           "but got input of shape %s and num_groups=%d"
                           % (list(shape), num_groups))
    # PyTorch's bias message shows the weight's shape ([0] without a weight)
    shown = list(weight.shape) if weight is not None else [0]
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError("Expected %s to be a vector of size equal to the number of "
                               "channels in input, but got %s of shape %s and input of shape %s"
                               % (name, name, shown, list(shape)))
    x = input.reshape(shape[0], num_groups, -1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    out = ((x - mean) * (var + eps).rsqrt()).reshape(shape)
    bshape = (1, c) + (1,) * (len(shape) - 2)
    if weight is not None:
        out = out * weight.reshape(bshape)
    if bias is not None:
        out = out + bias.reshape(bshape)
    return _named(out, "NativeGroupNormBackward0")     # PyTorch's grad_fn name


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``F.layer_norm``: normalise over the trailing ``normalized_shape`` dims (biased variance),
    then scale by ``weight`` and shift by ``bias`` (both of shape ``normalized_shape``).

    Raises:
        RuntimeError: when the input's trailing dims are not ``normalized_shape``.
    """
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    ns = tuple(normalized_shape)
    k = len(ns)
    if not k:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []. Fix: name the trailing dims to "
            "normalise over, e.g. x.shape[-1:]")
    if input.dim() < k or tuple(input.shape[input.dim() - k:]) != ns:
        raise RuntimeError(
            "Given normalized_shape=%s, expected input with shape [*, %s], but got input of "
            "size%s" % (list(ns), ", ".join(str(s) for s in ns), list(input.shape)))
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError("\"LayerNormKernelImpl\" not implemented for '%s': layer_norm "
                                  "needs a floating point input. Fix: input.float()"
                                  % _TORCH_NAMES.get(x.dtype.name, x.dtype.name))
    dims = tuple(range(x.ndim - k, x.ndim))
    # PyTorch's CPU kernel: row moments accumulated more precisely than a plain
    # float32 mean (here in float64), rstd = 1 / sqrt(max(var, 0) + eps), then
    # y = (x * rstd + (-mean * rstd)) * weight + bias, step by step
    with _quiet():
        mean64 = x.mean(axis=dims, keepdims=True, dtype=np.float64)
        d = np.subtract(x, mean64)
        var = np.square(d, out=d).mean(axis=dims, keepdims=True).astype(x.dtype)
        del d
        mean = mean64.astype(x.dtype)
        rstd = (1 / np.sqrt(np.maximum(var, 0) + x.dtype.type(eps))).astype(x.dtype)
        xhat = x * rstd
        xhat += -mean * rstd
        # the weight's gradient is sum(g xhat): keep xhat (one array, as the output)
        # when it will be needed, instead of recomputing it in backward
        keep = weight is not None and weight._requires_grad and mode.enabled
        out = xhat if weight is None else np.multiply(xhat, weight._data,
                                                      out=np.empty_like(xhat))
        if bias is not None:
            out += bias._data
    return record(NativeLayerNormBackward0, out, (input, weight, bias),
                  saved=(input, weight), args=(dims, mean, rstd, eps, xhat if keep else None))


class NativeLayerNormBackward0(Node):
    """Gradients of layer_norm (PyTorch's layer_norm_backward): with
    xhat = (x - mean) rstd and gx = g * weight, over the normalised dims
    dx = rstd (gx - mean(gx) - xhat mean(gx xhat)); dweight = sum(g xhat),
    dbias = sum(g) over the leading dims."""

    __slots__ = ()
    saves = True

    def _release(ctx, freed_by=True):
        Node._release(ctx, freed_by)
        if ctx.args[4] is not None:
            ctx.args = ctx.args[:4] + (None,)      # the kept xhat goes with the saved tensors

    def backward(ctx, g):
        x, w = ctx._checked_saved
        dims = ctx.args[0]
        lead = tuple(range(x.dim() - len(dims)))
        nx, nw, nb = ctx.needs_input_grad
        mean = x.mean(dims, keepdim=True)
        xc = x - mean
        rstd = ((xc * xc).mean(dims, keepdim=True) + ctx.args[3]).rsqrt()
        xhat = xc * rstd
        gx = g * w if w is not None else g
        dx = (rstd * (gx - gx.mean(dims, keepdim=True)
                      - xhat * (gx * xhat).mean(dims, keepdim=True))) if nx else None
        dw = (g * xhat).sum(lead) if nw and lead else g * xhat if nw else None
        db = (g.sum(lead) if lead else g) if nb else None
        return dx, dw, db

    def np_backward(ctx, g):
        # PyTorch's CPU kernel step by step (so the rounding matches): with
        # ds = sum(g w x), db = sum(g w), n = the normalised size,
        # b = (db mean - ds) rstd^3 / n, c = -b mean - db rstd / n,
        # dx = rstd g w + b x + c; dweight = sum(g (rstd x - rstd mean))
        x, w = ctx.saved_arrays()
        dims, mean, rstd = ctx.args[:3]
        lead = tuple(range(x.ndim - len(dims)))
        nx, nw, nb = ctx.needs_input_grad
        dx = dw = db = None
        if nx:
            gw = g * w if w is not None else g
            scale = x.dtype.type(1.0 / np.prod([x.shape[d] for d in dims]))
            t = gw * x
            ds = t.sum(axis=dims, keepdims=True)
            dbs = gw.sum(axis=dims, keepdims=True)
            b = (dbs * mean - ds) * rstd * rstd * rstd * scale
            c = -b * mean - dbs * rstd * scale
            dx = rstd * gw
            dx += np.multiply(b, x, out=t)
            dx += c
        if nw:
            xhat = ctx.args[4]
            if xhat is None:    # the forward's xhat, the same bits
                xhat = rstd * x + -rstd * mean
            dw = (g * xhat).sum(axis=lead)
        if nb:
            db = g.sum(axis=lead)
        return dx, dw, db


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """``F.batch_norm`` over channel dim 1 of (N, C, *) input.

    training: normalise with the batch statistics (biased variance) and, when running
    stats are given, update them in place: running = (1 - momentum) running + momentum
    stat, with the unbiased variance. Otherwise normalise with the running stats.

    Raises:
        ValueError: one value per channel in training.
        RuntimeError: when C differs from the running stats' / weight's size.
    """
    nd = input.dim()
    c = input.shape[1] if nd > 1 else input.shape[0]
    for t in (running_mean, running_var, weight, bias):
        if t is not None and t.numel() != c:
            raise RuntimeError("running_mean should contain %d elements not %d" % (c, t.numel()))
    dims = (0,) + tuple(range(2, nd))
    bshape = (1, c) + (1,) * (nd - 2)
    if training:
        n = input.numel() // c
        if n <= 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             "size %r" % (input.shape,))
        mean = input.mean(dims, keepdim=True)
        xc = input - mean
        var = (xc * xc).mean(dims, keepdim=True)
        out = xc * (var + eps).rsqrt()
        if running_mean is not None:
            _running_mean_np(running_mean._data, momentum, mean._data)
            running_mean._bump_version()
            if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
                _tape[0].effect(_running_mean_np, (running_mean._data, momentum, mean._data),
                                (running_mean,))
        if running_var is not None:
            _running_var_np(running_var._data, momentum, var._data, n)
            running_var._bump_version()
            if _tape[0] is not None:
                _tape[0].effect(_running_var_np, (running_var._data, momentum, var._data, n),
                                (running_var,))
    else:
        out = (input - running_mean.reshape(bshape)) * (running_var.reshape(bshape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(bshape)
    if bias is not None:
        out = out + bias.reshape(bshape)
    return _named(out, "NativeBatchNormBackward0")     # PyTorch's grad_fn name


def _running_mean_np(rm, momentum, mean):
    """BatchNorm's running-mean update, in place: (1 - momentum) rm + momentum mean."""
    rm[...] = (1 - momentum) * rm + momentum * mean.reshape(rm.size)


def _running_var_np(rv, momentum, var, n):
    """The running-variance update, in place, with the unbiased batch variance."""
    rv[...] = (1 - momentum) * rv + momentum * (var.reshape(rv.size) * (n / (n - 1)))


def count_batch(num_batches_tracked):
    """``num_batches_tracked += 1`` in place (a version bump), as BatchNorm counts a batch."""
    _count_np(num_batches_tracked._data)
    num_batches_tracked._bump_version()
    if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
        _tape[0].effect(_count_np, (num_batches_tracked._data,), (num_batches_tracked,))


def _count_np(a):
    a[...] += 1


functional_ops(globals(), ("layer_norm", "group_norm", "batch_norm"))


def _sizes(shape):
    return "[%s]" % ", ".join(str(int(s)) for s in shape)


# ------------------------------------------------------------------ rms_norm
@defop("rms_norm", method=False, functional=True)
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dims:
    ``x * rsqrt(mean(x**2) + eps) * weight`` (Zhang & Sennrich 2019; PyTorch's composite
    ``rms_norm`` in ATen's layer_norm.cpp, same order of operations).

    Shapes: input (*, *normalized_shape); weight normalized_shape or None; result as input.
    ``eps=None``: the machine epsilon of input's dtype (``torch.finfo(dtype).eps``).

    Raises:
        RuntimeError: input's trailing shape is not ``normalized_shape``, or weight's shape
            differs from it.
    """
    ns = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) \
        else tuple(int(s) for s in normalized_shape)
    shape = tuple(input.shape)
    k = len(ns)
    if k == 0 or len(shape) < k or shape[len(shape) - k:] != ns:
        raise RuntimeError("Given normalized_shape=%s, expected input with shape [*%s], but "
                           "got input of size%s. Fix: normalized_shape is the input's last "
                           "dims" % (_sizes(ns), ", ".join(map(str, ns)), _sizes(shape)))
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError("Expected weight to be of same shape as normalized_shape, but got "
                           "weight of shape %s and normalized_shape = %s. Fix: weight's shape "
                           "is normalized_shape" % (_sizes(weight.shape), _sizes(ns)))
    if eps is None:
        kind = input._data.dtype
        eps = float(np.finfo(kind if kind.kind == "f" else np.float32).eps)
    dims = tuple(range(len(shape) - k, len(shape)))
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


