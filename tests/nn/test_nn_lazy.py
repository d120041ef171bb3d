"""Lazy layers against real PyTorch 2.13: repr before and after the first call, the class
they become, state_dict keys and shapes, outputs with copied weights, default init bounds,
and an optimizer built before the first call."""
import math

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn

LAZY = [("LazyLinear(4)", (2, 3)), ("LazyLinear(4, bias=False)", (2, 5, 3)),
        ("LazyConv2d(8, 3)", (2, 3, 6, 6)), ("LazyConv2d(8, 3)", (3, 6, 6)),
        ("LazyConv1d(4, 3, stride=2, padding=1, groups=2)", (2, 6, 9)),
        ("LazyConv3d(2, 2)", (1, 2, 3, 3, 3)),
        ("LazyConvTranspose2d(4, 3, stride=2)", (2, 3, 5, 5)),
        ("LazyConvTranspose1d(4, 3, 2, 1, 1)", (2, 3, 5)),
        ("LazyBatchNorm1d()", (4, 3)), ("LazyBatchNorm2d(affine=False)", (4, 3, 2, 2))]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("expr,shape", LAZY)
def test_lazy_matches_torch(expr, shape):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t)
    assert isinstance(l.weight, lnn.UninitializedParameter) == \
        isinstance(t.weight, torch.nn.UninitializedParameter)
    x = np.random.default_rng(0).random(shape).astype(np.float32)
    t(torch.tensor(x)), l(lg.tensor(x))
    assert type(l).__name__ == type(t).__name__ and repr(l) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in l.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    assert not any(isinstance(p, lnn.UninitializedParameter) for p in l.parameters())
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    np.testing.assert_allclose(l(lg.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_lazy_init_bounds_and_optimizer_before_first_call():
    lg.manual_seed(0)
    m = lnn.LazyLinear(50)
    opt = lg.optim.SGD(m.parameters(), lr=0.1)
    y = m(lg.ones(2, 40))
    bound = 1 / math.sqrt(40)
    w = m.weight.detach().numpy()
    assert w.shape == (50, 40) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    before = w.copy()
    y.sum().backward()
    opt.step()
    assert not np.allclose(m.weight.detach().numpy(), before)
