"""``leafgrad.nn.functional``: activations, softmax, losses, linear, dropout, ...

Losses follow PyTorch's definitions (https://pytorch.org/docs/stable/nn.functional.html)
including ``reduction``, ``weight``, ``ignore_index`` and ``label_smoothing``;
cross-entropy works from ``log_softmax`` so it is stable for large logits.
"""
import warnings

import numpy as np

from .. import _errors
from .._tensor import Tensor, _wrap_dim
from ..autograd.graph import Node
from ..ops import elementwise as E
from ..ops._dispatch import record, to_tensor
from ..ops.conv import (adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d,  # noqa: F401
                        avg_pool2d, conv1d, conv2d, max_pool1d, max_pool2d)
from ..ops.linalg import linear  # noqa: F401
from ..ops.reduction import _return_type  # noqa: F401

from .._quiet import quiet as _quiet


def _node(name, backward, saves=False):
    return type(name, (Node,), {"__slots__": (), "saves": saves, "backward": backward})


# ---------------------------------------------------------------- softmax
def _softmax_dim(name, ndim, stacklevel=3):
    warnings.warn("Implicit dimension choice for %s has been deprecated. Change the call to "
                  "include dim=X as an argument." % name, UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_backward(ctx, g):
    y = ctx.result
    d = ctx.args
    return ((g - (g * y).sum(d, keepdim=True)) * y,)


SoftmaxBackward0 = _node("SoftmaxBackward0", _softmax_backward, saves=True)


def _softmax_np(ctx, g):
    y = ctx.result_array()
    return ((g - (g * y).sum(ctx.args, keepdims=True)) * y,)


SoftmaxBackward0.np_backward = _softmax_np


def _log_softmax_backward(ctx, g):
    y = ctx.result
    d = ctx.args
    return (g - y.exp() * g.sum(d, keepdim=True),)


LogSoftmaxBackward0 = _node("LogSoftmaxBackward0", _log_softmax_backward, saves=True)


def _log_softmax_np(ctx, g):
    y = ctx.result_array()
    return (g - np.exp(y) * g.sum(ctx.args, keepdims=True),)


LogSoftmaxBackward0.np_backward = _log_softmax_np


def _prep(input, dim, dtype, name):
    if dim is None:
        dim = _softmax_dim(name, input.dim(), 4)
    if dtype is not None:
        input = input.to(dtype)
    x = input._data
    if x.dtype.kind not in "fc":
        raise NotImplementedError("\"%s_lastdim_kernel_impl\" not implemented for '%s': %s "
                                  "takes floating point input. Fix: call .float() first."
                                  % (name, _tname(x.dtype), name))
    return input, x, _wrap_dim(dim, x.ndim)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``, computed with the max subtracted (stable).
    d/dx: (g - sum(g y)) y."""
    input, x, d = _prep(input, dim, dtype, "softmax")
    if x.ndim == 0:
        out = np.ones_like(x)
    else:
        with _quiet():
            e = np.exp(x - x.max(axis=d, keepdims=True))
            out = e / e.sum(axis=d, keepdims=True)
    return record(SoftmaxBackward0, out, (input,), save_result=True, args=d if x.ndim else 0)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along ``dim`` (stable). d/dx: g - softmax(x) sum(g)."""
    input, x, d = _prep(input, dim, dtype, "log_softmax")
    if x.ndim == 0:
        out = np.zeros_like(x)
    else:
        with _quiet():
            s = x - x.max(axis=d, keepdims=True)
            out = s - np.log(np.exp(s).sum(axis=d, keepdims=True))
    return record(LogSoftmaxBackward0, out, (input,), save_result=True, args=d if x.ndim else 0)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype)


# ------------------------------------------------------------ activations
sigmoid = E.sigmoid
tanh = E.tanh


def relu_(input):
    return input.relu_()


def _leaky_backward(ctx, g):
    (x,) = ctx.saved_tensors
    slope = ctx.args
    return (g * Tensor._make_plain(np.where(x._data > 0, 1.0, slope).astype(x._data.dtype)),)


LeakyReluBackward0 = _node("LeakyReluBackward0", _leaky_backward, saves=True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x. The gradient at 0 is the slope (as PyTorch)."""
    x = input._data
    out = np.where(x > 0, x, x * negative_slope).astype(x.dtype)
    res = record(LeakyReluBackward0, out, (input,), saved=(input,), args=negative_slope)
    return res


def _hardtanh_backward(ctx, g):
    # PyTorch's hardtanh_backward: 0 where x <= min_val or x >= max_val, else g
    # (so g passes at nan)
    (x,) = ctx.saved_tensors
    lo, hi = ctx.args
    return (g * Tensor._make_plain(~((x._data <= lo) | (x._data >= hi))),)


HardtanhBackward0 = _node("HardtanhBackward0", _hardtanh_backward, saves=True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clip(x, min_val, max_val) (nan stays nan). The gradient is 0 at and beyond the
    edges and passes elsewhere, nan included (PyTorch's hardtanh_backward)."""
    return record(HardtanhBackward0, np.clip(input._data, min_val, max_val), (input,),
                  saved=(input,), args=(min_val, max_val))


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0)


def _elu_backward(ctx, g):
    # PyTorch's elu_backward: g input_scale alpha scale exp(input_scale x) where x <= 0,
    # else g scale (so at nan). The x < 0 part is taken first (xn): a nan input gives
    # no nan through the branch where() leaves out, and the second derivative is 0 at
    # x = 0, as in PyTorch's elu_double_backward (which masks with x < 0).
    (x,) = ctx.saved_tensors
    alpha, scale, iscale = ctx.args
    xn = E.where(x < 0, x, 0.0)
    neg = g * (iscale * alpha * scale) * (xn * iscale).exp()
    return (E.where(x <= 0, neg, g * scale),)


EluBackward0 = _node("EluBackward0", _elu_backward, saves=True)
CeluBackward0 = _node("CeluBackward0", _elu_backward, saves=True)


def _elu(input, alpha, scale, input_scale, cls, back_args=None):
    # ATen's elu kernel: x <= 0 ? expm1(x input_scale) (alpha scale) : x scale, with the
    # coefficients rounded to the input's dtype first (bit for bit)
    x = input._data
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    t = x.dtype.type
    with _quiet():
        out = np.where(x <= 0, np.expm1(x * t(input_scale)) * (t(alpha) * t(scale)), x * t(scale))
    return record(cls, out.astype(x.dtype, copy=False), (input,), saved=(input,),
                  args=back_args or (alpha, scale, input_scale))


def elu(input, alpha=1.0, inplace=False):
    """alpha (exp(x) - 1) where x <= 0, else x. PyTorch's test order: nan takes the
    x branch, so its gradient is 1; at 0 the gradient is alpha."""
    return _elu(input, alpha, 1.0, 1.0, EluBackward0)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the constants of Klambauer et al. (2017)."""
    return _elu(input, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946,
                1.0, EluBackward0)


def celu(input, alpha=1.0, inplace=False):
    """alpha (exp(x / alpha) - 1) where x <= 0, else x (PyTorch's elu with input_scale
    1/alpha: the gradient is 1 at 0 and at nan)."""
    # PyTorch's backward takes input_scale as 1 / alpha with alpha rounded to float32
    # (its forward uses 1 / alpha): the float64 gradient differs in the 8th digit
    return _elu(input, alpha, 1.0, 1.0 / alpha, CeluBackward0,
                back_args=(alpha, 1.0, 1.0 / float(np.float32(alpha))))


def gelu(input, approximate="none"):
    """x Phi(x); ``approximate='tanh'`` uses the tanh formula (Hendrycks & Gimpel, 2016)."""
    if approximate == "tanh":
        c = float(np.sqrt(2 / np.pi))
        return 0.5 * input * (1 + E.tanh(c * (input + 0.044715 * input ** 3)))
    return 0.5 * input * (1 + E.erf(input * float(1 / np.sqrt(2))))


def silu(input, inplace=False):
    """x sigmoid(x) (swish)."""
    return input * E.sigmoid(input)


def mish(input, inplace=False):
    return input * E.tanh(softplus(input))


def _softplus_backward(ctx, g):
    # PyTorch's softplus_backward: g where beta x > threshold, else g sigmoid(beta x);
    # its second derivative is masked with beta x < threshold (softplus_double_backward),
    # so at beta x == threshold the sigmoid is taken of a constant copy
    (x,) = ctx.saved_tensors
    beta, th = ctx.args
    bx = x * beta
    soft = E.where(bx < th, bx, Tensor._make_plain(bx._data)).sigmoid()
    return (E.where(bx > th, g, g * soft),)


SoftplusBackward0 = _node("SoftplusBackward0", _softplus_backward, saves=True)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, and x where beta x > ``threshold`` (PyTorch's kernel).

    d/dx = sigmoid(beta x), 1 above the threshold (PyTorch's softplus_backward).
    """
    x = input._data
    with _quiet():
        bx = x * beta
        out = np.where(bx > threshold, x, np.log1p(np.exp(bx)) / beta)
    return record(SoftplusBackward0, out.astype(x.dtype, copy=False), (input,), saved=(input,),
                  args=(beta, threshold))


def logsigmoid(input):
    """log(sigmoid(x)) = -softplus(-x), stable."""
    return -softplus(-input)


def softsign(input):
    return input / (1 + E.abs(input))


def _hardsigmoid_backward(ctx, g):
    # 1/6 strictly inside (-3, 3), 0 at the edges and at nan (PyTorch's kernel)
    (x,) = ctx.saved_tensors
    xd = x._data
    # 1/6 rounded to float32, also for float64 inputs (PyTorch's constant is 1.0f / 6.0f)
    sixth = float(np.float32(1.0) / np.float32(6.0))
    return (g * Tensor._make_plain(((xd > -3) & (xd < 3)).astype(xd.dtype) * sixth),)


HardsigmoidBackward0 = _node("HardsigmoidBackward0", _hardsigmoid_backward, saves=True)


def _relu6_of_x_plus_3(x):
    with _quiet():
        return np.minimum(np.maximum(x + 3, 0), 6)    # nan propagates


def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6 (PyTorch's formula, bit for bit). The gradient is 1/6
    on (-3, 3) and 0 elsewhere, edges and nan included."""
    x = input._data
    return record(HardsigmoidBackward0, _relu6_of_x_plus_3(x) / 6, (input,), saved=(input,))


def _hardswish_backward(ctx, g):
    # PyTorch's hardswish_backward: 0 for x <= -3, g (x/3 + 1/2) for -3 < x < 3, g
    # otherwise (nan included); written with ops, so it has PyTorch's second derivative
    (x,) = ctx.saved_tensors
    return (E.where(x <= -3, 0.0, E.where(x < 3, g * (x / 3 + 0.5), g)),)


HardswishBackward0 = _node("HardswishBackward0", _hardswish_backward, saves=True)


def hardswish(input, inplace=False):
    """x min(max(x + 3, 0), 6) / 6, with PyTorch's gradient (see ``_hardswish_backward``)."""
    x = input._data
    return record(HardswishBackward0, x * _relu6_of_x_plus_3(x) / 6, (input,), saved=(input,))


def tanhshrink(input):
    return input - E.tanh(input)


def threshold(input, threshold, value, inplace=False):
    """value where x <= threshold, else x (nan stays nan and gets the gradient)."""
    return E.where(input <= threshold, value, input)


def glu(input, dim=-1):
    a, b = input.chunk(2, dim)
    return a * E.sigmoid(b)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """x / max(||x||_p, eps) along ``dim``."""
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps), dim), after broadcasting.

    PyTorch's formula (ATen ``cosine_similarity``): each norm is clamped to
    ``eps`` on its own, and the clamp is invisible to autograd (done in place
    under no_grad there), so at a zero vector the gradient is x2-hat / eps,
    not 0.

    Raises:
        RuntimeError: when neither input is floating point.
    """
    from .. import _dtype
    from ..ops.shape import broadcast_tensors
    common = _dtype.result_type(x1, x2)
    if common._category < 2:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is %s: "
                           "convert the inputs first, e.g. x.float()" % _tname(common.np))
    x1, x2 = (x if x.is_floating_point() else x.to(common) for x in (x1, x2))
    if x1.shape != x2.shape:
        x1, x2 = broadcast_tensors(x1, x2)
    n1, n2 = (_named(x.norm(2, dim, keepdim=True), "CloneBackward0",
                     data=lambda n: np.maximum(n, np.asarray(eps, n.dtype)))
              for x in (x1, x2))
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with a new last dim."""
    x = tensor._data
    if x.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    n = int(x.max()) + 1 if num_classes == -1 else num_classes
    if x.size and (x.min() < 0 or x.max() >= n):
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make_plain((x[..., None] == np.arange(n)).astype(np.int64))


def dropout(input, p=0.5, training=True, inplace=False):
    """Dropout with PyTorch's masks (the family lives in ``nn.modules.dropout``)."""
    from .modules.dropout import dropout as f
    return f(input, p, training, inplace)


def _dropout_family(name, train_default=True):
    def fn(input, p=0.5, training=train_default, inplace=False):
        from .modules import dropout as d
        return getattr(d, name)(input, p, training, inplace)
    fn.__name__ = name
    fn.__doc__ = "``F.%s`` (see ``nn.modules.dropout``)." % name
    return fn


dropout1d, dropout2d, dropout3d = (_dropout_family(n) for n in ("dropout1d", "dropout2d",
                                                                 "dropout3d"))
alpha_dropout, feature_alpha_dropout = (_dropout_family(n, False) for n in (
    "alpha_dropout", "feature_alpha_dropout"))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by integer ``input``; repeated indices accumulate gradient,
    the ``padding_idx`` row gets none, ``max_norm`` renormalises the rows used in place.
    (Implemented in ``nn.modules.sparse``.)"""
    from .modules.sparse import embedding as _embedding
    return _embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalisation over the trailing dims (see ``nn.modules.normalization``)."""
    from .modules.normalization import layer_norm as _layer_norm
    return _layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalisation over channel groups (see ``nn.modules.normalization``)."""
    from .modules.normalization import group_norm as _group_norm
    return _group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over dim 1 (see ``nn.modules.normalization``)."""
    from .modules.normalization import batch_norm as _batch_norm
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def pad(input, pad, mode="constant", value=None):
    """Pad the last dims: ``pad`` = (left, right, top, bottom, ...) as PyTorch."""
    if mode != "constant":
        raise NotImplementedError("only mode='constant' padding is supported")
    n = len(pad) // 2
    widths = [(0, 0)] * (input.dim() - n) + [(pad[2 * i], pad[2 * i + 1]) for i in range(n)][::-1]
    return input.pad_nd(widths, 0.0 if value is None else value)


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
        warnings.warn(
            "Using a target size (%s) that is different to the input size (%s). This will likely "
            "lead to incorrect results due to broadcasting. Please ensure they have the same size."
            % (target.shape, input.shape), UserWarning, stacklevel=3)


def _mse_backward(ctx, g):
    a, b = ctx.saved_tensors
    reduction, n = ctx.args
    na, nb = ctx.needs_input_grad
    d = a - b
    if reduction == "mean":
        g = g * (2.0 / n)
    elif reduction == "sum":
        g = g * 2.0
    else:
        g = g * 2.0
    return (g * d if na else None), (-(g * d) if nb else None)


MseLossBackward0 = _node("MseLossBackward0", _mse_backward, saves=True)


def _mse_np(ctx, g):
    a, b = ctx.saved_arrays()
    reduction, n = ctx.args
    gd = (g * (2.0 / n) if reduction == "mean" else g * 2.0) * (a - b)
    na, nb = ctx.needs_input_grad
    return (gd if na else None), (-gd if nb else None)


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
        from .._dtype import result_type
        npd = result_type(input, target).np
        x, y = x.astype(npd, copy=False), y.astype(npd, copy=False)
    try:
        d = x - y
    except ValueError:
        raise _errors.broadcast(tuple(input.shape), tuple(target.shape)) from None
    sq = d * d
    if reduction == "mean":
        out = sq.sum() / sq.size if sq.size else np.float32("nan")
    elif reduction == "sum":
        out = sq.sum()
    elif reduction == "none":
        out = sq
    else:
        raise ValueError("%s is not a valid value for reduction" % reduction)
    return record(MseLossBackward0, np.asarray(out, sq.dtype), (input, target),
                  saved=(input, target), args=(reduction, sq.size))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error."""
    reduction = _legacy(size_average, reduce, reduction)
    _same_shape(input, target, "l1_loss")
    return _reduce(E.abs(input - target), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _legacy(size_average, reduce, reduction)
    d = E.abs(input - target)
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(E.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    d = E.abs(input - target)
    return _reduce(E.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def _bce_backward(ctx, g):
    p, y, w = ctx.saved_tensors
    reduction, n = ctx.args
    eps = 1e-12
    grad = (p - y) / ((1 - p) * p).clamp_min(eps)
    if w is not None:
        grad = grad * w
    if reduction == "mean":
        g = g / n
    np_, ny = ctx.needs_input_grad[:2]
    gp = g * grad if np_ else None
    gy = None
    if ny:
        gy = g * ((1 - p).log().clamp_min(-100) - p.log().clamp_min(-100))
        if w is not None:
            gy = gy * w
    return gp, gy


BinaryCrossEntropyBackward0 = _node("BinaryCrossEntropyBackward0", _bce_backward, saves=True)


def _bce_np(ctx, g):
    p, y, w = ctx.saved_arrays()
    reduction, n = ctx.args
    if reduction == "mean":
        g = g / n
    np_, ny = ctx.needs_input_grad[:2]
    gp = gy = None
    if np_:
        gp = g * (p - y) / np.maximum((1 - p) * p, 1e-12)
        if w is not None:
            gp = gp * w
    if ny:
        gy = g * (np.maximum(np.log1p(-p), -100) - np.maximum(np.log(p), -100))
        if w is not None:
            gy = gy * w
    return gp, gy


BinaryCrossEntropyBackward0.np_backward = _bce_np


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
    if target._data.dtype.kind not in "fc":
        raise RuntimeError("Found dtype %s but expected %s: binary_cross_entropy takes float "
                           "targets. Fix: target.float()" % (_tname(target._data.dtype),
                                                            _tname(input._data.dtype)))
    p, y = input._data, target._data.astype(input._data.dtype, copy=False)
    if y.size and (np.any(y < 0) or np.any(y > 1)):
        raise RuntimeError("all elements of target should be between 0 and 1: targets of "
                           "binary_cross_entropy are probabilities (0 or 1 for labels).")
    if p.size and (np.any(p < 0) or np.any(p > 1) or np.any(np.isnan(p))):
        raise RuntimeError(
            "all elements of input should be between 0 and 1: binary_cross_entropy takes "
            "probabilities. Fix: apply torch.sigmoid to the logits first, or use "
            "binary_cross_entropy_with_logits (BCEWithLogitsLoss), which is also more stable.")
    with _quiet():
        loss = -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log1p(-p), -100))
    w = None
    if weight is not None:
        w = to_tensor(weight)
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
                  saved=(input, target, w), args=(reduction, loss.size))


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
    sp = _softplus_neg(input)
    if pos_weight is not None:
        lw = 1 + (pos_weight - 1) * target
        loss = (1 - target) * input + lw * sp
    else:
        loss = (1 - target) * input + sp
    if weight is not None:
        loss = loss * weight
    out = _reduce(loss, reduction)
    return out


def _div_scalar_backward(ctx, g):
    return (g / ctx.args,)


# a tensor divided by a number inside an op (PyTorch's C++ div(Scalar)): DivBackward1
DivBackward1 = type("DivBackward1", (Node,), {"__slots__": (), "saves": False,
                                              "backward": _div_scalar_backward})


def _div_scalar(t, number):
    with _quiet():
        out = np.asarray(t._data / number, dtype=t._data.dtype)
    return record(DivBackward1, out, (t,), args=number)


def _softplus_neg(x):
    # log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|))
    return E.maximum(-x, 0.0) + E.log1p(E.exp(-E.abs(x)))


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


def _tname(npd):
    return _errors.type_name(np.dtype(npd))


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
        rows, cols, wt, denom, shape = ctx.args
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


def _nll_2d(input, t, weight, ignore_index, reduction):
    """nll_loss for (N, C) log-probabilities and (N,) class indices in one node."""
    x = input._data
    N, C = x.shape
    if t.shape != (N,):
        raise ValueError("Expected input batch_size (%d) to match target batch_size (%d)."
                         % (N, t.shape[0] if t.ndim else 1))
    # common case first: every target a class index, no weights, nothing ignored
    lo, hi = (int(t.min()), int(t.max())) if N else (0, -1)
    rows = None
    if weight is None and 0 <= lo and hi < C and not (lo <= ignore_index <= hi
                                                         and (t == ignore_index).any()):
        safe, wt = t, None
        denom = float(N)
    else:
        valid = t != ignore_index
        bad = valid & ((t < 0) | (t >= C))
        if bad.any():
            raise IndexError("Target %d is out of bounds." % int(t[bad][0]))
        safe = np.where(valid, t, 0)
        w = np.ones(C, x.dtype) if weight is None else weight._data.astype(x.dtype)
        wt = w[safe] * valid
        denom = float(wt.sum())
        if not valid.all():
            rows = np.flatnonzero(valid)
    picked = x[np.arange(N), safe]
    with _quiet():
        if reduction == "none":
            out = -picked if wt is None else -(picked * wt)
            denom = None
        else:
            total = -(picked.sum() if wt is None else (picked * wt).sum())
            if reduction == "mean":
                total = total / denom
            else:
                denom = 1.0
            # + 0.0 turns -0.0 (a perfectly fitted batch) into 0.0, as PyTorch prints it
            out = np.asarray(total + 0.0, x.dtype)
    args = ((None, safe, wt, denom, x.shape) if rows is None else
            (rows, safe[rows], None if wt is None else wt[rows], denom, x.shape))
    return record(NllLossBackward0, out, (input,), args=args)


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
    smooth = smooth * valid
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
    reduction = _legacy(size_average, reduce, reduction)
    if log_target:
        loss = E.exp(target) * (target - input)
    else:
        loss = E.where(target > 0, target * (E.log(E.where(target > 0, target, 1.0)) - input), 0.0)
    if reduction == "batchmean":
        return loss.sum() / input.shape[0]
    return _reduce(loss, reduction)


def _soft_margin_backward(ctx, g):
    x, y = ctx.saved_tensors
    gi = -y * E.sigmoid(-y * x) * g
    return (gi / x.numel() if ctx.args == "mean" else gi), None


SoftMarginLossBackward0 = type("SoftMarginLossBackward0", (Node,), {
    "__slots__": (), "saves": True, "backward": _soft_margin_backward})


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """mean/sum/none of log(1 + exp(-target * input)); one node, as PyTorch."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if target.requires_grad or input.shape != target.shape or input.dtype != target.dtype:
        return _reduce(_softplus_neg(input * target), reduction)
    z = input._data * target._data
    with _quiet():
        loss = np.maximum(-z, 0) + np.log1p(np.exp(-np.abs(z)))
    if reduction != "none":
        loss = np.asarray(loss.mean() if reduction == "mean" else loss.sum(), dtype=z.dtype)
    return record(SoftMarginLossBackward0, loss, (input, target), saved=(input, target),
                  args=reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean", **kw):
    return _reduce(E.clamp(-target * (input1 - input2) + margin, min=0.0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean", **kw):
    return _reduce(E.where(target == 1, input, E.clamp(margin - input, min=0.0)), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean", **kw):
    cos = cosine_similarity(input1, input2, 1)
    return _reduce(E.where(target == 1, 1 - cos, E.clamp(cos - margin, min=0.0)), reduction)



# ------------------------------------------------ PyTorch's names for composites
_NAMED = {}


def _named(out, name, data=None):
    """``out`` behind a pass-through node called ``name``: ops that leafgrad builds
    from smaller ones (softplus, gelu, the logits BCE, ...) show PyTorch's
    ``grad_fn`` name when printed (``grad_fn=<SoftplusBackward0>``).

    ``data``: a function of ``out``'s array giving the value to return instead
    (a change autograd does not see, like PyTorch's in-place edits under no_grad)."""
    if data is not None:
        arr = data(out._data)
        if out._grad_fn is None:
            return Tensor._make_plain(arr)
    elif out._grad_fn is None:
        return out
    cls = _NAMED.get(name)
    if cls is None:
        cls = _NAMED[name] = type(name, (Node,), {
            "__slots__": (), "saves": False, "backward": lambda ctx, g: (g,),
            "np_backward": lambda ctx, g: (g,)})
    return record(cls, out._data if data is None else arr, (out,))


def _renamed(fn, name):
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return _named(fn(*args, **kwargs), name)
    return wrapper


logsigmoid = _renamed(logsigmoid, "LogSigmoidBackward0")
gelu = _renamed(gelu, "GeluBackward0")
silu = _renamed(silu, "SiluBackward0")
mish = _renamed(mish, "MishBackward0")
threshold = _renamed(threshold, "ThresholdBackward0")
binary_cross_entropy_with_logits = _renamed(binary_cross_entropy_with_logits,
                                            "BinaryCrossEntropyWithLogitsBackward0")
smooth_l1_loss = _renamed(smooth_l1_loss, "SmoothL1LossBackward0")
huber_loss = _renamed(huber_loss, "HuberLossBackward0")


# ------------------------------------------------------------ inplace=True
def _with_inplace(fn, name):
    """``fn(input, ..., inplace=True)`` writes the result into ``input`` (an
    in-place op: recorded for autograd, refused on a leaf that requires grad)."""
    import functools
    import inspect
    from ..ops import inplace as _ip
    params = list(inspect.signature(fn).parameters)
    pos = params.index("inplace")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not (kwargs.get("inplace") or (len(args) > pos and args[pos])):
            return fn(*args, **kwargs)
        args = list(args)
        if len(args) > pos:
            args[pos] = False
        else:
            kwargs["inplace"] = False
        input, rest = args[0], args[1:]
        return _ip.apply(input, name, lambda a: fn(a, *rest, **kwargs))
    return wrapper


def relu(input, inplace=False):
    """max(x, 0). d/dx = 1 where x > 0, else 0."""
    return E.relu(input)


for _name in ("relu", "leaky_relu", "hardtanh", "relu6", "elu", "selu", "celu", "silu", "mish",
              "hardsigmoid", "hardswish", "threshold"):
    globals()[_name] = _with_inplace(globals()[_name], _name + "_")
del _name
