"""``torch.nn.grad`` (also ``nn.functional.grad``): the gradients of ``conv1d/2d/3d``
with respect to their input (``convNd_input``) or weight (``convNd_weight``), given the
gradient of the output.

Each is the vector-Jacobian product of the convolution (``autograd.grad`` of
``F.convNd`` at the given sizes, with ``grad_output`` as the cotangent), the same
quantity PyTorch computes with ``aten.convolution_backward``. A convolution is linear in
each argument, so the point where the other argument's gradient is taken does not
matter (zeros are used). As in PyTorch, the result is differentiable again: it has a
graph (``grad_fn=<ConvolutionBackwardBackward0>``) when ``weight`` (or ``input``) or
``grad_output`` requires grad.
"""
from .._tensor import creation as _creation
from ..autograd import grad as _grad
from ..ops._named import _named
from ..ops.nn.conv import conv1d, conv2d
from ..ops.nn.conv_transpose import conv3d

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = _creation.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(x, weight, None, stride, padding, dilation, groups)
    return _vjp(out, x, grad_output)


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = _creation.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(input, w, None, stride, padding, dilation, groups)
    return _vjp(out, w, grad_output)


def _vjp(out, wrt, grad_output):
    # create_graph: the result depends on the other argument and on grad_output
    g = _grad(out, wrt, grad_output, create_graph=True)[0]
    return _named(g, "ConvolutionBackwardBackward0") if g.requires_grad else g.detach()


_CONVS = {"conv1d": conv1d, "conv2d": conv2d, "conv3d": conv3d}    # F.convNd
_LAYOUT = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}


def _make(nd, kind):
    name = "conv%dd" % nd
    if kind == "input":
        def fn(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
            return _input_grad(_CONVS[name], input_size, weight, grad_output, stride,
                               padding, dilation, groups)
        what = "input: shape ``input_size`` %s" % _LAYOUT[nd]
    else:
        def fn(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
            return _weight_grad(_CONVS[name], input, weight_size, grad_output, stride,
                                padding, dilation, groups)
        what = "weight: shape ``weight_size`` (C_out, C_in / groups, *kernel)"
    fn.__name__ = fn.__qualname__ = "%s_%s" % (name, kind)
    fn.__doc__ = "The gradient of ``F.%s`` with respect to its %s." % (name, what)
    return fn


conv1d_input, conv1d_weight = _make(1, "input"), _make(1, "weight")
conv2d_input, conv2d_weight = _make(2, "input"), _make(2, "weight")
conv3d_input, conv3d_weight = _make(3, "input"), _make(3, "weight")
