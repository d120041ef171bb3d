"""Transposed convolution (``conv_transpose1d/2d/3d``) and ``conv3d``.

A transposed convolution is the adjoint of a convolution in its input: with the
convolution C(x) = conv(x, w) of stride s, padding p, dilation d, groups g,

    conv_transpose(y, w) = C^T(y) = grad_input of C at grad y,

whose output size per spatial dim (PyTorch's ConvTranspose docs) is

    out = (in - 1) * s - 2 p + d (k - 1) + output_padding + 1.

The weight keeps PyTorch's layout (C_in, C_out / groups, *kernel_size), which is the
layout of the convolution C's weight (C's C_out = our C_in). So the op is
``ops.nn.conv``'s grad_input map, and its derivatives are that module's bilinear rule
(role 1 of ``_conv_vjp``: d/dy is the convolution C, d/dw is C's grad_weight),
recorded when the backward is, so every order exists. The bias gradient is the
sum of the incoming gradient over the batch and spatial dims.

``output_padding`` (< stride or < dilation, as PyTorch requires) adds rows at the
high end; where it reaches past what C's output covers, ``y`` is zero-padded first.
``conv3d`` is ``ops.nn.conv``'s N-d convolution with three spatial dims.
"""
from .._dispatch import record
from .._registry import functional_ops
from .conv import (_NumPyConv, _RecordedConv, _ConvNode, _check_operands, _check_same_dtype,
                   _check_tensor, _conv, _conv_geometry, _conv_vjp, _ints, _k_conv_input)

__all__ = ["conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _bias_grad(ctx, g):
    if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
        return g.sum(0).sum(ctx.args.bias_axes)
    return None


class _ConvTransposeNode(_ConvNode):
    """y = grad_input_C(x, w) + bias; the products are ``_conv_vjp``'s role 1."""

    __slots__ = ()
    role = 1

    def backward(ctx, g):
        a, b = ctx._checked_saved[:2]
        gm = ctx.args
        return _conv_vjp(_RecordedConv, 1, a, b, g, gm, ctx.needs_input_grad) + (
            _bias_grad(ctx, g),)

    def np_backward(ctx, g):
        a, b = ctx.saved_arrays()[:2]
        return _conv_vjp(_NumPyConv(), 1, a, b, g, ctx.args, ctx.needs_input_grad) + (
            _bias_grad(ctx, g),)


ConvolutionBackward0 = type("ConvolutionBackward0", (_ConvTransposeNode,), {"__slots__": ()})


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W); weight (C_out,
    C_in / groups, kD, kH, kW). Sizes, arguments and errors as ``conv2d``'s, per dim."""
    return _conv(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _output_sizes(fn, insp, k, s, p, op, d):
    out = [(i - 1) * st - 2 * pp + dd * (kk - 1) + o + 1
           for i, kk, st, pp, o, dd in zip(insp, k, s, p, op, d)]
    if any(v <= 0 for v in out):
        raise RuntimeError(
            "Given input size per channel: (%s). Calculated output size per channel: (%s). "
            "Output size is too small. Fix: use a smaller padding or a larger input."
            % (" x ".join(map(str, insp)), " x ".join(map(str, out))))
    return out


def _conv_transpose(nd, fn, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    x, w = _check_operands(nd, fn, input, weight, "C_in, C_out / groups")
    if x.ndim == nd + 1:
        return _conv_transpose(nd, fn, input.unsqueeze(0), weight, bias, stride, padding,
                               output_padding, groups, dilation).squeeze(0)
    _check_same_dtype(x, w)
    s = _ints(stride, nd, "stride", fn)
    p = _ints(padding, nd, "padding", fn)
    op = _ints(output_padding, nd, "output_padding", fn)
    d = _ints(dilation, nd, "dilation", fn)
    if type(groups) is not int or groups <= 0:
        raise RuntimeError("non-positive groups is not supported (got groups=%s). Fix: groups "
                           "must be a positive integer that divides both channel counts."
                           % (groups,))
    if any(v <= 0 for v in s) or any(v <= 0 for v in d) or any(v < 0 for v in p + op):
        raise RuntimeError("%s: stride and dilation must be positive and padding and "
                           "output_padding non-negative, but got stride=%s, padding=%s, "
                           "output_padding=%s, dilation=%s" % (fn, s, p, op, d))
    if any(o >= st and o >= dd for o, st, dd in zip(op, s, d)):
        names = ("depth", "height", "width")[3 - nd:]
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got %s. Fix: "
            "use output_padding < stride (or < dilation)." % ", ".join(
                ["output_padding_%s: %d" % (n, v) for n, v in zip(names, op)]
                + ["stride_%s: %d" % (n, v) for n, v in zip(names, s)]
                + ["dilation_%s: %d" % (n, v) for n, v in zip(names, d)]))
    if x.shape[1] != w.shape[0]:
        raise RuntimeError(
            "Given transposed=1, weight of size %s, expected input%s to have %d channels, but "
            "got %d channels instead. Fix: the input's dim 1 must be the weight's dim 0 "
            "(in_channels)." % (list(w.shape), list(x.shape), w.shape[0], x.shape[1]))
    if w.shape[0] % groups:
        raise RuntimeError("Given groups=%d, expected weight to be divisible by %d at dimension "
                           "0, but got weight of size %s instead. Fix: in_channels must be a "
                           "multiple of groups." % (groups, groups, list(w.shape)))
    out = _output_sizes(fn, x.shape[2:], w.shape[2:], s, p, op, d)
    if bias is not None:
        _check_tensor(fn, "bias", bias, 3)
        want = w.shape[1] * groups
        if bias._data.shape != (want,):
            raise RuntimeError("Given transposed=1, weight of size %s, expected bias to be "
                               "1-dimensional with %d elements, but got bias of size %s instead"
                               % (list(w.shape), want, list(bias._data.shape)))
    xshape = (x.shape[0], w.shape[1] * groups) + tuple(out)
    gm = _conv_geometry(fn, xshape, w.shape, s, p, d, groups)
    if gm.out != x.shape[2:]:
        # output_padding >= stride (allowed when < dilation): C's output is longer
        extra = [(0, 0), (0, 0)] + [(0, a - b) for a, b in zip(gm.out, x.shape[2:])]
        input = input.pad_nd(extra, 0.0)
        x = input._data
    y = _k_conv_input(x, w, gm)
    if bias is not None:
        y += bias._data.astype(y.dtype).reshape((-1,) + (1,) * nd)
    return record(ConvolutionBackward0, y, (input, weight, bias), saved=(input, weight),
                  args=gm)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """1-d transposed convolution over (N, C_in, L) or (C_in, L); weight (C_in,
    C_out / groups, k) -> (N, C_out, (L - 1) s - 2 p + d (k - 1) + output_padding + 1).
    See ``conv_transpose2d`` for the errors."""
    return _conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2-d transposed convolution ("deconvolution") over (N, C_in, H, W) or (C_in, H, W).

    Shapes: weight (C_in, C_out / groups, kH, kW), bias (C_out,) -> (N, C_out, H_out,
    W_out), H_out = (H - 1) stride - 2 padding + dilation (kH - 1) + output_padding + 1
    (PyTorch's ConvTranspose2d docs). Note the argument order: groups before dilation.

    Raises:
        RuntimeError: an input whose channels are not the weight's dim 0, output_padding
            not below stride or dilation, an output size under 1, mismatched dtypes, bad
            stride/padding/dilation/groups, a bias of the wrong size.
    """
    return _conv_transpose(2, "conv_transpose2d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """3-d transposed convolution over (N, C_in, D, H, W) or (C_in, D, H, W); as
    ``conv_transpose2d`` per spatial dim."""
    return _conv_transpose(3, "conv_transpose3d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


functional_ops(globals(), ("conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"),
               function=True)
