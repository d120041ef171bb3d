"""The torch.X / Tensor.X forms derived for ops declared with nn.functional (conv3d,
conv_transpose*, max_pool3d, pixel_shuffle, hardshrink, prelu) against real PyTorch:
values and input gradients."""
import numpy as np
import pytest
import torch

import leafgrad

_rng = np.random.default_rng(0)


def _pair(*shape):
    a = _rng.standard_normal(shape).astype(np.float32)
    return leafgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


CASES = {
    "conv3d": (lambda T, x, w: T.conv3d(x, w, None, 1, 1), ((1, 2, 3, 4, 4), (3, 2, 2, 2, 2))),
    "conv_transpose1d": (lambda T, x, w: T.conv_transpose1d(x, w, None, 2, 1, 1),
                         ((2, 3, 5), (3, 2, 3))),
    "conv_transpose2d": (lambda T, x, w: T.conv_transpose2d(x, w, stride=2),
                         ((1, 2, 3, 3), (2, 3, 2, 2))),
    "conv_transpose3d": (lambda T, x, w: T.conv_transpose3d(x, w), ((1, 2, 2, 2, 2), (2, 1, 2, 2, 2))),
    "max_pool3d": (lambda T, x: T.max_pool3d(x, 2, 1, 1), ((1, 2, 3, 4, 4),)),
    "pixel_shuffle": (lambda T, x: T.pixel_shuffle(x, 2), ((1, 8, 2, 3),)),
    "pixel_unshuffle": (lambda T, x: T.pixel_unshuffle(x, 2), ((1, 2, 4, 6),)),
    "hardshrink": (lambda T, x: T.hardshrink(x, 0.3), ((3, 4),)),
    "Tensor.hardshrink": (lambda T, x: x.hardshrink(), ((3, 4),)),
    "prelu": (lambda T, x, w: T.prelu(x, w), ((2, 3, 4), (3,))),
    "Tensor.prelu": (lambda T, x, w: x.prelu(w), ((2, 3, 4), (1,))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_form_as_pytorch(name):
    fn, shapes = CASES[name]
    pairs = [_pair(*s) for s in shapes]
    got = fn(leafgrad, *[p[0] for p in pairs])
    want = fn(torch, *[p[1] for p in pairs])
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)
    g = _rng.standard_normal(tuple(want.shape)).astype(np.float32)
    got.backward(leafgrad.tensor(g))
    want.backward(torch.tensor(g))
    for lg, tt in pairs:
        np.testing.assert_allclose(lg.grad.numpy(), tt.grad.numpy(), rtol=1e-4, atol=1e-5)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
