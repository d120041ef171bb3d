"""F.pad's four modes and the padding modules against real PyTorch 2.13: values,
gradients (padded copies accumulate into the border), grad_fn names, second order,
reprs and error classes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.nn.functional as LF
from leafgrad.autograd import gradgradcheck

PADS = [
    ((2, 3, 4, 5), (1, 1, 2, 0), "reflect"), ((2, 3, 4, 5), (4, 1, -1, 3), "reflect"),
    ((3, 4, 5), (2, 3), "replicate"), ((2, 3, 4, 5), (9, 1, 1, 1), "replicate"),
    ((2, 3, 4, 5), (5, 1, -1, 1), "circular"), ((4, 5), (1, 2), "circular"),
    ((2, 3, 4, 5), (5, 5, 4, 4), "circular"), ((2, 2, 3, 4, 5), (1, 2, 0, 1, 2, 2), "reflect"),
    ((2, 3, 4, 5), (1, -2, 2, 0), "constant"), ((2, 3, 4, 5), (1, 1), "constant"),
    ((5,), (-1, -2), "constant"), ((2, 3, 4, 5), (0, 0, 1, 1), "replicate"),
]


@pytest.mark.parametrize("shape,p,mode", PADS)
def test_pad_matches_torch(shape, p, mode):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    tout, lout = TF.pad(tx, p, mode=mode), LF.pad(lx, p, mode=mode)
    np.testing.assert_array_equal(lout.detach().numpy(), tout.detach().numpy())
    assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = np.random.default_rng(1).standard_normal(tout.shape).astype(np.float32)
    (tout * torch.tensor(g)).sum().backward()
    (lout * lg.tensor(g)).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_pad_value_and_second_order():
    x = lg.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4)), requires_grad=True)
    for mode in ("reflect", "replicate", "circular"):
        assert gradgradcheck(lambda t: LF.pad(t, (2, 1, 1, 2), mode=mode) ** 2, (x,))
    np.testing.assert_array_equal(LF.pad(lg.ones(2), (1, 1), value=3.0).numpy(), [3, 1, 1, 3])


@pytest.mark.parametrize("call,exc", [
    (lambda F, x: F.pad(x, (1, 1), mode="reflect"), NotImplementedError),    # 4-D, one dim
    (lambda F, x: F.pad(x, (1, 1, 1), mode="constant"), RuntimeError),
    (lambda F, x: F.pad(x, (1, 1), mode="foo"), NotImplementedError),
    (lambda F, x: F.pad(x, (1, 1, 1, 1), mode="reflect", value=2.0), RuntimeError),
    (lambda F, x: F.pad(x, (5, 1, 1, 1), mode="reflect"), RuntimeError),
    (lambda F, x: F.pad(x, (6, 1, 1, 1), mode="circular"), RuntimeError),
    (lambda F, x: F.pad(x[0, 0, 0], (1, 1), mode="replicate"), NotImplementedError),
])
def test_pad_errors_as_torch(call, exc):
    with pytest.raises(exc):
        call(TF, torch.randn(2, 3, 4, 5))
    with pytest.raises(exc, match="Fix:"):
        call(LF, lg.randn(2, 3, 4, 5))


MODULES = ["ZeroPad2d(2)", "ZeroPad1d((1, 2))", "ZeroPad3d(1)", "ConstantPad1d(2, -1.5)",
           "ConstantPad2d((1, 2, 3, 4), 3.5)", "ConstantPad3d(1, 0.0)", "ReflectionPad1d(2)",
           "ReflectionPad2d(1)", "ReflectionPad3d((1, 0, 1, 2, 0, 1))", "ReplicationPad1d(3)",
           "ReplicationPad2d((0, 1, 2, 3))", "ReplicationPad3d((1, 2, 0, 1, 1, 0))",
           "CircularPad1d(2)", "CircularPad2d((1, 0, 2, 1))", "CircularPad3d(1)"]


@pytest.mark.parametrize("expr", MODULES)
def test_padding_modules_match_torch(expr):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t) and l.padding == t.padding
    nd = int(expr.split("d(")[0][-1])
    x = np.random.default_rng(0).standard_normal([2, 3] + [4] * nd).astype(np.float32)
    np.testing.assert_array_equal(l(lg.tensor(x)).numpy(), t(torch.tensor(x)).numpy())


def test_circular_module_checks_rank_like_torch():
    with pytest.raises(ValueError):
        torch.nn.CircularPad2d(1)(torch.randn(4, 4))
    with pytest.raises(ValueError):
        lnn.CircularPad2d(1)(lg.randn(4, 4))
