"""nn.RNN / nn.LSTM / nn.GRU against real PyTorch: with the state_dict copied from
torch, the same outputs, final states and gradients (input, initial states,
every parameter); the same parameter names, order, shapes, repr and errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import leafgrad as lg
from _outcome import builtin_name

CONFIGS = [
    (dict(input_size=3, hidden_size=4), (5, 2, 3), False, np.float32),
    (dict(input_size=3, hidden_size=4, batch_first=True), (2, 5, 3), True, np.float32),
    (dict(input_size=3, hidden_size=4), (5, 3), True, np.float32),          # unbatched
    (dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True, bias=False),
     (6, 2, 3), True, np.float32),
    (dict(input_size=3, hidden_size=5, num_layers=3, batch_first=True), (2, 4, 3), False,
     np.float64),
    (dict(input_size=2, hidden_size=3, bidirectional=True), (1, 1, 2), True, np.float64),
]


def _states(cls, kw, shape, rng, dt):
    d = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    batch = () if len(shape) == 2 else ((shape[0] if kw.get("batch_first") else shape[1]),)
    return [rng.normal(size=(d,) + batch + (kw["hidden_size"],)).astype(dt)
            for _ in range(2 if cls == "LSTM" else 1)]


def recurrent(T, cls, kw, state, dtype):
    """``T.nn.<cls>(**kw)`` in ``dtype`` (float32 or float64) with ``state`` loaded."""
    m = getattr(T.nn, cls)(**kw)
    if dtype == np.float64:
        m = m.double()
    m.load_state_dict({k: T.tensor(v) for k, v in state.items()})
    return m


def _run(T, cls, kw, tm_state, x, states):
    m = recurrent(T, cls, kw, tm_state, x.dtype)
    tx = T.tensor(x, requires_grad=True)
    ts = [T.tensor(s, requires_grad=True) for s in states]
    if ts:
        out = m(tx, tuple(ts) if cls == "LSTM" else ts[0])
    else:
        out = m(tx)
    outs = [out[0]] + (list(out[1]) if cls == "LSTM" else [out[1]])
    rng = np.random.default_rng(1)
    loss = sum((o * T.tensor(rng.normal(size=tuple(o.shape)).astype(x.dtype))).sum()
               for o in outs)
    loss.backward()
    return ([o.detach().numpy() for o in outs], tx.grad.numpy(), [s.grad.numpy() for s in ts],
            [(n, p.grad.numpy()) for n, p in m.named_parameters()], repr(m))


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("config", range(len(CONFIGS)))
def test_recurrent_layer_matches_torch(cls, config):
    kw, shape, with_states, dt = CONFIGS[config]
    rng = np.random.default_rng(config)
    torch.manual_seed(100 + config)    # the weights must not depend on which tests ran before
    ref = getattr(torch.nn, cls)(**kw)
    state = {k: v.detach().numpy().astype(dt) for k, v in ref.state_dict().items()}
    x = rng.normal(size=shape).astype(dt)
    states = _states(cls, kw, shape, rng, dt) if with_states else []
    t, l = _run(torch, cls, kw, state, x, states), _run(lg, cls, kw, state, x, states)
    tol = dict(rtol=1e-5, atol=1e-6) if dt == np.float32 else dict(rtol=1e-12, atol=1e-13)
    assert len(l[0]) == len(t[0])
    for a, b in zip(l[0], t[0]):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **tol)
    np.testing.assert_allclose(l[1], t[1], **tol)
    for a, b in zip(l[2], t[2]):
        np.testing.assert_allclose(a, b, **tol)
    assert [n for n, _ in l[3]] == [n for n, _ in t[3]]
    for (n, a), (_, b) in zip(l[3], t[3]):
        np.testing.assert_allclose(a, b, err_msg=n, **tol)
    assert l[4] == t[4]


def test_parameters_and_init_as_torch():
    for kw in (dict(input_size=3, hidden_size=4), dict(input_size=2, hidden_size=3, num_layers=2,
                                                       bidirectional=True, bias=False)):
        for cls in ("LSTM", "GRU", "RNN"):
            tm, lm = getattr(torch.nn, cls)(**kw), getattr(lg.nn, cls)(**kw)
            assert [(n, tuple(p.shape)) for n, p in tm.named_parameters()] == \
                [(n, tuple(p.shape)) for n, p in lm.named_parameters()]
            bound = 1 / math.sqrt(kw["hidden_size"])
            for p in lm.parameters():
                assert p.requires_grad and float(p.detach().abs().max()) <= bound
            assert len(lm.all_weights) == len(tm.all_weights)
    assert repr(lg.nn.GRU(3, 4, num_layers=2, bias=False, dropout=0.1, bidirectional=True)) == \
        repr(torch.nn.GRU(3, 4, num_layers=2, bias=False, dropout=0.1, bidirectional=True))
    assert repr(lg.nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"


def _misuse(T):
    m = T.nn.LSTM(3, 4, batch_first=True)
    g = T.nn.GRU(3, 4, bidirectional=True)
    return {
        "4d_input": lambda: m(T.zeros(1, 2, 3, 3)),
        "input_size": lambda: m(T.zeros(2, 5, 5)),
        "hidden_size": lambda: m(T.zeros(2, 5, 3), (T.zeros(1, 3, 4), T.zeros(1, 2, 4))),
        "unbatched_hidden_3d": lambda: g(T.zeros(5, 3), T.zeros(2, 1, 4)),
        "dtype": lambda: m(T.zeros(2, 5, 3, dtype=T.float64)),
        "nonlinearity": lambda: T.nn.RNN(3, 4, nonlinearity="gelu"),
        "dropout_range": lambda: T.nn.GRU(3, 4, dropout=1.5),
    }


@pytest.mark.parametrize("name", sorted(_misuse(torch)))
def test_misuse_raises_as_torch(name):
    classes = []
    for T in (torch, lg):
        try:
            _misuse(T)[name]()
            classes.append(None)
        except Exception as e:  # noqa: BLE001
            classes.append(builtin_name(type(e)))
    assert classes[0] is not None and classes[1] == classes[0]


def test_dropout_with_one_layer_warns_as_torch():
    for T in (torch, lg):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            T.nn.LSTM(3, 4, dropout=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lg.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
