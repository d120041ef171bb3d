"""``nn.functional``'s composite ops: rms_norm, bilinear, channel_shuffle,
gumbel_softmax, conv_tbc, linear_cross_entropy (and pdist's functional form).

Each is built from recorded ops (its gradient, and the second order, come from
theirs), in the order PyTorch's composite kernel uses, so values round the same way;
the result shows PyTorch's ``grad_fn`` name where PyTorch's op has its own node.
"""

import numpy as np

from ..._tensor.tensor import Tensor
from .._dispatch import record
from .._named import _named
from ..shape import rearrange as shape_extra  # noqa: F401  (declares pdist)
from .._registry import add_form, defop, node
from ..._core import errors as _errors


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


# ------------------------------------------------------------------ bilinear
@defop("bilinear", method=False, functional=True)
def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T A_k x2 + b_k`` (PyTorch's ``bilinear``: ``_trilinear`` then the bias).

    Shapes: input1 (*, in1), input2 (*, in2) with the same batch dims, weight
    (out, in1, in2), bias (out,) or None -> (*, out).

    Raises:
        RuntimeError: the inputs' dims or batch sizes differ, or in1/in2/out do not match
            weight's (PyTorch's messages).
    """
    def bad(what):
        raise RuntimeError("bilinear(): %s. Fix: input1 (*, in1), input2 (*, in2), weight "
                           "(out, in1, in2), bias (out,)" % what)
    if input1.dim() != input2.dim():
        bad("input dimensions do not match: got %d and %d" % (input1.dim(), input2.dim()))
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            bad("input batch dimensions do not match at dim %d: got %d and %d" % (i, a, b))
    if weight.dim() != 3:
        bad("weight must be 3-dimensional, got %d dims" % weight.dim())
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        bad("input1 size does not match weight size: got %d but expected %d"
            % (input1.shape[-1], in1))
    if input2.shape[-1] != in2:
        bad("input2 size does not match weight size: got %d but expected %d"
            % (input2.shape[-1], in2))
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_f):
        bad("bias size does not match weight size: got %d but expected %d"
            % (bias.shape[-1] if bias.dim() else 1, out_f))
    a = input1.reshape(-1, in1)
    b = input2.reshape(-1, in2)
    y = _trilinear(a, weight, b)
    y = _named(y.reshape(tuple(input1.shape[:-1]) + (out_f,)), "ViewBackward0")
    return y if bias is None else y + bias


def _trilinear(a, weight, b):
    # (B, in1) x (out, in1, in2) x (B, in2) -> (B, out): first contract in1, then in2,
    # PyTorch's order (_trilinear: sumproduct_pair(i1, i2) first), which decides inf vs
    # nan when infinities meet
    out_f, in1, in2 = weight.shape
    t = (a @ weight.transpose(0, 1).reshape(in1, out_f * in2)).reshape(-1, out_f, in2)
    return (t * b.unsqueeze(1)).sum(-1)


# ------------------------------------------------------------------ channel_shuffle
def _check_shuffle(name, input, groups):
    if input.dim() <= 2:
        raise RuntimeError("%s expects input with > 2 dims, but got input with sizes %s. "
                           "Fix: input is (N, C, *)" % (name, _sizes(input.shape)))
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           "groups:%d. Fix: groups >= 1" % groups)
    c = input.shape[1]
    if c % groups:
        raise RuntimeError("Number of channels must be divisible by groups. Got %d channels and "
                           "%d groups. Fix: a groups that divides C" % (c, groups))


def _shuffled(input, groups):
    n, c = input.shape[:2]
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape(
        (n, c) + rest)


@defop("channel_shuffle", method=False, functional=True)
def channel_shuffle(input, groups):
    """Channels (N, C, *) regrouped: C = g x (C/g) -> (C/g) x g (Zhang et al. 2017,
    ShuffleNet; PyTorch's ``channel_shuffle``). Shape and dtype as input.

    Raises:
        RuntimeError: fewer than 3 dims, ``groups <= 0``, or C not divisible by groups.
    """
    _check_shuffle("channel_shuffle", input, groups)
    return _named(_shuffled(input, groups), "ChannelShuffleBackward0")


def _no_derivative(ctx, g):
    raise RuntimeError("the derivative for 'native_channel_shuffle' is not implemented. Fix: "
                       "use torch.nn.functional.channel_shuffle, which has one")


_NativeShuffle = node("NotImplemented", _no_derivative, saves=False)


@defop("native_channel_shuffle", method=False, functional=True)
def native_channel_shuffle(input, groups):
    """``channel_shuffle``'s values; as in PyTorch it has no derivative (its node,
    ``NotImplemented``, raises RuntimeError in backward)."""
    _check_shuffle("channel_shuffle", input, groups)
    out = _shuffled(input.detach(), groups)
    if not input._requires_grad:
        return out
    return record(_NativeShuffle, out._data, (input,))


# ------------------------------------------------------------------ pdist
# torch.pdist is declared with the shape extras; PyTorch also has it as F.pdist
add_form("pdist", functional=True)


# ------------------------------------------------------------------ gumbel_softmax
@defop("gumbel_softmax", function=False, method=False, functional=True)
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples of the Gumbel-softmax (Concrete) distribution (Jang et al. 2016;
    Maddison et al. 2016): ``softmax((logits + g) / tau)`` with ``g = -log(E)``,
    ``E ~ Exp(1)`` drawn from the default generator as PyTorch (same numbers after
    ``manual_seed``). ``hard=True``: the one-hot of the argmax in the forward pass, the
    soft sample's gradient (straight-through: ``y_hard - y_soft.detach() + y_soft``).

    Shapes and dtype: as ``logits``. ``eps`` is deprecated and ignored (a warning).
    """
    if eps != 1e-10:
        _errors.warn("`eps` parameter is deprecated and has no effect.", UserWarning)
    from ..._tensor.creation import empty_like, zeros_like
    gumbels = -empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ------------------------------------------------------------------ conv_tbc
@defop("conv_tbc", method=False, functional=True)
def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution in (time, batch, channels) layout (fairseq's; PyTorch's
    ``conv_tbc``): input (T, B, C_in), weight (K, C_in, C_out), bias (C_out,) ->
    (T + 2 pad - K + 1, B, C_out): the bias plus one matrix product per kernel tap over
    the time steps it reaches (PyTorch's ConvolutionTBC.cpp loop, so padding is never
    multiplied), with their gradients.

    Raises:
        TypeError: bias not a tensor; RuntimeError: dims or sizes that do not fit, or
            T + 2 pad < K - 1 (PyTorch's messages).
    """
    if not isinstance(bias, Tensor):
        raise TypeError("conv_tbc(): argument 'bias' (position 3) must be Tensor, not %s. Fix: "
                        "pass zeros(C_out) for no bias" % type(bias).__name__)

    def bad(what):
        raise RuntimeError("%s. Fix: input (T, B, C_in), weight (K, C_in, C_out), bias (C_out,)"
                           % what)
    if input.dim() != 3:
        bad("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        bad("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        bad("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        bad("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        bad("Bias size must equal dim 2 in the weight tensor (output channels).")
    # PyTorch's loop (ConvolutionTBC.cpp): the bias, then for each kernel tap one GEMM of
    # the time steps it reaches, added into the output rows it writes. Padding is never
    # multiplied (an inf weight meets no padded zero: no nan there), in PyTorch's order
    from ..shape.joins import cat
    n_t, b, _ = input.shape
    k_w, _, c_out = weight.shape
    olen = n_t + 2 * pad - k_w + 1
    if olen < 0:
        raise RuntimeError("Trying to create tensor with negative dimension %d: [%d, %d, %d]. "
                           "Fix: T + 2 * pad >= K - 1" % (olen, olen, b, c_out))
    out = bias.expand(olen, b, c_out)
    for k in range(k_w):
        i_shift, o_shift = max(0, k - pad), max(0, pad - k)
        t = min(n_t + pad - k, olen) - o_shift
        if t <= 0:
            continue
        part = input.narrow(0, i_shift, t) @ weight[k]
        if t < olen:
            zeros = np.zeros((1, b, c_out), part._data.dtype)
            part = cat([Tensor._make_plain(np.broadcast_to(zeros, (o_shift, b, c_out))), part,
                        Tensor._make_plain(np.broadcast_to(zeros, (olen - o_shift - t, b,
                                                                   c_out)))])
        out = out + part
    return _named(out, "ConvTbcBackward0")


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
