"""tanh's and sigmoid's backward kernels give PyTorch's bits (not only its values within
a tolerance): a learner comparing a hand-derived gradient with autograd's (makemore part
4: ``exact: False | approximate: True | maxdiff: 9.3e-10``) must see PyTorch's answer.

PyTorch computes tanh_backward as ``a * (1 - b * b)`` with ``1 - b * b`` contracted into
one fused multiply-add, and sigmoid_backward as ``a * (1 - b) * b``, in that order."""
import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops import elementwise


def _torch_fuses():
    """Whether this CPU's PyTorch build contracts tanh_backward into an FMA (every x86-64
    build with AVX2/AVX-512 kernels and aarch64 do; a build running its DEFAULT kernels
    (ATEN_CPU_CAPABILITY=default) may not, and then rounds twice)."""
    r = torch.linspace(-0.9, 0.9, 1001, dtype=torch.float64)
    g = torch.ones_like(r)
    return not torch.equal(torch.ops.aten.tanh_backward(g, r), g * (1 - r * r))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 17, 4099])
@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_backward_kernel_bits(name, n, dtype):
    if name == "tanh" and not _torch_fuses():
        pytest.skip("this CPU's PyTorch kernel does not fuse 1 - r*r")
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dtype)
    g = rng.standard_normal(n).astype(dtype)
    r = np.tanh(x) if name == "tanh" else 1 / (1 + np.exp(-x))
    want = getattr(torch.ops.aten, name + "_backward")(torch.from_numpy(g), torch.from_numpy(r))
    got = getattr(elementwise, name + "_backward")(leafgrad.tensor(g), leafgrad.tensor(r))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_autograd_uses_the_kernel(name):
    """x.grad through the op equals the kernel applied to the forward's output."""
    if name == "tanh" and not _torch_fuses():
        pytest.skip("this CPU's PyTorch kernel does not fuse 1 - r*r")
    rng = np.random.default_rng(0)
    x = leafgrad.tensor(rng.standard_normal(999).astype("float32"), requires_grad=True)
    g = leafgrad.tensor(rng.standard_normal(999).astype("float32"))
    y = getattr(leafgrad, name)(x)
    y.backward(g)
    want = getattr(torch.ops.aten, name + "_backward")(torch.from_numpy(g.numpy()),
                                                        torch.from_numpy(y.detach().numpy()))
    np.testing.assert_array_equal(x.grad.numpy(), want.numpy())
