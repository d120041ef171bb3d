"""``torch.nn.grad`` (also ``nn.functional.grad``): the gradients of ``conv1d/2d/3d``
with respect to their input (``convNd_input``) or weight (``convNd_weight``), given the
gradient of the output.

Each is the vector-Jacobian product of the convolution (``autograd.grad`` of
``F.convNd`` at the given sizes, with ``grad_output`` as the cotangent), the same
quantity PyTorch computes with ``aten.convolution_backward``. A convolution is linear in
each argument, so the point where the other argument's gradient is taken does not
matter (zeros are used).
"""
from .. import _creation
from ..autograd import grad as _grad
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = _creation.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(x, weight.detach(), None, stride, padding, dilation, groups)
    return _grad(out, x, grad_output)[0]


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = _creation.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(input.detach(), w, None, stride, padding, dilation, groups)
    return _grad(out, w, grad_output)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv1d)/d input times grad_output: shape ``input_size`` (N, C_in, L)."""
    return _input_grad(F.conv1d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv1d)/d weight times grad_output: shape ``weight_size`` (C_out, C_in/g, K)."""
    return _weight_grad(F.conv1d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv2d)/d input times grad_output: shape ``input_size`` (N, C_in, H, W)."""
    return _input_grad(F.conv2d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv2d)/d weight times grad_output: shape ``weight_size``."""
    return _weight_grad(F.conv2d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv3d)/d input times grad_output: shape ``input_size`` (N, C_in, D, H, W)."""
    return _input_grad(F.conv3d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """d(conv3d)/d weight times grad_output: shape ``weight_size``."""
    return _weight_grad(F.conv3d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)
