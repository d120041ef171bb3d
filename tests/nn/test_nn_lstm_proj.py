"""LSTM(proj_size=...) against real PyTorch 2.13: parameter names, shapes and order
(weight_hr_l{k}), repr, outputs, final states, gradients; the argument checks."""
import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("kw", [dict(num_layers=1), dict(num_layers=2, bidirectional=True),
                                dict(num_layers=2, batch_first=True, bias=False)])
@pytest.mark.parametrize("with_state", [False, True])
def test_lstm_projection_matches_torch(kw, with_state):
    torch.manual_seed(0)
    t, l = torch.nn.LSTM(5, 6, proj_size=3, **kw), lnn.LSTM(5, 6, proj_size=3, **kw)
    assert repr(l) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in l.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = arr(3, 4, 5) if not kw.get("batch_first") else arr(4, 3, 5)
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    D = 2 if kw.get("bidirectional") else 1
    args_t, args_l = (), ()
    if with_state:
        h, c = arr(D * kw["num_layers"], 4, 3, seed=1), arr(D * kw["num_layers"], 4, 6, seed=2)
        args_t, args_l = ((torch.tensor(h), torch.tensor(c)),), ((lg.tensor(h), lg.tensor(c)),)
    to, (th, tc) = t(tx, *args_t)
    lo, (lh, lc) = l(lx, *args_l)
    for a, b in ((lo, to), (lh, th), (lc, tc)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    (to.sum() + th.sum() * 2 + tc.sum() * 3).backward()
    (lo.sum() + lh.sum() * 2 + lc.sum() * 3).backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (n, tp), (_, lp) in zip(t.named_parameters(), l.named_parameters()):
        np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_unbatched_and_errors():
    t, l = torch.nn.LSTM(5, 6, proj_size=2), lnn.LSTM(5, 6, proj_size=2)
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = arr(3, 5)
    np.testing.assert_allclose(l(lg.tensor(x))[0].detach().numpy(),
                               t(torch.tensor(x))[0].detach().numpy(), rtol=1e-5, atol=1e-6)
    for nn in (torch.nn, lnn):
        with pytest.raises(ValueError):
            nn.LSTM(5, 6, proj_size=6)
        with pytest.raises(ValueError):
            nn.LSTM(5, 6, proj_size=-1)
    with pytest.raises(RuntimeError):
        t(torch.randn(3, 4, 5), (torch.zeros(1, 4, 6), torch.zeros(1, 4, 6)))
    with pytest.raises(RuntimeError):
        l(lg.randn(3, 4, 5), (lg.zeros(1, 4, 6), lg.zeros(1, 4, 6)))
