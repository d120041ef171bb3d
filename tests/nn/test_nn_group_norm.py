"""nn.GroupNorm / F.group_norm against real PyTorch: repr, parameters, forward and
backward (input, weight, bias) with the same weights, errors."""
import numpy as np
import pytest
import torch

import leafgrad as lg

CONFIGS = [
    ((2, 6, 5), dict(num_groups=2, num_channels=6)),
    ((3, 4, 3, 5), dict(num_groups=4, num_channels=4, eps=1e-3)),
    ((2, 6), dict(num_groups=3, num_channels=6)),
    ((2, 8, 2, 2, 3), dict(num_groups=1, num_channels=8, affine=False)),
    ((1, 4, 7), dict(num_groups=2, num_channels=4, bias=False)),
]


@pytest.mark.parametrize("shape,kw", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_group_norm_matches_torch(shape, kw, dt):
    rng = np.random.default_rng(0)
    x = (rng.normal(size=shape) * 3 + 1).astype(dt)
    tm, lm = torch.nn.GroupNorm(**kw), lg.nn.GroupNorm(**kw)
    assert repr(lm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in lm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    if dt == np.float64:
        tm, lm = tm.double(), lm.double()
    with torch.no_grad():
        for p in tm.parameters():
            p.copy_(torch.tensor(rng.normal(size=tuple(p.shape)).astype(dt)))
    lm.load_state_dict({k: lg.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    ty, ly = tm(tx), lm(lx)
    tol = dict(rtol=1e-5, atol=1e-5) if dt == np.float32 else dict(rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    w = rng.normal(size=shape).astype(dt)
    (ty * torch.tensor(w)).sum().backward()
    (ly * lg.tensor(w)).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)
    for (n, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), err_msg=n, **tol)


def test_group_norm_functional_matches_torch():
    x = np.random.default_rng(1).normal(size=(2, 6, 4)).astype(np.float32)
    np.testing.assert_allclose(
        lg.nn.functional.group_norm(lg.tensor(x), 3, eps=1e-2).numpy(),
        torch.nn.functional.group_norm(torch.tensor(x), 3, eps=1e-2).numpy(),
        rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.GroupNorm(4, 6),
    lambda T: T.nn.GroupNorm(2, 6)(T.ones(6)),
    lambda T: T.nn.GroupNorm(2, 6)(T.ones(2, 4, 3)),
    lambda T: T.nn.functional.group_norm(T.ones(2, 5, 3), 2),
    lambda T: T.nn.functional.group_norm(T.ones(1, 2), 2),
    lambda T: T.nn.functional.group_norm(T.ones(2, 4), 2, bias=T.ones(3)),
])
def test_group_norm_errors_as_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as le:
        call(lg)
    assert str(le.value) == str(te.value)
