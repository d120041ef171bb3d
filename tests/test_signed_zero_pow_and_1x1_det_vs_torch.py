"""Issue 26 item 9: PyTorch computes ``x ** 0.5`` as sqrt and ``x ** -0.5`` as rsqrt, so at
-0. they give -0. and -inf (and the gradient of ``x ** 0.5`` there is -inf); the gradient of
the determinant of a 1x1 matrix is 1 even where the matrix is singular."""
import numpy as np
import pytest
import torch

import leafgrad

VALUES = [-0., 0., 4., -4., float("inf"), float("-inf"), float("nan"), 1e-300]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [0.5, -0.5, 2.0, -1.5])
def test_pow_by_half_values_and_grads(exponent, dtype):
    out = []
    for T in (torch, leafgrad):
        x = T.tensor(VALUES, dtype=getattr(T, dtype), requires_grad=True)
        y = x ** exponent
        y.sum().backward()
        out.append((y.detach().numpy(), x.grad.numpy(), T.pow(x.detach(), exponent).numpy()))
    for theirs, ours in zip(*out):
        real = ~np.isnan(theirs)               # a NaN's sign bit is the CPU's, not a result
        np.testing.assert_array_equal(np.signbit(ours)[real], np.signbit(theirs)[real])
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("value", [[[0.]], [[3.]], [[[0.]], [[2.]]]])
@pytest.mark.parametrize("fn", ["det", "linalg.det"])
def test_det_of_1x1_gradient(value, fn):
    grads = []
    for T in (torch, leafgrad):
        x = T.tensor(value, requires_grad=True)
        f = T.linalg.det if fn == "linalg.det" else T.det
        f(x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
